import type { EventEnvelope } from '../envelope.js';
import type { Redis } from '../../redis/redis.js';
import type { Logger } from '../../common/log.js';
import type { EventTail, PrevId, TailListener } from './types.js';
import type { StreamKeys } from './keys.js';
import { compareStreamIds, entryPrev, parseLiveHead, type StreamEntry } from './redis.js';

/** Catch-up reads of a map's stream: entries a read. */
const CATCH_UP_PAGE = 500;
/** Messages of a map kept while its catch-up read runs; past this they are dropped and the read goes on. */
const MAX_HELD = 1_000;
/** A second catch-up this long after a reconnection: the channel may be subscribed again after the first. */
const SETTLE_MS = 1_000;

interface Watched {
  mapId: string;
  watchers: number;
  /** Stream id of the last entry handed to subscribers (or present when watching began). */
  position: string;
  /** Set while the position is read or a catch-up read runs: messages wait in `held`. */
  catching: boolean;
  held: string[];
  /** The channel's listener: unsubscribing names it (see `unwatch`). */
  listener: (message: string) => void;
  /** Another catch-up is due once the running one ends (a gap, a reconnection meanwhile). */
  again: boolean;
  ready: Promise<void>;
}

export interface ReceivedCounter {
  /** Events (and their bytes) this process received from Redis, by how: a live message or a catch-up read. */
  (how: 'live' | 'catch_up', events: number, bytes: number): void;
}

/**
 * The live read of a stream process over Redis: a sharded pub/sub subscription to the channel of each
 * map it serves (`<prefix>{m:<id>}:live`, on the map's shard), so it receives the events of those maps
 * and of no other. The channel may drop messages (a reconnection, a failover); each message names the
 * stream entry before its first event, so a gap shows at the next message, and the map's stream (the
 * carrier) is read from the last position after a gap, after every reconnection and when watching
 * begins. An entry trimmed before it was read makes a `resync` of its map.
 */
