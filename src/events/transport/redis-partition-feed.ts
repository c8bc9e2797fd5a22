import type { EventEnvelope } from '../envelope.js';
import type { Redis } from '../../redis/redis.js';
import type { Logger } from '../../common/log.js';
import type { PartitionFeed, TailListener } from './types.js';
import type { StreamKeys } from './keys.js';
import { compareStreamIds, entryPrev, type StreamEntry } from './redis.js';

interface Partition {
  n: number;
  position: string;
  reading: boolean;
  again: boolean;
  /** The last read failed: the next one first checks whether entries were lost meanwhile. */
  failed: boolean;
}

/**
 * Every event of some partitions (`<prefix>{p:<n>}:events`), for consumers that handle every map's
 * events (the webhook planner). Each partition's readers are woken by a sharded pub/sub message on its
 * channel and read the partition's stream from the last position (a wake-up lost costs at most
 * `pollMs`: each partition is read that often anyway). It starts at the newest entry of each partition
 * present when it starts (a partition added later: when it is added); a read failure or a lost subscription makes a `resync` (and a position the
 * stream was trimmed past moves to its newest entry).
 */
export class RedisPartitionFeed implements PartitionFeed {
  private readonly listeners = new Set<TailListener>();
  private parts: Partition[];
  private running = false;
  private poll: NodeJS.Timeout | undefined;

  constructor(
    /** A connection of its own: subscribed, it runs no other command. */
    private readonly subscriber: Redis,
    private readonly reader: Redis,
    private readonly keys: StreamKeys,
    partitions: readonly number[],
    private readonly log: Logger,
    private readonly opts: { pollMs?: number; count?: number } = {},
  ) {
    this.parts = partitions.map((n) => this.part(n));
  }

  private part(n: number): Partition {
    return { n, position: '0-0', reading: false, again: false, failed: false };
  }

  private async begin(p: Partition): Promise<void> {
    await this.subscriber.sSubscribe(this.keys.partitionChannel(p.n), () => this.read(p));
    const newest = ((await this.reader.xRevRange(this.keys.partition(p.n), '+', '-', { COUNT: 1 })) ?? []) as unknown as StreamEntry[];
    p.position = newest[0]?.id ?? '0-0';
  }

  /** The change of partitions under way (changes run one after another). */
  private changing: Promise<void> = Promise.resolve();

  setPartitions(partitions: readonly number[]): Promise<void> {
    const change = this.changing.then(() => this.change(partitions));
    this.changing = change.catch(() => undefined);
    return change;
  }

  private async change(partitions: readonly number[]): Promise<void> {
    const wanted = new Set(partitions);
    const kept = this.parts.filter((p) => wanted.has(p.n));
    for (const p of this.parts) {
      if (!wanted.has(p.n)) await this.subscriber.sUnsubscribe(this.keys.partitionChannel(p.n)).catch(() => undefined);
    }
    const added = [...wanted].filter((n) => !kept.some((p) => p.n === n)).map((n) => this.part(n));
    for (const p of added) await this.begin(p);
    this.parts = [...kept, ...added];
  }

  async start(): Promise<void> {
    if (this.running) return;
    for (const p of this.parts) await this.begin(p);
    this.running = true;
    // Subscribed again after a lost connection (Redis may have restarted): each partition is checked.
    const reconnected = () => {
      for (const p of this.parts) {
        p.failed = true;
        this.read(p);
      }
    };
    const emitter = this.subscriber as unknown as NodeJS.EventEmitter;
    emitter.on('ready', reconnected);
    emitter.on('node-ready', reconnected);
    this.poll = setInterval(() => {
      for (const p of this.parts) this.read(p);
    }, this.opts.pollMs ?? 1_000);
  }

  subscribe(listener: TailListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.poll);
    this.subscriber.destroy();
    // Reads under way end with their command (bounded: a command to a node that is gone may hang).
    const deadline = Date.now() + 2_000;
    while (this.parts.some((p) => p.reading) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }

  private read(p: Partition): void {
    if (!this.running) return;
    if (p.reading) {
      p.again = true;
      return;
    }
    p.reading = true;
    void (async () => {
      const count = this.opts.count ?? 500;
      do {
        p.again = false;
        try {
          if (p.failed) await this.checkLost(p);
          const entries = ((await this.reader.xRange(this.keys.partition(p.n), `(${p.position}`, '+', { COUNT: count })) ?? []) as unknown as StreamEntry[];
          for (const entry of entries) {
            p.position = entry.id;
            const envelope = JSON.parse(entry.message.envelope!) as EventEnvelope;
            const prev = entryPrev(entry.message);
            for (const l of this.listeners) l.event(envelope, prev);
          }
          if (entries.length) for (const l of this.listeners) l.flush?.();
          if (entries.length === count) p.again = true;
        } catch (err) {
          if (!p.failed) this.log.warn({ err: { message: (err as Error).message }, partition: p.n }, 'event partition read failed; retrying');
          p.failed = true;
        }
      } while (p.again && this.running);
      p.reading = false;
    })();
  }

  /**
   * After a failed read Redis may have restarted or trimmed past the position: subscribers re-read from
   * their own durable positions, and this feed goes on from the newest entry when it fell behind the
   * stream's oldest.
   */
  private async checkLost(p: Partition): Promise<void> {
    const key = this.keys.partition(p.n);
    const first = ((await this.reader.xRange(key, '-', '+', { COUNT: 1 })) ?? []) as unknown as StreamEntry[];
    const firstId = first[0]?.id;
    if (firstId !== undefined && compareStreamIds(firstId, p.position) > 0) {
      const newest = ((await this.reader.xRevRange(key, '+', '-', { COUNT: 1 })) ?? []) as unknown as StreamEntry[];
      p.position = newest[0]?.id ?? p.position;
    }
    p.failed = false;
    for (const l of this.listeners) l.resync();
  }
}
