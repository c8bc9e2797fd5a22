import type { Db } from '../../db/db.js';
import type { EventEnvelope } from '../envelope.js';
import type { EventType } from '../catalog.js';
import type { EventConsumer, PartitionFeed } from './types.js';
import { Alarm } from '../alarm.js';
import { partitionOf, partitionSql } from './keys.js';

/** The partitions a consumer reads, when it reads some only (the webhook workers share them out). */
export interface PartitionScope {
  /** Partitions of the transport. */
  readonly count: number;
  /** Partitions this process holds now. */
  held(): ReadonlySet<number>;
  /** Calls `fn` after each change of the held set; returns the unsubscribe. */
  onChange(fn: () => void): () => void;
}

/** Events of one map a catch-up read looks at (the rest of a busy map's backlog comes in later reads). */
const PER_MAP_READ = 50;

interface EventRow {
  event_id: string;
  map_id: string;
  type: EventType;
  payload: Record<string, unknown>;
  created_ms: string;
}

/**
 * A durable consumer: PostgreSQL holds its position (per map, the last event id committed), so it
 * never depends on what the transport still holds. The tail (Redis Streams or in-process) is the
 * fast path: while the consumer is caught up, events come straight from it; after a resync, a
 * restart or a gap it reads the event log instead, until it is caught up again.
 */
