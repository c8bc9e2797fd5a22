import type { EventEnvelope } from '../envelope.js';
import type { EventHistory, EventPublisher, EventTail, PartitionFeed, PrevId, TailListener } from './types.js';

/**
 * The in-process transport (no REDIS_URL): one store per process holding each map's hot history,
 * with the publisher, history and tail of the Redis implementation over it. Only a single process
 * can use it, which is what the embedded default runs.
 */
export class MemoryEventStore {
  private readonly maps = new Map<string, EventEnvelope[]>();
  private readonly tails = new Set<(e: EventEnvelope, prev: PrevId) => void>();

  constructor(readonly maxPerMap = 10_000) {}

  append(mapId: string, events: readonly EventEnvelope[], prev?: PrevId): number {
    let list = this.maps.get(mapId);
    if (!list) {
      list = [];
      this.maps.set(mapId, list);
    }
    let added = 0;
    // The events follow each other in the map's log: each one's predecessor is the one before it.
    let before = prev;
    for (const e of events) {
      const last = list.at(-1)?.id;
      const previous = before;
      before = e.id;
      if (last && e.id <= last) continue;
      list.push(e);
      added++;
      for (const tail of this.tails) tail(e, previous);
    }
    if (list.length > this.maxPerMap) list.splice(0, list.length - this.maxPerMap);
    return added;
  }

  events(mapId: string): readonly EventEnvelope[] {
    return this.maps.get(mapId) ?? [];
  }

  /** Live feed for tails: each appended event, synchronously, in append order. */
  feed(fn: (e: EventEnvelope, prev: PrevId) => void): () => void {
    this.tails.add(fn);
    return () => this.tails.delete(fn);
  }
}

export class MemoryEventPublisher implements EventPublisher {
  constructor(private readonly store: MemoryEventStore) {}

  async publish(mapId: string, events: readonly EventEnvelope[], prev?: PrevId): Promise<number> {
    return this.store.append(mapId, events, prev);
  }

  forget(): void {
    // Nothing cached: the store is the position.
  }
}

export class MemoryEventHistory implements EventHistory {
  constructor(private readonly store: MemoryEventStore) {}

  async lastId(mapId: string): Promise<string | null> {
    return this.store.events(mapId).at(-1)?.id ?? null;
  }

  async firstId(mapId: string): Promise<string | null> {
    return this.store.events(mapId)[0]?.id ?? null;
  }

  async range(mapId: string, afterId: string | null, count: number): Promise<EventEnvelope[]> {
    return this.store
      .events(mapId)
      .filter((e) => afterId === null || e.id > afterId)
      .slice(0, count);
  }
}

/**
 * The in-process feed of every event: events reach subscribers as they are appended, on a microtask
 * turn of their own so a subscriber never runs inside the publisher's call; the events appended in one
 * turn (one publish call) are one run, followed by `flush`.
 */
export class MemoryEventFeed implements PartitionFeed {
  private readonly listeners = new Set<TailListener>();
  private unfeed: (() => void) | undefined;
  private run: [EventEnvelope, PrevId][] = [];

  constructor(private readonly store: MemoryEventStore) {}

  /** Which events this feed passes on. */
  protected wanted(_e: EventEnvelope): boolean {
    return true;
  }

  async start(): Promise<void> {
    this.unfeed ??= this.store.feed((e, prev) => {
      if (!this.wanted(e)) return;
      if (this.run.push([e, prev]) > 1) return;
      queueMicrotask(() => {
        const run = this.run;
        this.run = [];
        for (const l of this.listeners) {
          for (const [event, prev] of run) l.event(event, prev);
          l.flush?.();
        }
      });
    });
  }

  subscribe(listener: TailListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    this.unfeed?.();
    this.unfeed = undefined;
  }

  async setPartitions(): Promise<void> {
    // One process holds every map: there is nothing to share out.
  }
}

/** The in-process tail of a stream process: the feed, passing on only the events of watched maps. */
export class MemoryEventTail extends MemoryEventFeed implements EventTail {
  private readonly watched = new Map<string, number>();

  protected override wanted(e: EventEnvelope): boolean {
    return this.watched.has(e.map_id);
  }

  async watch(mapId: string): Promise<void> {
    this.watched.set(mapId, (this.watched.get(mapId) ?? 0) + 1);
  }

  unwatch(mapId: string): void {
    const n = (this.watched.get(mapId) ?? 0) - 1;
    if (n > 0) this.watched.set(mapId, n);
    else this.watched.delete(mapId);
  }
}
