import { decodeTime } from 'ulid';
import type { EventEnvelope } from '../envelope.js';
import type { Redis } from '../../core/redis.js';
import type { Logger } from '../../common/log.js';
import type { EventHistory, EventPublisher, EventTail, TailListener } from './types.js';

/** A stream entry as node-redis returns it with the default (RESP2-style) type mapping. */
interface StreamEntry {
  id: string;
  message: Record<string, string>;
}

/**
 * Redis Streams keys: one stream per map (`<prefix>events:map:<id>`, bounded by MAXLEN ~) whose entry
 * ids are derived from the ULIDs (`<ulid ms>-<n>`), so a ULID maps onto a stream position; plus one
 * stream of all events (`<prefix>events:all`) that tails and consumers read.
 */
export class StreamKeys {
  constructor(readonly prefix: string) {}
  map(mapId: string): string {
    return `${this.prefix}events:map:${mapId}`;
  }
  all(): string {
    return `${this.prefix}events:all`;
  }
}

async function lastEntry(redis: Redis, key: string): Promise<{ id: string; streamId: string } | undefined> {
  const entries = ((await redis.xRevRange(key, '+', '-', { COUNT: 1 })) ?? []) as unknown as StreamEntry[];
  const entry = entries[0];
  return entry ? { id: entry.message.id!, streamId: entry.id } : undefined;
}

/** Publishes a map's events and their copy in the all-stream in one MULTI. */
export class RedisEventPublisher implements EventPublisher {
  /** Last entry per map as this publisher left it, saving an XREVRANGE per round. */
  private readonly lastByMap = new Map<string, { id: string; streamId: string }>();
  private readonly keys: StreamKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly maxPerMap = 10_000,
  ) {
    this.keys = new StreamKeys(prefix);
  }

  async publish(mapId: string, events: readonly EventEnvelope[]): Promise<number> {
    if (events.length === 0) return 0;
    const key = this.keys.map(mapId);
    const last = this.lastByMap.get(mapId) ?? (await lastEntry(this.redis, key));
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
      multi.xAdd(
        key,
        `${streamMs}-${seq}`,
        { id: e.id, type: e.type, envelope: json },
        { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: this.maxPerMap } },
      );
      multi.xAdd(
        this.keys.all(),
        '*',
        { id: e.id, map_id: mapId, type: e.type, envelope: json },
        { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: this.maxPerMap * 10 } },
      );
      added++;
    }
    if (added) {
      try {
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
  private readonly keys: StreamKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new StreamKeys(prefix);
  }

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
      const entries = ((await this.redis.xRange(this.keys.map(mapId), cursor, '+', { COUNT: Math.max(count, 100) })) ?? []) as unknown as StreamEntry[];
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

/**
 * The live read of one process: a blocking XREAD of the all-stream on a connection of its own,
 * from the id of the last entry read (starting at the newest entry present at start), fanned out to
 * local subscribers. When the read fails (Redis restarted) or the stream was trimmed past its
 * position, subscribers are told to resync from history.
 */
export class RedisEventTail implements EventTail {
  private readonly keys: StreamKeys;
  private readonly listeners = new Set<TailListener>();
  private position = '0-0';
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(
    /** A dedicated connection: the blocking read holds it. */
    private readonly redis: Redis,
    prefix: string,
    private readonly log: Logger,
    private readonly opts: { blockMs?: number; count?: number } = {},
  ) {
    this.keys = new StreamKeys(prefix);
  }

  async start(): Promise<void> {
    if (this.running) return;
    const newest = ((await this.redis.xRevRange(this.keys.all(), '+', '-', { COUNT: 1 })) ?? []) as unknown as StreamEntry[];
    this.position = newest[0]?.id ?? '0-0';
    this.running = true;
    this.loop = this.run();
  }

  subscribe(listener: TailListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Ends the live read at once: the connection is this tail's alone, so it is destroyed, which fails the
   * blocking read in flight instead of waiting out `blockMs` (its owner's later destroy does nothing).
   */
  async stop(): Promise<void> {
    this.running = false;
    this.redis.destroy();
    await this.loop;
  }

  private async run(): Promise<void> {
    const count = this.opts.count ?? 500;
    let failed = false;
    let behind = false;
    while (this.running) {
      try {
        if (failed || behind) {
          if (await this.trimmedPastPosition()) this.resync();
          if (failed) this.resync();
          failed = false;
        }
        const reply = (await this.redis.xRead({ key: this.keys.all(), id: this.position }, { BLOCK: this.opts.blockMs ?? 1000, COUNT: count })) as unknown as
          { name: string; messages: StreamEntry[] }[] | null;
        const entries = reply?.[0]?.messages ?? [];
        behind = entries.length === count;
        for (const entry of entries) {
          this.position = entry.id;
          const envelope = JSON.parse(entry.message.envelope!) as EventEnvelope;
          for (const l of this.listeners) l.event(envelope);
        }
        if (entries.length) for (const l of this.listeners) l.flush?.();
      } catch (err) {
        if (!this.running) break;
        if (!failed) this.log.warn({ err: { message: (err as Error).message } }, 'event tail read failed; retrying');
        failed = true;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** The stream's oldest entry is newer than the position: entries in between were trimmed or lost. */
  private async trimmedPastPosition(): Promise<boolean> {
    const first = ((await this.redis.xRange(this.keys.all(), '-', '+', { COUNT: 1 })) ?? []) as unknown as StreamEntry[];
    const firstId = first[0]?.id;
    return firstId !== undefined && this.position !== '0-0' && compareStreamIds(firstId, this.position) > 0;
  }

  private resync(): void {
    for (const l of this.listeners) l.resync();
  }
}

/** Orders Redis stream ids (`ms-seq`). */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am !== bm ? am - bm : as - bs;
}
