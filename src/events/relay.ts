import pg from 'pg';
import { nextEventId } from './envelope.js';
import { NOTIFY_CHANNEL } from './outbox.js';
import { Alarm } from './alarm.js';
import { DeadlineClient, pgConnectionOptions, sessionTimeouts } from '../db/pg-options.js';
import type { AssignedRow, PendingRow, RelayOptions } from './relay-options.js';
import { PublicationCursors } from './relay-cursors.js';
import { isSessionError, poolOptions, pruneEvents, searchPath } from './relay-sql.js';

export { pruneEvents } from './relay-sql.js';
export type { RelayOptions } from './relay-options.js';
import { prepared } from '../db/prepared.js';

/**
 * Moves committed outbox events to the transport in commit order. Each partition of maps has one
 * active relay across all processes (a PostgreSQL session advisory lock); LISTEN/NOTIFY wakes it.
 *
 * Two steps, each safe to interrupt: (1) in one transaction, give unassigned events their ULIDs
 * (strictly increasing per map), the one update of each event row; (2) publish them and move each
 * map's publication cursor (`map_event_cursors`). After a crash or a failed pass, the events between
 * a cursor and the map's last id are published first; the transport skips any it already holds.
 */
export class EventRelay {
  private pool: pg.Pool;
  /** Where each map's publication cursor is moved, on a connection of its own (relay-cursors.ts). */
  private readonly cursors: PublicationCursors;
  private session: pg.Client | undefined;
  /** The session's backend pid: the fence of each id assignment (see assign). */
  private sessionPid: number | undefined;
  private readonly held = new Set<number>();
  private readonly lastIds = new Map<string, string>();
  /** Partitions whose next pass starts by publishing what lies behind the cursors (taken, or after a failure). */
  private readonly recover = new Set<number>();
  private running = false;
  private readonly alarm = new Alarm();
  /** A NOTIFY (or poke) arrived since the current pass began: go round again instead of sleeping. */
  private notified = false;
  private loop: Promise<void> | undefined;
  private lastPrune = 0;
  private failures = 0;
  /** See stopping(). */
  private quiet = false;

