import type { Db } from '../db/db.js';
import type { Logger } from '../common/log.js';
import type { EventConsumer } from '../events/transport/types.js';
import type { EventEnvelope } from '../events/envelope.js';
import { Alarm } from '../events/alarm.js';
import { serializeEnvelope, type ClaimedDelivery, type DeliveryRepository, type PlannedDelivery } from './delivery.repository.js';
import { SubscriptionCache } from './subscription-cache.js';
import type { WebhookMetrics } from './webhook.metrics.js';
import { sleep } from './sleep.js';

const PLAN_BATCH = 500;
/** Planning inserts under way at once (each of a batch of events read after the one before it). */
const PLAN_IN_FLIGHT = 2;
/**
 * The consumer's position moves at most this often, for every batch planned meanwhile at once: a
 * position only says where a restarted worker reads again (replayed events plan nothing new), and a
 * statement per planned batch was a tenth of the statements PostgreSQL ran in a paced run.
 */
const POSITION_EVERY_MS = 100;

/** Where planned deliveries go: the dispatcher, which leases and sends them. */
export interface PlanningSink {
  /** The rows (by index) to lease as they are planned, their slots reserved. */
  reserveForPlanning(rows: readonly PlannedDelivery[]): Set<number>;
  /** The planning insert is over: the reservations of `lease` are released (what it leased is `take`n). */
  releaseReservations(rows: readonly PlannedDelivery[], lease: ReadonlySet<number>): void;
  /** Deliveries the planning insert leased for this worker. */
  take(leased: readonly ClaimedDelivery[]): void;
  /** Deliveries planned without a lease, for the next free slots (or claims). */
  queue(queued: readonly { id: string; subscriptionId: string }[]): void;
}

export interface DeliveryPlannerOptions {
  db: Db;
  consumer: EventConsumer;
  deliveries: DeliveryRepository;
  metrics: WebhookMetrics;
  log: Logger;
  /** The worker's lease owner and lease length, for the rows leased as they are planned. */
  owner: string;
  leaseMs: number;
  running: () => boolean;
}

/**
 * Events → deliveries. Reads committed events through the durable consumer and queues one delivery per
 * event and matching subscription (`webhook_deliveries`, unique per pair, so replays and other workers
 * add nothing); the deliveries the dispatcher has slots for are leased by the same statement. The
 * consumer's position moves past a batch only once it and every batch read before it are planned.
 */
export class DeliveryPlanner {
  private readonly cache: SubscriptionCache;
  private readonly positionAlarm = new Alarm();
  /** Planned events whose consumer position is not moved yet, and the loop moving it. */
  private uncommitted: EventEnvelope[] = [];
  private committing: Promise<void> | undefined;

  constructor(
    private readonly o: DeliveryPlannerOptions,
    private readonly sink: PlanningSink,
  ) {
    this.cache = new SubscriptionCache(o.db);
  }

  /** Settles once the queued position moves are made (made at once when the worker stops). */
  positionsMoved(): Promise<void> | undefined {
    this.positionAlarm.ring();
    return this.committing;
  }

  /**
   * Reads events and plans them, with up to PLAN_IN_FLIGHT planning inserts at once: a batch read while
   * the one before is being inserted does not wait for it (on a busy database that wait was most of an
   * event's time to its first attempt). Positions still move in reading order: a batch's position moves
   * only once every batch read before it is planned.
   */
  async loop(): Promise<void> {
    const inFlight = new Set<Promise<boolean>>();
    /** Settles true once every batch read so far is planned (false: the worker stopped first). */
    let previous: Promise<boolean> = Promise.resolve(true);
    /** The batch read last: its events, and its planning (the only one that can still be under way). */
    let last: { events: readonly EventEnvelope[]; planned: Promise<boolean> } | undefined;
    while (this.o.running()) {
      if (inFlight.size >= PLAN_IN_FLIGHT) {
        await Promise.race(inFlight);
        continue;
      }
      let events: EventEnvelope[];
      try {
        events = await this.o.consumer.next(PLAN_BATCH, 1_000);
      } catch (err) {
        this.o.log.error({ err }, 'reading events for webhook planning failed; retrying');
        await sleep(1_000);
        continue;
      }
      if (!this.o.running()) break;
      if (events.length === 0) continue;
      const before = previous;
      // A batch with a subscription of the batch before it is planned after that one: the planning insert
      // takes each subscription's webhook-sequence numbers and leases, so two inserts for one subscription
      // under way at once numbered (and leased) its events in whichever order PostgreSQL ran them, not in
      // event order. Batches for other subscriptions are still planned alongside (one whose insert is
      // stuck behind a lock holds up no other subscription).
      const prior = last;
      const planned =
        prior && this.shareSubscriptions(prior.events, events) ? prior.planned.then(() => this.planUntilDone(events)) : this.planUntilDone(events);
      last = { events, planned };
      const done = (async () => {
        const ok = (await planned) && (await before);
        if (ok) {
          this.commitPosition(events);
          this.o.metrics.plannerLag.set(Math.max(0, Date.now() - Date.parse(events.at(-1)!.ts)) / 1000);
        }
        return ok;
      })();
      previous = done;
      inFlight.add(done);
      void done.finally(() => inFlight.delete(done));
    }
    await Promise.allSettled(inFlight);
  }

