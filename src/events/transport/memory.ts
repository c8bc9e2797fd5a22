import type { EventEnvelope } from '../envelope.js';
import type { EventHistory, EventPublisher, EventTail, TailListener } from './types.js';

/**
 * The in-process transport (no REDIS_URL): one store per process holding each map's hot history,
 * with the publisher, history and tail of the Redis implementation over it. Only a single process
 * can use it, which is what the embedded default runs.
 */
export class MemoryEventStore {
  private readonly maps = new Map<string, EventEnvelope[]>();
  private readonly tails = new Set<(e: EventEnvelope) => void>();

  constructor(readonly maxPerMap = 10_000) {}

  append(mapId: string, events: readonly EventEnvelope[]): number {
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
      added++;
      for (const tail of this.tails) tail(e);
    }
    if (list.length > this.maxPerMap) list.splice(0, list.length - this.maxPerMap);
    return added;
  }

  events(mapId: string): readonly EventEnvelope[] {
    return this.maps.get(mapId) ?? [];
  }

  /** Live feed for tails: each appended event, synchronously, in append order. */
  feed(fn: (e: EventEnvelope) => void): () => void {
    this.tails.add(fn);
    return () => this.tails.delete(fn);
  }
}

export class MemoryEventPublisher implements EventPublisher {
  constructor(private readonly store: MemoryEventStore) {}

  async publish(mapId: string, events: readonly EventEnvelope[]): Promise<number> {
    return this.store.append(mapId, events);
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
 * The in-process tail: events reach subscribers as they are appended, each on its own microtask
 * turn so a subscriber never runs inside the publisher's call.
 */
export class MemoryEventTail implements EventTail {
  private readonly listeners = new Set<TailListener>();
  private unfeed: (() => void) | undefined;

  constructor(private readonly store: MemoryEventStore) {}

  async start(): Promise<void> {
    this.unfeed ??= this.store.feed((e) =>
      queueMicrotask(() => {
        for (const l of this.listeners) l.event(e);
      }),
    );
  }

  subscribe(listener: TailListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    this.unfeed?.();
    this.unfeed = undefined;
  }
}
