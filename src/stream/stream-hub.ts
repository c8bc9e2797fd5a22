/**
 * Fan-out of one process's live read (the event tail) to its stream connections. Each event's frame
 * is built and encoded once (per wire profile) and written to every connection of its map that wants
 * it. The frames of one tail read (a run of events the tail hands over together, then `flush`) go to
 * each connection in one write, so a connection costs one write per read, not one per event: a
 * process that falls behind reads bigger runs and catches up with fewer writes.
 *
 * A connection's map is watched on the tail while the connection is here: the process receives the
 * events of the maps it has connections for, and of no other.
 *
 * The seam with backfill: a connection joins while still backfilling, once its map is watched; live
 * events of its map are queued for it meanwhile, and when its backfill is written the queue is flushed, skipping ids it has
 * already sent. Nothing is lost between the two and nothing is sent twice.
 *
 * No silent gap: a live event names the map's event before it (PrevId). When that is not the last one
 * the connection has, events are missing on the way (published elsewhere, or lost): the connection
 * goes back to backfilling, from the PostgreSQL event log, before the event is written (a reset when
 * the log cannot cover it). One comparison per event and connection, as for the duplicate check.
 */
import type { EventEnvelope } from '../events/envelope.js';
import type { EventTail, PrevId } from '../events/transport/types.js';
import { matchesFilter, type EventFilter } from '../events/event-filter.js';
import { matchesSystems, type SystemFilter } from '../events/system-filter.js';
import { eventFrame, SharedFrame } from './sse-frames.js';

/** One client connection as the hub sees it. */
export interface StreamSink {
  readonly mapId: string;
  readonly filter: EventFilter;
  /** Only events naming one of these systems (`systems=`); null for every event. */
  readonly systems: SystemFilter;
  /** Clients of the reference server: `event:` line and `timestamp` (see sse-frames.ts). */
  readonly compat: boolean;
  /** Writes one whole frame (control frames, backfill). */
  write(frame: string): void;
  /** Writes live event frames, shared with other connections, in order and in one write. */
  send(frames: readonly SharedFrame[]): void;
  /** Bytes written but not yet sent to the client. */
  bufferedBytes(): number;
  /** Ends the connection (the client resumes with its last id). */
  close(reason: 'slow_consumer' | 'resync_failed' | 'shutdown' | 'revoked'): void;
}

interface Member {
  sink: StreamSink;
  /** Id of the last event sent (or known to the client), for de-duplication at the seam. */
  lastId: string | null;
  /** Live events (with the id before each) that arrived during backfill; null once live. */
  queue: Queued[] | null;
  /** Frames of the current tail read not written yet (written at its flush). */
  pending: SharedFrame[];
  /** The tail resynced while this connection was backfilling: it backfills again before going live. */
  resyncDue: boolean;
  /** Backfilling from the event log after a hole: what it could not cover (a reset) is not asked for again. */
  filling: boolean;
  /** The map's watch on the tail: settled once its live events reach this hub; the watch is this member's to end. */
  watched: Promise<boolean>;
}

interface Queued {
  e: EventEnvelope;
  prev: PrevId;
}

/** Whether events lie between the connection's last id and a live event's predecessor (it missed them). */
function missed(lastId: string | null, prev: PrevId): boolean {
  return typeof prev === 'string' && (lastId === null || prev > lastId);
}

export interface HubOptions {
  /** A connection whose unsent bytes pass this is closed (decisions §6: 1 MiB). */
  maxBufferedBytes: number;
  /**
   * A connection still backfilling for which more live events than this wait is closed as a slow
   * consumer (the backfill maximum: it would be that far behind), so a replay that its client takes
   * slowly does not keep every live event of its map meanwhile. Unbounded when absent.
   */
  maxQueued?: number;
  /**
   * The tail may have missed events: the owner backfills the connection again from its last id, from the
   * event log (`fromLog`: a live event came after a hole, which the hot history may share) or as a resume does.
   */
  onResync: (sink: StreamSink, lastId: string | null, fromLog: boolean) => void;
  /** A live event came after a hole in the connection's events (counted once per event and connection). */
  onGap?: () => void;
  /** A live event and how many connections it was written to (for the delivery counter and latency). */
  onDelivered?: (e: EventEnvelope, connections: number) => void;
  onSlowConsumer?: () => void;
}

