import { decodeTime } from 'ulid';
import type { EventEnvelope } from '../envelope.js';
import type { Redis } from '../../redis/redis.js';
import type { EventHistory, EventPublisher, PrevId } from './types.js';
import { StreamKeys } from './keys.js';

export { StreamKeys } from './keys.js';

/** A stream entry as node-redis returns it with the default (RESP2-style) type mapping. */
export interface StreamEntry {
  id: string;
  message: Record<string, string>;
}

/**
 * A map channel's message: the stream id of the entry before the first event, that of the last, then
 * each event's JSON, one a line (JSON text has no raw line breaks). A reader whose position is not the
 * first line missed a message, and reads the map's stream from its position instead. When the
 * publisher knows the id of the map's event before the first one (PrevId), the first line carries it
 * after a space (`-`: none before it); the events of a message follow each other in the map's log.
 */
export function liveMessage(prev: string, last: string, json: readonly string[], prevEvent?: PrevId): string {
  const head = prevEvent === undefined ? prev : `${prev} ${prevEvent ?? '-'}`;
  return `${head}\n${last}\n${json.join('\n')}`;
}

/** A live message's first line: the stream id before the message, and the event id before its first event. */
export function parseLiveHead(head: string): { prev: string; prevEvent: PrevId } {
  const space = head.indexOf(' ');
  if (space < 0) return { prev: head, prevEvent: undefined };
  const event = head.slice(space + 1);
  return { prev: head.slice(0, space), prevEvent: event === '-' ? null : event };
}

/** The `prev` field of a stream entry (absent: written by a publisher that did not know it; empty: none before). */
export function entryPrev(message: Record<string, string>): PrevId {
  const prev = message.prev;
  return prev === undefined ? undefined : prev === '' ? null : prev;
}

export async function lastEntry(redis: Redis, key: string): Promise<{ id: string; streamId: string } | undefined> {
  const entries = ((await redis.xRevRange(key, '+', '-', { COUNT: 1 })) ?? []) as unknown as StreamEntry[];
  const entry = entries[0];
  return entry ? { id: entry.message.id!, streamId: entry.id } : undefined;
}

/**
 * Publishes a map's events: first their copy in the map's partition stream (with a wake-up of its
 * readers), then, in one MULTI on the map's slot, the map's stream and one message on its live channel.
 * The partition copy goes first: a failure between the two leaves copies that the relay's retry adds
 * again (consumers skip ids they have handed out), never an event in the map's stream that its
 * partition lacks.
 *
 * Each entry and message carries the id of the map's event before it (`prev`). When that is not the
 * stream's last entry, the stream lacks events the log has (published elsewhere: a relay of an earlier
 * release writing other keys, or lost with Redis's last writes): the stream starts over with these
 * events (DEL in the same MULTI), so the hot history never has a hole; its readers see it trimmed past
 * their position and re-read from the log.
 */
export class RedisEventPublisher implements EventPublisher {
  /** Last entry per map as this publisher left it, saving an XREVRANGE per round. */
  private readonly lastByMap = new Map<string, { id: string; streamId: string }>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: StreamKeys,
    private readonly maxPerMap = 10_000,
  ) {}

  async publish(mapId: string, events: readonly EventEnvelope[], prevEvent?: PrevId): Promise<number> {
    if (events.length === 0) return 0;
    const key = this.keys.map(mapId);
    const last = this.lastByMap.get(mapId) ?? (await lastEntry(this.redis, key));
    let lastMs = last ? Number(last.streamId.split('-')[0]) : -1;
    let lastSeq = last ? Number(last.streamId.split('-')[1]) : -1;
    let prev = last?.streamId ?? '0-0';
    const multi = this.redis.multi();
    const copies = this.redis.multi();
    const partition = this.keys.partitionOf(mapId);
    const json: string[] = [];
    let added = 0;
    let before = prevEvent;
    let firstPrev: PrevId;
    for (const e of events) {
      const previous = before;
      before = e.id;
      if (last && e.id <= last.id) continue;
      if (added === 0) {
        firstPrev = previous;
        if (last && previous !== undefined && previous !== last.id) {
          // The stream's last entry is not the event before these: it starts over (see above).
          multi.del(key);
          lastMs = -1;
          lastSeq = -1;
          prev = '0-0';
        }
      }
      const ms = decodeTime(e.id);
      // Stream ids must grow; ULIDs of one map grow too, and their time part never goes back.
      const seq = ms === lastMs ? lastSeq + 1 : ms > lastMs ? 0 : lastSeq + 1;
      const streamMs = Math.max(ms, lastMs);
      lastMs = streamMs;
      lastSeq = seq;
      const text = JSON.stringify(e);
      json.push(text);
      const prevField: Record<string, string> = previous === undefined ? {} : { prev: previous ?? '' };
      multi.xAdd(
        key,
        `${streamMs}-${seq}`,
        { id: e.id, type: e.type, envelope: text, ...prevField },
        { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: this.maxPerMap } },
      );
      copies.xAdd(
        this.keys.partition(partition),
        '*',
        { id: e.id, map_id: mapId, type: e.type, envelope: text, ...prevField },
        { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: this.maxPerMap * 10 } },
      );
      added++;
    }
    if (added) {
      multi.sPublish(this.keys.mapChannel(mapId), liveMessage(prev, `${lastMs}-${lastSeq}`, json, firstPrev));
      copies.sPublish(this.keys.partitionChannel(partition), '1');
      try {
        await copies.exec();
        await multi.exec();
      } catch (err) {
        this.lastByMap.delete(mapId);
        throw err;
      }
      this.lastByMap.set(mapId, { id: events.at(-1)!.id, streamId: `${lastMs}-${lastSeq}` });
    }
    return added;
  }

  forget(): void {
    this.lastByMap.clear();
  }
}

/** A map's hot history: its stream, read by id (ULID time → stream position). */
export class RedisEventHistory implements EventHistory {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StreamKeys,
  ) {}

  async lastId(mapId: string): Promise<string | null> {
    return (await lastEntry(this.redis, this.keys.map(mapId)))?.id ?? null;
  }

  async firstId(mapId: string): Promise<string | null> {
    const entries = ((await this.redis.xRange(this.keys.map(mapId), '-', '+', { COUNT: 1 })) ?? []) as unknown as StreamEntry[];
    return entries[0]?.message.id ?? null;
  }

  async range(mapId: string, afterId: string | null, count: number): Promise<EventEnvelope[]> {
    const start = afterId ? `${decodeTime(afterId)}-0` : '-';
    const out: EventEnvelope[] = [];
    let cursor = start;
    while (out.length < count) {
      // A few more than asked: entries of the first id's millisecond up to it are skipped.
      const entries = ((await this.redis.xRange(this.keys.map(mapId), cursor, '+', { COUNT: count - out.length + 16 })) ?? []) as unknown as StreamEntry[];
      if (entries.length === 0) break;
      for (const entry of entries) {
        const id = entry.message.id!;
        if (afterId === null || id > afterId) out.push(JSON.parse(entry.message.envelope!) as EventEnvelope);
        if (out.length >= count) break;
      }
      cursor = `(${entries.at(-1)!.id}`;
    }
    return out;
  }
}

/** Orders Redis stream ids (`ms-seq`). */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am !== bm ? am - bm : as - bs;
}