export class RedisMapTail implements EventTail {
  private readonly listeners = new Set<TailListener>();
  private readonly watched = new Map<string, Watched>();
  private readonly byChannel = new Map<string, Watched>();
  private running = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    /** A connection of its own: subscribed, it runs no other command. */
    private readonly subscriber: Redis,
    /** For the catch-up reads. */
    private readonly reader: Redis,
    private readonly keys: StreamKeys,
    private readonly log: Logger,
    private readonly received?: ReceivedCounter,
  ) {}

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const reconnected = () => {
      if (!this.running) return;
      for (const w of this.watched.values()) this.catchUp(w);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        for (const w of this.watched.values()) this.catchUp(w);
      }, SETTLE_MS);
      this.timers.add(timer);
    };
    // 'ready' on one connection; 'node-ready' on a cluster client, per node.
    const emitter = this.subscriber as unknown as NodeJS.EventEmitter;
    emitter.on('ready', reconnected);
    emitter.on('node-ready', reconnected);
  }

  subscribe(listener: TailListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  watch(mapId: string): Promise<void> {
    const known = this.watched.get(mapId);
    if (known) {
      known.watchers++;
      return known.ready;
    }
    const channel = this.keys.mapChannel(mapId);
    const w: Watched = {
      mapId,
      watchers: 1,
      position: '0-0',
      catching: true,
      held: [],
      listener: (message: string) => this.message(channel, message),
      again: false,
      ready: Promise.resolve(),
    };
    this.watched.set(mapId, w);
    this.byChannel.set(channel, w);
    w.ready = (async () => {
      // Subscribed first, then the position read: an event appended in between is both in a message
      // and at or before the position, and the message is passed over; none falls between the two.
      await this.subscriber.sSubscribe(channel, w.listener);
      const newest = ((await this.reader.xRevRange(this.keys.map(mapId), '+', '-', { COUNT: 1 })) ?? []) as unknown as StreamEntry[];
      w.position = newest[0]?.id ?? '0-0';
      this.release(w);
    })().catch((err: unknown) => {
      // Every watcher of this attempt gets the error and owes no unwatch; a later watch starts afresh.
      if (this.watched.get(mapId) === w) {
        this.watched.delete(mapId);
        this.byChannel.delete(channel);
        if (this.subscriber.isOpen) void this.subscriber.sUnsubscribe(channel, w.listener).catch(() => undefined);
      }
      throw err;
    });
    return w.ready;
  }

  unwatch(mapId: string): void {
    const w = this.watched.get(mapId);
    if (!w || --w.watchers > 0) return;
    this.watched.delete(mapId);
    const channel = this.keys.mapChannel(mapId);
    this.byChannel.delete(channel);
    // Named with its listener: the client marks the channel as unsubscribing, so a watch of the map
    // before Redis answers subscribes anew. Without it the client adds the new listener to the old
    // channel's and drops both when the answer comes: the map would be watched and receive nothing.
    if (this.subscriber.isOpen) void this.subscriber.sUnsubscribe(channel, w.listener).catch(() => undefined);
  }

  /** Ends the subscription: the connection is this tail's alone, so it is destroyed. */
  async stop(): Promise<void> {
    this.running = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.subscriber.destroy();
  }

  /** Maps watched now (for the gauge of what the process serves). */
  size(): number {
    return this.watched.size;
  }

  private message(channel: string, message: string): void {
    this.received?.('live', countLines(message) - 2, Buffer.byteLength(message));
    const w = this.byChannel.get(channel);
    if (!w) return;
    if (w.catching) {
      if (w.held.push(message) > MAX_HELD) {
        // The catch-up read under way or the next one reads these from the stream.
        w.held = [];
        w.again = true;
      }
      return;
    }
    this.apply(w, message);
  }

  /** A message in order is handed over; one after a gap starts a catch-up read; an old one is passed over. */
  private apply(w: Watched, message: string): void {
    const first = message.indexOf('\n');
    const second = message.indexOf('\n', first + 1);
    const { prev, prevEvent } = parseLiveHead(message.slice(0, first));
    const last = message.slice(first + 1, second);
    if (compareStreamIds(last, w.position) <= 0) return;
    if (prev !== w.position) {
      this.catchUp(w);
      return;
    }
    const events = message
      .slice(second + 1)
      .split('\n')
      .map((line) => JSON.parse(line) as EventEnvelope);
    w.position = last;
    // The events of a message follow each other in the map's log.
    const prevs = events.map((_, i) => (i === 0 || prevEvent === undefined ? prevEvent : events[i - 1]!.id));
    this.hand(events, prevs);
  }

  private hand(events: readonly EventEnvelope[], prevs: readonly PrevId[]): void {
    for (const l of this.listeners) {
      for (let i = 0; i < events.length; i++) l.event(events[i]!, prevs[i]);
      l.flush?.();
    }
  }

  /** Reads the map's stream after its position (messages wait meanwhile), then applies what waited. */
  private catchUp(w: Watched): void {
    if (w.catching) {
      w.again = true;
      return;
    }
    w.catching = true;
    void (async () => {
      for (let failures = 0; this.running && this.watched.get(w.mapId) === w;) {
        try {
          w.again = false;
          await this.readAfterPosition(w);
          if (!w.again) break;
        } catch (err) {
          if (failures++ === 0) this.log.warn({ err: { message: (err as Error).message }, mapId: w.mapId }, 'event catch-up read failed; retrying');
          await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** failures, 5_000)));
        }
      }
      this.release(w);
    })();
  }

  private async readAfterPosition(w: Watched): Promise<void> {
    const key = this.keys.map(w.mapId);
    if (w.position !== '0-0') {
      const first = ((await this.reader.xRange(key, '-', '+', { COUNT: 1 })) ?? []) as unknown as StreamEntry[];
      if (first[0] && compareStreamIds(first[0].id, w.position) > 0) {
        // Entries after the position were trimmed (or Redis lost them): the subscribers re-read the map.
        const newest = ((await this.reader.xRevRange(key, '+', '-', { COUNT: 1 })) ?? []) as unknown as StreamEntry[];
        w.position = newest[0]?.id ?? w.position;
        for (const l of this.listeners) l.resync(w.mapId);
        return;
      }
    }
    for (;;) {
      const entries = ((await this.reader.xRange(key, `(${w.position}`, '+', { COUNT: CATCH_UP_PAGE })) ?? []) as unknown as StreamEntry[];
      if (entries.length === 0) return;
      let bytes = 0;
      const events = entries.map((entry) => {
        bytes += entry.message.envelope!.length;
        return JSON.parse(entry.message.envelope!) as EventEnvelope;
      });
      this.received?.('catch_up', events.length, bytes);
      w.position = entries.at(-1)!.id;
      this.hand(
        events,
        entries.map((entry) => entryPrev(entry.message)),
      );
      if (entries.length < CATCH_UP_PAGE) return;
    }
  }

  private release(w: Watched): void {
    w.catching = false;
    const held = w.held;
    w.held = [];
    for (const message of held) {
      if (w.catching) w.held.push(message);
      else this.apply(w, message);
    }
  }
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