  constructor(private readonly opts: RelayOptions) {
    const min = opts.keepConnections ? 1 : 0;
    this.pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 2, min, ...pgConnectionOptions(opts.timeouts, poolOptions(opts.schema)) });
    this.pool.on('error', (err) => this.connectionProblem(err, 'relay pool error'));
    // pg-pool detaches its listener from a checked-out client: a connection dropped mid-transaction
    // would emit an unhandled 'error' and crash the process. The query in flight rejects on its own.
    this.pool.on('connect', (client) => client.on('error', (err) => this.connectionProblem(err, 'relay connection error')));
    this.cursors = new PublicationCursors({
      databaseUrl: opts.databaseUrl,
      schema: opts.schema,
      timeouts: opts.timeouts,
      keepConnection: opts.keepConnections,
      log: opts.log,
      paced: () => this.running,
      connectionProblem: (err, msg) => this.connectionProblem(err, msg),
      // Publish those events again (the transport skips them) and queue the move anew, now.
      failed: () => {
        for (const held of this.held) this.recover.add(held);
        this.poke();
      },
    });
  }

  /**
   * The process is shutting down (its API drains in-flight requests): the relay still publishes what they
   * commit, but losing its connections is expected now (an embedded PostgreSQL gets the terminal's Ctrl-C
   * too, and stops at once), so it says so at debug level instead of warning.
   */
  stopping(): void {
    this.quiet = true;
  }

  private connectionProblem(err: Error, msg: string, extra: Record<string, unknown> = {}): void {
    this.opts.log[this.quiet ? 'debug' : 'warn']({ err: { message: err.message }, ...extra }, msg);
  }

  /** Whether this relay runs and holds every partition now (no other relay can be publishing). */
  holdsAll(): boolean {
    return this.running && this.session !== undefined && this.held.size === this.opts.partitions;
  }

  /** Partitions this relay currently holds. */
  heldPartitions(): number[] {
    return [...this.held].sort((a, b) => a - b);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Wakes the loop (after a local commit; NOTIFY does the same for other processes). */
  poke(): void {
    this.notified = true;
    this.alarm.ring();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.alarm.ring();
    await this.loop;
    await this.cursors.flush();
    await this.closeSession();
    await this.pool.end().catch(() => undefined);
    await this.cursors.end();
  }

  /** Runs one full pass over the held partitions (tests and benchmarks drive the relay with it). */
  async drainOnce(): Promise<number> {
    await this.ensureSession();
    let published = 0;
    for (const p of this.heldPartitions()) published += await this.drainPartition(p);
    await this.cursors.flush();
    return published;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        // A commit that lands after this pass has read the outbox rings the alarm while nobody sleeps on it:
        // the flag keeps it (one more pass) instead of leaving it to the poll interval.
        this.notified = false;
        await this.ensureSession();
        for (const p of this.heldPartitions()) await this.drainPartition(p);
        await this.maybePrune();
        this.failures = 0;
        if (this.notified) continue;
      } catch (err) {
        this.failures++;
        this.lastIds.clear();
        for (const p of this.held) this.recover.add(p);
        this.opts.publisher.forget();
        this.connectionProblem(err as Error, 'relay pass failed; retrying', { failures: this.failures });
        if (isSessionError(err)) await this.closeSession();
      }
      const delay = this.failures ? Math.min(200 * 2 ** Math.min(this.failures, 5), 5000) : this.opts.pollIntervalMs;
      await this.alarm.sleep(delay);
    }
  }

  /** Connects the session (advisory locks + LISTEN) and takes every free partition. */
  private async ensureSession(): Promise<void> {
    if (!this.session) {
      // Idle by design: keepalive notices a vanished peer; only its own queries have a deadline.
      const client = new DeadlineClient({
        connectionString: this.opts.sessionUrl ?? this.opts.databaseUrl,
        ...pgConnectionOptions(sessionTimeouts(this.opts.timeouts), searchPath(this.opts.schema)),
      });
      client.on('error', (err) => {
        this.connectionProblem(err, 'relay session lost');
        if (this.session === client) {
          this.session = undefined;
          this.held.clear();
        }
      });
      client.on('notification', (msg) => {
        if (this.opts.origin === undefined || msg.payload !== this.opts.origin) this.poke();
      });
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      this.sessionPid = Number(((await client.query('select pg_backend_pid() as pid')) as pg.QueryResult<{ pid: number }>).rows[0]!.pid);
      this.session = client;
    }
    for (let p = 0; p < this.opts.partitions; p++) {
      if (this.held.has(p)) continue;
      // The lock's first key is per schema: advisory locks are database-wide, relays are per schema.
      const res = await this.session.query<{ locked: boolean }>(`select pg_try_advisory_lock(hashtext('mapintel-relay:' || $1), $2) as locked`, [
        this.opts.schema,
        p,
      ]);
      if (res.rows[0]?.locked) {
        this.held.add(p);
        this.recover.add(p);
        this.lastIds.clear();
        this.opts.publisher.forget();
        this.opts.log.info({ partition: p }, 'relay took partition');
      }
    }
  }

  private async closeSession(): Promise<void> {
    const client = this.session;
    this.session = undefined;
    this.held.clear();
    if (client) await client.end().catch(() => undefined);
  }

  private partitionFilter(p: number, param: number, column = 'map_id'): string {
    return this.opts.partitions === 1 ? '' : `and mod(abs(hashtext(${column}::text)), ${this.opts.partitions}) = $${param}`;
  }

  /**
   * Assigns and publishes until a round finds less than a full batch: then nothing committed before
   * that round's read is left, and later commits notify (see run). No extra empty round: each round is
   * several round trips that every event committed meanwhile waits behind.
   */
  private async drainPartition(p: number): Promise<number> {
    let total = 0;
    if (this.recover.has(p)) {
      for (;;) {
        const published = await this.publishBehindCursors(p);
        total += published;
        if (published < this.opts.batchSize) break;
      }
      this.recover.delete(p);
    }
    for (;;) {
      const assigned = await this.assign(p);
      if (assigned.length) await this.publish(assigned);
      total += assigned.length;
      if (assigned.length < this.opts.batchSize) return total;
    }
  }

  /**
   * Step 1: ULIDs for committed, unassigned events, in commit (seq) order; the one update of each event
   * row, durable before anything is published. Two round trips: the read, and one update that re-checks
   * `event_id is null` under the row lock, so a relay that lost its partition while a pass was under way
   * cannot give an event a second id (only the rows it updated are published). Returns the events with
   * their ids, for step 2.
   */
  private async assign(p: number): Promise<AssignedRow[]> {
    const params: unknown[] = [this.opts.batchSize];
    if (this.opts.partitions > 1) params.push(p);
    const rows = (
      await this.pool.query<PendingRow>(
        prepared(`select seq, map_id, type, payload, (extract(epoch from created_at) * 1000)::bigint as created_ms
         from map_events where event_id is null ${this.partitionFilter(p, 2)} order by seq limit $1`),
        params,
      )
    ).rows;
    if (rows.length === 0) return [];
    try {
      const unknown = [...new Set(rows.map((r) => r.map_id).filter((m) => !this.lastIds.has(m)))];
      if (unknown.length) {
        const r = await this.pool.query<{ map_id: string; last: string | null }>(
          `select m.id as map_id, (select max(e.event_id) from map_events e where e.map_id = m.id) as last from unnest($1::uuid[]) as m(id)`,
          [unknown],
        );
        for (const row of r.rows) this.lastIds.set(row.map_id, row.last ?? '');
      }
      const now = Date.now();
      const assigned: AssignedRow[] = [];
      for (const row of rows) {
        const before = this.lastIds.get(row.map_id) || null;
        const id = nextEventId(before ?? undefined, now);
        this.lastIds.set(row.map_id, id);
        assigned.push({ map_id: row.map_id, event_id: id, type: row.type, payload: row.payload, created_ms: row.created_ms, prev_id: before });
      }
      // Fenced by the partition lock: the update assigns nothing unless this relay's session still holds
      // it when the statement runs. A relay that died (or lost its session) while its update was on the
      // way, queued in a pooler say, must not commit ids after its successor read what was unassigned.
      const updated = await this.pool.query<{ seq: string }>(
        prepared(`update map_events e set event_id = v.id from (select unnest($1::bigint[]) as seq, unnest($2::text[]) as id) v
         where e.seq = v.seq and e.event_id is null
           and exists (select 1 from pg_locks l where l.locktype = 'advisory' and l.pid = $3 and l.objid = $4::oid and l.objsubid = 2 and l.granted)
         returning e.seq`),
        [rows.map((r) => r.seq), assigned.map((r) => r.event_id), this.sessionPid ?? -1, p],
      );
      if (updated.rows.length === rows.length) return assigned;
      // Another relay assigned some of these meanwhile: publish only ours, and read the last ids afresh.
      this.lastIds.clear();
      const ours = new Set(updated.rows.map((r) => r.seq));
      this.opts.log.warn({ partition: p, taken: rows.length - ours.size }, 'relay: events already assigned by another relay; skipping them');
      // What came before each is not known now: the other relay's ids lie among ours.
      return assigned.filter((_, i) => ours.has(rows[i]!.seq)).map((r) => ({ ...r, prev_id: undefined }));
    } catch (err) {
      // The cache may hold ids that were never written.
      this.lastIds.clear();
      throw err;
    }
  }

  /**
   * Step 2: publish events per map in id order (the maps of a round together, one round trip), then move
   * each map's publication cursor past them. The event rows are not touched, and the cursor move is not
   * waited for: it is queued on its own connection (merged with the moves queued meanwhile; `greatest`
   * keeps it monotonic) while the next round runs. A failed move makes the next pass publish those events again and queue the move
   * anew; a crash between publishing and moving the cursor makes the next relay do the same. Either way
   * the transport skips the ids it already holds.
   */
  private async publish(rows: readonly AssignedRow[]): Promise<void> {
    const byMap = new Map<string, AssignedRow[]>();
    for (const row of rows) {
      const list = byMap.get(row.map_id) ?? [];
      list.push(row);
      byMap.set(row.map_id, list);
    }
    await Promise.all(
      [...byMap].map(([mapId, list]) =>
        this.opts.publisher.publish(
          mapId,
          list.map((r) => ({ id: r.event_id, type: r.type, map_id: r.map_id, ts: new Date(Number(r.created_ms)).toISOString(), payload: r.payload })),
          // Said only when the list follows on from it without a gap (it does, unless another relay assigned some).
          list.every((r, i) => i === 0 || r.prev_id === list[i - 1]!.event_id) ? list[0]!.prev_id : undefined,
        ),
      ),
    );
    const now = Date.now();
    for (const r of rows) this.opts.metrics?.eventPublishLatency.observe((now - Number(r.created_ms)) / 1000);
    this.opts.metrics?.eventsPublished.inc(rows.length);
    for (const [mapId, list] of byMap) this.cursors.due(mapId, list.at(-1)!.event_id);
  }

  /**
   * Recovery: publishes a batch of the events with ids past their map's cursor (one index probe per map).
   * The cursor is the id of a published event, so it is the one before the first of them.
   */
  private async publishBehindCursors(p: number): Promise<number> {
    await this.cursors.flush();
    const params: unknown[] = [this.opts.batchSize];
    if (this.opts.partitions > 1) params.push(p);
    const rows = (
      await this.pool.query<AssignedRow & { cursor: string }>(
        `select e.map_id, e.event_id, e.type, e.payload, e.created_ms, coalesce(c.published_event_id, '') as cursor
         from maps m
         left join map_event_cursors c on c.map_id = m.id
         cross join lateral (
           select e.map_id, e.event_id, e.type, e.payload, (extract(epoch from e.created_at) * 1000)::bigint as created_ms
           from map_events e where e.map_id = m.id and e.event_id > coalesce(c.published_event_id, '')
           order by e.event_id limit $1) e
         where true ${this.partitionFilter(p, 2, 'm.id')}
         order by e.map_id, e.event_id limit $1`,
        params,
      )
    ).rows;
    rows.forEach((r, i) => (r.prev_id = i > 0 && rows[i - 1]!.map_id === r.map_id ? rows[i - 1]!.event_id : r.cursor || null));
    if (rows.length) await this.publish(rows);
    return rows.length;
  }

  /** Retention: the relay holding partition 0 deletes published events older than the window, in batches. */
  private async maybePrune(): Promise<void> {
    if (!this.held.has(0) || Date.now() - this.lastPrune < this.opts.pruneIntervalMs) return;
    this.lastPrune = Date.now();
    await pruneEvents(this.pool, this.opts.retentionMs, 5000);
    await this.opts.housekeeping?.(this.pool);
  }
}