export class StreamHub {
  private readonly byMap = new Map<string, Set<Member>>();
  private readonly members = new Map<StreamSink, Member>();
  /** Members with pending frames, in the order they got their first one. */
  private dirty: Member[] = [];
  /**
   * The newest event id of each watched map as far as this hub knows (null: the map has none), for the
   * `connected` frames of further connections without a read: set from a read made while the map was
   * watched, or by a live event of the map (a map's live events come in order), dropped with the map's last connection and at a
   * resync (the tail may have missed events of the map).
   */
  private readonly newest = new Map<string, string | null>();
  /** Counts resyncs: a read that began before one is not kept. */
  private resyncs = 0;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly tail: EventTail,
    private readonly opts: HubOptions,
  ) {}

  start(): void {
    this.unsubscribe ??= this.tail.subscribe({
      event: (e, prev) => this.deliver(e, prev),
      flush: () => this.flush(),
      resync: (mapId) => this.resyncAll(mapId),
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Connections in this process. */
  size(): number {
    return this.members.size;
  }

  /** Maps with connections in this process (the maps its tail watches). */
  maps(): number {
    return this.byMap.size;
  }

  /** Every connection (for shutdown and revocation). */
  sinks(): StreamSink[] {
    return [...this.members.keys()];
  }

  /**
   * Adds a connection that is about to backfill from `lastId`; live events are queued for it. Its
   * backfill starts once `watching` resolves: every later event of its map reaches the hub.
   */
  join(sink: StreamSink, lastId: string | null): void {
    const watched = this.tail.watch(sink.mapId).then(
      () => true,
      () => false,
    );
    const member: Member = { sink, lastId, queue: [], pending: [], resyncDue: false, filling: false, watched };
    this.members.set(sink, member);
    let set = this.byMap.get(sink.mapId);
    if (!set) {
      set = new Set();
      this.byMap.set(sink.mapId, set);
    }
    set.add(member);
  }

  /**
   * The newest event id of a watched map (null: none), from what this hub knows, or read once with
   * `read` (the hot history, else the event log) and known from then on.
   */
  async newestOf(mapId: string, read: () => Promise<string | null>): Promise<string | null> {
    const known = this.newest.get(mapId);
    if (known !== undefined) return known;
    const epoch = this.resyncs;
    const id = await read();
    // Kept while the map is still watched and no resync came meanwhile; a live event since moved it on.
    if (this.byMap.has(mapId) && this.resyncs === epoch) {
      const now = this.newest.get(mapId);
      if (now === undefined || (id !== null && (now === null || id > now))) this.newest.set(mapId, id);
      return this.newest.get(mapId)!;
    }
    return id;
  }

  /** Resolves once the connection's map is watched; rejects when the tail could not watch it. */
  async watching(sink: StreamSink): Promise<void> {
    const m = this.members.get(sink);
    if (m && !(await m.watched)) throw new Error(`the event tail could not watch map ${sink.mapId}`);
  }

  /** Records a backfilled event as sent (the owner wrote its frame). */
  sent(sink: StreamSink, id: string): void {
    const m = this.members.get(sink);
    if (m && (m.lastId === null || id > m.lastId)) m.lastId = id;
  }

  /** Sets the connection's position, back or forth (after a reset for an id the map never had). */
  reposition(sink: StreamSink, id: string | null): void {
    const m = this.members.get(sink);
    if (m) m.lastId = id;
  }

  /** Backfill is written: flush what arrived meanwhile and deliver live from now on. */
  goLive(sink: StreamSink): void {
    const m = this.members.get(sink);
    if (!m || m.queue === null) return;
    if (m.resyncDue) {
      // Its backfill may have read the history before events the tail then missed: once more.
      m.resyncDue = false;
      this.opts.onResync(m.sink, m.lastId, false);
      return;
    }
    // A live event that waited may name a predecessor the backfill did not reach: the rest from the event
    // log first (once: after that, what the log could not cover was a reset).
    const queued = m.queue;
    const filled = m.filling;
    m.filling = false;
    m.queue = null;
    const frames: SharedFrame[] = [];
    for (let i = 0; i < queued.length; i++) {
      const { e, prev } = queued[i]!;
      if (m.lastId !== null && e.id <= m.lastId) continue;
      if (!filled && missed(m.lastId, prev)) {
        if (frames.length) this.write(m, frames);
        if (this.members.get(m.sink) !== m) return;
        m.queue = queued.slice(i);
        this.fill(m);
        return;
      }
      if (!this.accept(m, e)) continue;
      frames.push(new SharedFrame(eventFrame(e, sink.compat)));
      this.opts.onDelivered?.(e, 1);
    }
    if (frames.length) this.write(m, frames);
  }

  /** Back to backfilling (after a resync): live events are queued again. */
  pause(sink: StreamSink): void {
    const m = this.members.get(sink);
    if (m && m.queue === null) {
      this.flushMember(m);
      m.queue = [];
    }
  }

  lastId(sink: StreamSink): string | null {
    return this.members.get(sink)?.lastId ?? null;
  }

  leave(sink: StreamSink): void {
    const m = this.members.get(sink);
    if (!m) return;
    this.members.delete(sink);
    void m.watched.then((ok) => ok && this.tail.unwatch(sink.mapId));
    const set = this.byMap.get(sink.mapId);
    set?.delete(m);
    if (set && set.size === 0) {
      this.byMap.delete(sink.mapId);
      this.newest.delete(sink.mapId);
    }
  }

  /**
   * A control frame (not an event: no id) to every connection of the map, whatever its filter: the
   * webhook notices (webhook-notice-feed.ts). Returns how many connections it was written to.
   */
  notify(mapId: string, frame: string): number {
    const set = this.byMap.get(mapId);
    if (!set) return 0;
    for (const m of set) m.sink.write(frame);
    return set.size;
  }

  private deliver(e: EventEnvelope, prev?: PrevId): void {
    const set = this.byMap.get(e.map_id);
    if (!set) return;
    // A map's live events come in order: the last one is its newest (a read racing it keeps the later).
    const newest = this.newest.get(e.map_id);
    if (newest == null || e.id > newest) this.newest.set(e.map_id, e.id);
    // Built at most once per profile, whatever the number of connections.
    let plain: SharedFrame | undefined;
    let compat: SharedFrame | undefined;
    let written = 0;
    for (const m of set) {
      if (m.queue) {
        if (m.queue.push({ e, prev }) > (this.opts.maxQueued ?? Infinity)) this.dropSlow(m);
        continue;
      }
      if (missed(m.lastId, prev) && (m.lastId === null || e.id > m.lastId)) {
        // Events before this one never came: it waits while the connection backfills them from the log.
        this.flushMember(m);
        m.queue = [{ e, prev }];
        this.fill(m);
        continue;
      }
      if (!this.accept(m, e)) continue;
      const frame = m.sink.compat ? (compat ??= new SharedFrame(eventFrame(e, true))) : (plain ??= new SharedFrame(eventFrame(e)));
      if (m.pending.push(frame) === 1) this.dirty.push(m);
      written++;
    }
    // Counted once per event, not per connection: at tens of thousands of writes a second it shows.
    if (written) this.opts.onDelivered?.(e, written);
  }

  /** The end of a tail read: each connection gets what it was given in one write. */
  flush(): void {
    const dirty = this.dirty;
    if (dirty.length === 0) return;
    this.dirty = [];
    for (const m of dirty) this.flushMember(m);
  }

  private flushMember(m: Member): void {
    if (m.pending.length === 0) return;
    const frames = m.pending;
    m.pending = [];
    // A connection that left since (closed, or slow) gets nothing more.
    if (this.members.get(m.sink) === m) this.write(m, frames);
  }

  /** Whether the connection is to get the event: not sent before, and wanted by its filter. Moves its last id. */
  private accept(m: Member, e: EventEnvelope): boolean {
    if (m.lastId !== null && e.id <= m.lastId) return false;
    m.lastId = e.id;
    return matchesFilter(m.sink.filter, e.type) && matchesSystems(m.sink.systems, e);
  }

  private write(m: Member, frames: readonly SharedFrame[]): void {
    m.sink.send(frames);
    if (m.sink.bufferedBytes() > this.opts.maxBufferedBytes) this.dropSlow(m);
  }

  private dropSlow(m: Member): void {
    this.leave(m.sink);
    m.queue = null;
    this.opts.onSlowConsumer?.();
    m.sink.close('slow_consumer');
  }

  /** Backfills the connection from the event log, its queued live events waiting. */
  private fill(m: Member): void {
    m.filling = true;
    this.opts.onGap?.();
    this.opts.onResync(m.sink, m.lastId, true);
  }

  /** The tail may have missed events of `mapId` (of every map when absent). */
  private resyncAll(mapId?: string): void {
    this.flush();
    this.resyncs++;
    if (mapId === undefined) this.newest.clear();
    else this.newest.delete(mapId);
    const members = mapId === undefined ? this.members.values() : (this.byMap.get(mapId) ?? new Set<Member>()).values();
    for (const m of members) {
      if (m.queue !== null) {
        m.resyncDue = true;
        continue;
      }
      m.queue = [];
      this.opts.onResync(m.sink, m.lastId, false);
    }
  }
}
