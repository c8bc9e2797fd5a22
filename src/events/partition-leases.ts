import type { Logger } from '../common/log.js';
import { pgClient, type DatabaseTimeouts, type DeadlineClient } from '../db/pg-options.js';
import { searchPath } from './relay-sql.js';
import type { PartitionScope } from './transport/consumer.js';

export interface PartitionLeasesOptions {
  databaseUrl: string;
  /** Leases are per schema (advisory locks are database-wide; tests and tenants isolate by schema). */
  schema: string;
  timeouts?: DatabaseTimeouts;
  /** What is shared out (the webhook planner: `webhooks`). */
  name: string;
  /** Partitions of the transport (EVENTS_PARTITIONS). */
  count: number;
  log: Logger;
  /** How often the share is looked at again (a new member gets its share within this). */
  rebalanceMs?: number;
}

/**
 * Partitions shared out among the processes of one kind (the webhook workers), each held by one of
 * them at a time: a PostgreSQL session advisory lock per partition, on a session of its own, so a
 * process that dies or loses its connection frees its partitions at once. Each member also holds a
 * shared lock saying it is one, and takes at most its fair share (partitions ÷ members, rounded up):
 * a member that holds more gives the extra back, one that holds fewer takes free ones, so partitions
 * spread over the members within `rebalanceMs` of one joining or leaving.
 */
export class PartitionLeases implements PartitionScope {
  private session: DeadlineClient | undefined;
  private readonly owned = new Set<number>();
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private round: Promise<void> = Promise.resolve();

  constructor(private readonly o: PartitionLeasesOptions) {}

  get count(): number {
    return this.o.count;
  }

  held(): ReadonlySet<number> {
    return this.owned;
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Takes this member's first share before it resolves. */
  async start(): Promise<void> {
    this.running = true;
    await this.rebalance();
    this.timer = setInterval(() => {
      this.round = this.round.then(() => this.rebalance());
    }, this.o.rebalanceMs ?? 2_000);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.timer);
    await this.round;
    const session = this.session;
    this.session = undefined;
    if (this.owned.size) {
      this.owned.clear();
      this.changed();
    }
    // Ending the session frees every lock it holds.
    if (session) await session.end().catch(() => undefined);
  }

  /** One look at the share: join, count the members, give back or take partitions. */
  async rebalance(): Promise<void> {
    if (!this.running) return;
    try {
      const s = await this.connect();
      const keys = [`mapintel-partitions:${this.o.name}:${this.o.schema}`, `mapintel-members:${this.o.name}:${this.o.schema}`];
      const res = await s.query(
        `select count(*) as members from pg_locks
         where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())
           and classid = hashtext($1)::oid and objid = 0 and objsubid = 2`,
        [keys[1]],
      );
      const members = Math.max(1, Number((res.rows[0] as { members?: string } | undefined)?.members ?? 1));
      const share = Math.ceil(this.o.count / members);
      let moved = false;
      for (const p of [...this.owned].sort((a, b) => b - a)) {
        if (this.owned.size <= share) break;
        await s.query('select pg_advisory_unlock(hashtext($1), $2)', [keys[0], p]);
        this.owned.delete(p);
        moved = true;
      }
      // From a place of its own, so members starting together do not all try the same partitions first.
      const offset = Math.floor(Math.random() * this.o.count);
      for (let i = 0; i < this.o.count && this.owned.size < share; i++) {
        const p = (offset + i) % this.o.count;
        if (this.owned.has(p)) continue;
        const taken = await s.query('select pg_try_advisory_lock(hashtext($1), $2) as locked', [keys[0], p]);
        if ((taken.rows[0] as { locked?: boolean } | undefined)?.locked) {
          this.owned.add(p);
          moved = true;
        }
      }
      if (moved) {
        this.o.log.info({ partitions: [...this.owned].sort((a, b) => a - b), members }, `${this.o.name} partitions held`);
        this.changed();
      }
    } catch (err) {
      this.o.log.warn({ err: { message: (err as Error).message } }, `${this.o.name} partition leases: looking at the share failed; retrying`);
      this.lost();
    }
  }

  private async connect(): Promise<DeadlineClient> {
    if (this.session) return this.session;
    const client = pgClient(this.o.databaseUrl, this.o.timeouts, searchPath(this.o.schema));
    client.on('error', () => {
      if (this.session === client) this.lost();
    });
    await client.connect();
    await client.query('select pg_advisory_lock_shared(hashtext($1), 0)', [`mapintel-members:${this.o.name}:${this.o.schema}`]);
    this.session = client;
    return client;
  }

  /** The session is gone, and every lock with it. */
  private lost(): void {
    const session = this.session;
    this.session = undefined;
    void session?.end().catch(() => undefined);
    if (this.owned.size) {
      this.owned.clear();
      this.changed();
    }
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }
}