export class DurableEventConsumer implements EventConsumer {
  /** Highest id handed out per map (committed or not), so the fast path never repeats an event. */
  private readonly handedOut = new Map<string, string>();
  /** Id of the last event of each map put in the buffer since it was last emptied. */
  private lastBuffered = new Map<string, string>();
  private buffer: EventEnvelope[] = [];
  /** The last read of the event log found nothing more: buffered tail events are complete. */
  private caughtUp = false;
  private readonly alarm = new Alarm();
  /** Counts the falls behind: a log read that began before the last one cannot call the consumer caught up. */
  private behind = 0;
  private readonly unsubscribe: () => void;
  private readonly unscope: () => void;
  private started: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly name: string,
    feed: PartitionFeed,
    /** Reads only the maps of the partitions this scope holds (every map when absent). */
    private readonly scope?: PartitionScope,
  ) {
    // A partition taken over is read from the event log first, from the positions its last holder left;
    // the feed reads the held partitions only. The feed starts a partition added at its newest entry
    // when it has added it: an event published before that and after a log read began is in neither,
    // so the log is read again once the feed has its positions.
    this.unscope =
      scope?.onChange(() => {
        this.fallBehind();
        void feed
          .setPartitions([...scope.held()])
          .catch(() => undefined)
          .then(() => this.fallBehind());
      }) ?? (() => undefined);
    this.unsubscribe = feed.subscribe({
      event: (e, prev) => {
        if (!this.mine(e.map_id)) return;
        // An event whose predecessor neither the buffer nor the hand-out had: events missing on the way
        // (published elsewhere, or lost) are read from the log (only while caught up: a log read is
        // under way otherwise, and covers them).
        if (this.caughtUp && typeof prev === 'string') {
          const buffered = this.lastBuffered.get(e.map_id) ?? '';
          const handed = this.handedOut.get(e.map_id) ?? '';
          const known = buffered > handed ? buffered : handed;
          if (known !== '' && prev > known) {
            this.fallBehind();
            return;
          }
        }
        this.lastBuffered.set(e.map_id, e.id);
        this.buffer.push(e);
        if (this.buffer.length > 10_000) {
          // Too far behind for memory: fall back to the log.
          this.fallBehind();
          return;
        }
        this.alarm.ring();
      },
      resync: () => this.fallBehind(),
    });
  }

  private mine(mapId: string): boolean {
    return !this.scope || this.scope.held().has(partitionOf(mapId, this.scope.count));
  }

  private fallBehind(): void {
    this.behind++;
    this.caughtUp = false;
    this.buffer = [];
    this.lastBuffered = new Map();
    this.alarm.ring();
  }

  /**
   * Registers the consumer (a first registration is where a new consumer's reading starts): every event
   * committed after this resolves is handed out, whether or not this instance ever reads. The event layer
   * registers each consumer it creates, so a role that has started holds a registered one.
   */
  register(): Promise<void> {
    this.started ??= this.db.run('insert into event_consumers (name) values (?) on conflict (name) do nothing', [this.name]).then(() => undefined);
    return this.started;
  }

  async next(max: number, waitMs: number): Promise<EventEnvelope[]> {
    await this.register();
    const deadline = Date.now() + waitMs;
    for (;;) {
      // Closed: a read waiting for events ends at once (a stopping worker does not wait out `waitMs`).
      if (this.closed) return [];
      const events = this.caughtUp ? this.fromBuffer(max) : await this.fromLog(max);
      if (events.length) {
        for (const e of events) this.handedOut.set(e.map_id, e.id);
        return events;
      }
      const left = deadline - Date.now();
      if (left <= 0) return [];
      await this.alarm.sleep(left);
    }
  }

  async commit(events: readonly EventEnvelope[]): Promise<void> {
    const last = new Map<string, string>();
    for (const e of events) if ((last.get(e.map_id) ?? '') < e.id) last.set(e.map_id, e.id);
    if (last.size === 0) return;
    const maps = [...last.keys()];
    await this.db.run(
      `insert into event_consumer_positions (consumer, map_id, last_event_id)
       select ?, v.map_id, v.id from jsonb_to_recordset(?::jsonb) as v(map_id uuid, id text)
       on conflict (consumer, map_id) do update set last_event_id = greatest(event_consumer_positions.last_event_id, excluded.last_event_id), updated_at = clock_timestamp()`,
      // JSON, not array parameters: the SQL layer expands arrays into lists.
      [this.name, JSON.stringify(maps.map((m) => ({ map_id: m, id: last.get(m) })))],
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.unscope();
    this.alarm.ring();
  }

  private fromBuffer(max: number): EventEnvelope[] {
    const out: EventEnvelope[] = [];
    while (this.buffer.length && out.length < max) {
      const e = this.buffer.shift()!;
      if (e.id > (this.handedOut.get(e.map_id) ?? '') && this.mine(e.map_id)) out.push(e);
    }
    return out;
  }

  /**
   * Events after this consumer's position (committed, or handed out since), in id order, which is commit
   * order per map. A map with no position yet starts at the consumer's registration. Events with an id
   * count, published or not: the relay marks an event published only after the transport has it, so a
   * tail may deliver it before the log calls it published; reading assigned events means everything the
   * tail has not seen since it started is in this read.
   *
   * Each map is read from its position on, through the (map_id, event_id) index, at most PER_MAP_READ
   * events: the read costs one index probe per map plus the rows it looks at, however much history the
   * log retains (a scan in seq order from the oldest event took 1.5 s per read with a million events
   * retained). What is handed out is, for every map, its next events in id order without a gap (the
   * first `max` by id of each map's next ones), so a position moved past them skips nothing.
   */
  private async fromLog(max: number): Promise<EventEnvelope[]> {
    const behind = this.behind;
    const handed = [...this.handedOut.entries()];
    const perMap = Math.min(max, PER_MAP_READ);
    const held = this.scope ? [...this.scope.held()] : undefined;
    if (held && held.length === 0) return [];
    // Only the maps of the held partitions (the partition streams hold the same maps).
    const scoped = held ? `where ${partitionSql('m.id', this.scope!.count)} in (select value::bigint from jsonb_array_elements_text(?::jsonb))` : '';
    // The planner's estimate (every map up to `perMap` rows) is far above what the read costs: with JIT
    // it would compile the read first (180 ms with 2,000 maps). The connections run with jit=off (pg-options.ts).
    const rows = await this.db.all<EventRow>(
      `select e.event_id, e.map_id, e.type, e.payload, (extract(epoch from e.created_at) * 1000)::bigint as created_ms
       from maps m
       join event_consumers c on c.name = ?
       left join event_consumer_positions p on p.consumer = c.name and p.map_id = m.id
       left join jsonb_to_recordset(?::jsonb) as h(map_id uuid, id text) on h.map_id = m.id
       cross join lateral (
         select e.event_id, e.map_id, e.type, e.payload, e.created_at from map_events e
         where e.map_id = m.id and e.event_id is not null
           and e.event_id > coalesce(greatest(p.last_event_id, h.id), '')
           and (p.last_event_id is not null or h.id is not null or e.created_at >= c.started_at)
         order by e.event_id limit ?) e
       ${scoped}
       order by e.event_id limit ?`,
      [this.name, JSON.stringify(handed.map(([map_id, id]) => ({ map_id, id }))), perMap, ...(held ? [JSON.stringify(held)] : []), max],
    );
    // Caught up when the log had nothing more: fewer than `max` in all, and no map cut at `perMap`.
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.map_id, (counts.get(r.map_id) ?? 0) + 1);
    if (rows.length < max && [...counts.values()].every((n) => n < perMap) && behind === this.behind) this.caughtUp = true;
    return rows.map((r) => ({ id: r.event_id, type: r.type, map_id: r.map_id, ts: new Date(Number(r.created_ms)).toISOString(), payload: r.payload }));
  }
}