  /**
   * Plans a batch the consumer has handed out, again and again until it succeeds: it is planned before
   * the position moves past anything after it, or the position (which moves per map to the newest
   * planned id) would pass it. False when the worker stops first: the position stays behind the batch,
   * and the next start plans it from the event log.
   */
  /**
   * Whether two batches may deliver to one subscription: by the cached subscriptions of their maps, or,
   * when a map is not cached, by whether they share a map.
   */
  private shareSubscriptions(a: readonly EventEnvelope[], b: readonly EventEnvelope[]): boolean {
    const subsOf = (events: readonly EventEnvelope[]): Set<string> | undefined => {
      const entries = this.cache.cached(new Set(events.map((e) => e.map_id)));
      if (!entries) return undefined;
      return new Set(events.flatMap((e) => SubscriptionCache.matching(entries.get(e.map_id)!, e.type, Date.parse(e.ts)).map((s) => s.id)));
    };
    const [sa, sb] = [subsOf(a), subsOf(b)];
    if (sa && sb) return [...sb].some((id) => sa.has(id));
    const maps = new Set(a.map((e) => e.map_id));
    return b.some((e) => maps.has(e.map_id));
  }

  private async planUntilDone(events: readonly EventEnvelope[]): Promise<boolean> {
    for (let failures = 0; ; failures++) {
      try {
        await this.plan(events);
        return true;
      } catch (err) {
        this.o.log.error({ err, events: events.length, failures: failures + 1 }, 'webhook planning failed; retrying the same events');
        await sleep(Math.min(200 * 2 ** failures, 5_000));
        if (!this.o.running()) return false;
      }
    }
  }

  /**
   * Moves the consumer's position past planned events without holding up the next batch: the moves are
   * queued in order, made at most every POSITION_EVERY_MS (at once when the worker stops) with every
   * batch planned meanwhile, and a failed one is retried with the next (a position left behind only
   * replays events whose deliveries exist already, which planning skips).
   */
  private commitPosition(events: readonly EventEnvelope[]): void {
    this.uncommitted.push(...events);
    if (this.committing) return;
    this.committing = (async () => {
      while (this.uncommitted.length) {
        if (this.o.running()) await this.positionAlarm.sleep(POSITION_EVERY_MS);
        const batch = this.uncommitted;
        this.uncommitted = [];
        try {
          await this.o.consumer.commit(batch);
        } catch (err) {
          this.o.log.warn({ err }, 'moving the webhook consumer position failed; retrying');
          this.uncommitted = batch.concat(this.uncommitted);
          await sleep(500);
          if (!this.o.running()) break;
        }
      }
      this.committing = undefined;
    })();
  }

  /**
   * Queues the deliveries of a batch: matched against the cached subscriptions of its maps, inserted by
   * one statement that checks those are still current (one round trip); when a map's settings moved (or
   * a map is not cached), its subscriptions are read again and the batch matched again.
   */
  async plan(events: readonly EventEnvelope[]): Promise<number> {
    const maps = new Set(events.map((e) => e.map_id));
    let entries = this.cache.cached(maps);
    for (let round = 0; ; round++) {
      entries ??= await this.cache.forMaps(maps);
      const rows: PlannedDelivery[] = [];
      for (const e of events) {
        const at = Date.parse(e.ts);
        const subs = SubscriptionCache.matching(entries.get(e.map_id)!, e.type, at);
        if (subs.length === 0) continue;
        const body = serializeEnvelope(e);
        for (const s of subs) rows.push({ subscriptionId: s.id, mapId: e.map_id, eventId: e.id, eventType: e.type, eventAtMs: at, body });
      }
      // Settings that keep moving between reading and inserting: planned against the read just made,
      // unchecked, as a worker that always reads first would.
      const versions = round < 3 ? new Map([...entries].map(([id, entry]) => [id, entry.version])) : undefined;
      // The deliveries the dispatcher has slots for are leased as they are planned and sent at once; the
      // rest wait for a claim (by this worker or another).
      const lease = this.o.running() ? this.sink.reserveForPlanning(rows) : new Set<number>();
      let planned: Awaited<ReturnType<DeliveryRepository['plan']>>;
      try {
        planned = await this.o.deliveries.plan(this.o.db, rows, { owner: this.o.owner, leaseMs: this.o.leaseMs, rows: lease }, versions);
      } finally {
        this.sink.releaseReservations(rows, lease);
      }
      if (planned.stale.length) {
        entries = undefined;
        continue;
      }
      this.sink.take(planned.leased);
      this.o.metrics.planned.inc(planned.added);
      if (planned.queued.length) this.sink.queue(planned.queued);
      return planned.added;
    }
  }
}
