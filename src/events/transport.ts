import { EventEmitter } from 'node:events';
import { decodeTime } from 'ulid';
import type { EventEnvelope } from './envelope.js';
import type { Redis } from '../compose.js';

/**
 * Where published events go: Redis Streams across processes, or an in-process log with the same
 * ordering semantics when no REDIS_URL is set.
 */
/** A stream entry as node-redis returns it with the default (RESP2-style) type mapping. */
interface StreamEntry {
  id: string;
  message: Record<string, string>;
}

export interface EventTransport {
  /** Appends a map's events, in order. Events at or below the map's last id are skipped (exactly once). */
  publish(mapId: string, events: EventEnvelope[]): Promise<number>;
  /** Id of the newest event in the map's hot history, or null. */
  lastId(mapId: string): Promise<string | null>;
  /** Hot history of a map after `afterId` (exclusive; null = from the start), oldest first. */
  range(mapId: string, afterId: string | null, count: number): Promise<EventEnvelope[]>;
  /** Every map's events in publish order (webhook workers read this). */
  rangeAll(count: number): Promise<EventEnvelope[]>;
  /** Called with each published event (in-process listeners). */
  readonly emitter: EventEmitter;
  /** Drops cached stream positions (a relay that (re)takes a partition calls it). */
  forget?(): void;
}

export class MemoryTransport implements EventTransport {
  readonly emitter = new EventEmitter();
  private readonly maps = new Map<string, EventEnvelope[]>();
  private readonly all: EventEnvelope[] = [];

  constructor(private readonly maxPerMap = 10_000) {
    this.emitter.setMaxListeners(0);
  }

  async publish(mapId: string, events: EventEnvelope[]): Promise<number> {
    let list = this.maps.get(mapId);
    if (!list) {
      list = [];
      this.maps.set(mapId, list);
    }
    let added = 0;
    for (const e of events) {
      const last = list.at(-1)?.id;
      if (last && e.id <= last) continue;
      list.push(e);
      this.all.push(e);
      added++;
      this.emitter.emit('event', e);
    }
    if (list.length > this.maxPerMap) list.splice(0, list.length - this.maxPerMap);
    if (this.all.length > this.maxPerMap * 10) this.all.splice(0, this.all.length - this.maxPerMap * 10);
    return added;
  }

  async lastId(mapId: string): Promise<string | null> {
    return this.maps.get(mapId)?.at(-1)?.id ?? null;
  }

  async range(mapId: string, afterId: string | null, count: number): Promise<EventEnvelope[]> {
    const list = this.maps.get(mapId) ?? [];
    return list.filter((e) => afterId === null || e.id > afterId).slice(0, count);
  }

  async rangeAll(count: number): Promise<EventEnvelope[]> {
    return this.all.slice(0, count);
  }
}

/**
 * Redis Streams: one stream per map (`<prefix>events:map:<id>`, bounded by MAXLEN ~) whose entry ids
 * are derived from the ULIDs (`<ulid ms>-<n>`), so a ULID maps onto a stream position; plus one
 * stream of all events (`<prefix>events:all`) for the webhook workers. A map's events and their copy
 * in the all-stream are added in one MULTI.
 */
export class RedisStreamTransport implements EventTransport {
  readonly emitter = new EventEmitter();
  /** Last entry per map as this publisher left it, saving an XREVRANGE per round. */
  private readonly lastByMap = new Map<string, { id: string; streamId: string }>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly maxPerMap = 10_000,
  ) {}

  mapKey(mapId: string): string {
    return `${this.prefix}events:map:${mapId}`;
  }

  allKey(): string {
    return `${this.prefix}events:all`;
  }

  async publish(mapId: string, events: EventEnvelope[]): Promise<number> {
    if (events.length === 0) return 0;
    const key = this.mapKey(mapId);
    const last = this.lastByMap.get(mapId) ?? (await this.lastEntry(key));
    let lastMs = last ? Number(last.streamId.split('-')[0]) : -1;
    let lastSeq = last ? Number(last.streamId.split('-')[1]) : -1;
    const multi = this.redis.multi();
    let added = 0;
    for (const e of events) {
      if (last && e.id <= last.id) continue;
      const ms = decodeTime(e.id);
      // Stream ids must grow; ULIDs of one map grow too, and their time part never goes back.
      const seq = ms === lastMs ? lastSeq + 1 : ms > lastMs ? 0 : lastSeq + 1;
      const streamMs = Math.max(ms, lastMs);
      lastMs = streamMs;
      lastSeq = seq;
      const json = JSON.stringify(e);
      multi.xAdd(key, `${streamMs}-${seq}`, { id: e.id, type: e.type, envelope: json }, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: this.maxPerMap } });
      multi.xAdd(this.allKey(), '*', { id: e.id, map_id: mapId, type: e.type, envelope: json }, { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: this.maxPerMap * 10 } });
      added++;
    }
    if (added) {
      try {
        await multi.exec();
      } catch (err) {
        this.lastByMap.delete(mapId);
        throw err;
      }
      const newest = events.at(-1)!;
      this.lastByMap.set(mapId, { id: newest.id, streamId: `${lastMs}-${lastSeq}` });
    }
    for (const e of events) if (!last || e.id > last.id) this.emitter.emit('event', e);
    return added;
  }

  forget(): void {
    this.lastByMap.clear();
  }

  async lastId(mapId: string): Promise<string | null> {
    return (await this.lastEntry(this.mapKey(mapId)))?.id ?? null;
  }

  async range(mapId: string, afterId: string | null, count: number): Promise<EventEnvelope[]> {
    const start = afterId ? `${decodeTime(afterId)}-0` : '-';
    const out: EventEnvelope[] = [];
    let cursor = start;
    while (out.length < count) {
      const entries = ((await this.redis.xRange(this.mapKey(mapId), cursor, '+', { COUNT: Math.max(count, 100) })) ?? []) as unknown as StreamEntry[];
      if (entries.length === 0) break;
      for (const entry of entries) {
        const id = entry.message.id!;
        if (afterId === null || id > afterId) out.push(JSON.parse(entry.message.envelope!) as EventEnvelope);
        if (out.length >= count) break;
      }
      const lastEntry = entries.at(-1)!;
      cursor = `(${lastEntry.id}`;
    }
    return out;
  }

  async rangeAll(count: number): Promise<EventEnvelope[]> {
    const entries = ((await this.redis.xRange(this.allKey(), '-', '+', { COUNT: count })) ?? []) as unknown as StreamEntry[];
    return entries.map((e) => JSON.parse(e.message.envelope!) as EventEnvelope);
  }

  private async lastEntry(key: string): Promise<{ id: string; streamId: string } | undefined> {
    const entries = ((await this.redis.xRevRange(key, '+', '-', { COUNT: 1 })) ?? []) as unknown as StreamEntry[];
    const entry = entries[0];
    return entry ? { id: entry.message.id!, streamId: entry.id } : undefined;
  }
}
