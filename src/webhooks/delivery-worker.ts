import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/db.js';
import type { SecretBox } from '../crypto.js';
import type { Logger } from '../log.js';
import type { EventConsumer } from '../events/transport/types.js';
import type { EventEnvelope } from '../events/envelope.js';
import { Alarm } from '../events/alarm.js';
import { nextWaitMs } from './retry-schedule.js';
import type { AttemptResult, WebhookSender } from './sender.js';
import {
  DeliveryRepository,
  serializeEnvelope,
  type AttemptLogEntry,
  type ClaimedDelivery,
  type DeliveryOutcome,
  type PlannedDelivery,
} from './delivery.repository.js';
import { SubscriptionRepository } from './subscription.repository.js';
import { SubscriptionCache } from './subscription-cache.js';
import { PlannedQueue } from './planned-queue.js';
import type { WebhookMetrics } from './webhook.metrics.js';

export interface DeliveryWorkerOptions {
  db: Db;
  box: SecretBox;
  consumer: EventConsumer;
  sender: WebhookSender;
  log: Logger;
  metrics: WebhookMetrics;
  /** Waits before attempts 2, 3, … (ms). */
  retryWaitsMs: readonly number[];
  disableAfter: number;
  /** Attempts in flight in this worker. */
  concurrency: number;
  /** Attempts in flight per subscription in this worker. */
  perSubscription: number;
  /** A leased delivery whose worker vanished is taken over after this long (must exceed the request timeout). */
  leaseMs: number;
  /** The sender's timeout: a leased delivery starts only while its lease outlasts an attempt by a second. */
  attemptTimeoutMs: number;
  /** Safety poll for due retries and for deliveries queued by other workers. */
  pollMs: number;
  attemptsRetentionDays: number;
}

const PLAN_BATCH = 500;
/** Planning inserts under way at once (each of a batch of events read after the one before it). */
const PLAN_IN_FLIGHT = 2;
/**
 * Leased deliveries a worker may hold beyond its slots, as a share of WEBHOOK_CONCURRENCY: a slot that
 * frees up starts the next attempt from this buffer at once, instead of waiting for a lease round trip
 * (which takes longer than many attempts do on a busy machine). The buffer counts toward each
 * subscription's slots, so a hanging receiver still holds at most its one. Twice the slots, so that
 * queued deliveries can be leased in batches of half the slots and the slots still never run dry while
 * a lease is under way (docs/benchmarks.md, 2026-11-25 17:05-18:30).
 */
const PREFETCH_SHARE = 2;
/**
 * Deliveries a subscription with successes in a row may have waiting in the buffer, per slot of
 * WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: a burst of that size goes out without claim round trips.
 */
const QUEUE_PER_SLOT = 3;
/**
 * Deliveries a worker keeps queued by id after planning them without a free slot (`PlannedQueue`), at
 * most: about 5 MB. Beyond it, planned rows wait for claims (which find them in PostgreSQL anyway).
 */
const PLANNED_QUEUE_MAX = 50_000;
const FLUSH_EVERY_MS = 20;
/**
 * The consumer's position moves at most this often, for every batch planned meanwhile at once: a
 * position only says where a restarted worker reads again (replayed events plan nothing new), and a
 * statement per planned batch was a tenth of the statements PostgreSQL ran in a paced run
 * (docs/benchmarks.md, 2026-11-25 21:25-23:05).
 */
const POSITION_EVERY_MS = 100;
const FLUSH_MAX = 500;
const SWEEP_EVERY_MS = 5 * 60_000;

interface Waiting {
  delivery: ClaimedDelivery;
  /** When it was leased (a little after the lease began). */
  leasedAt: number;
}

interface Finished {
  delivery: ClaimedDelivery;
  attempt: number;
  attemptedAt: Date;
  result: AttemptResult;
  outcome: DeliveryOutcome;
}

/**
 * Webhook delivery, at least once, with PostgreSQL as the source of truth:
 * - the planner reads committed events through a durable consumer (its position in PostgreSQL, Redis
 *   or the in-process tail as the fast path) and queues one delivery per event and matching
 *   subscription (`webhook_deliveries`, unique per pair, so replays and other workers add nothing);
 * - the dispatcher leases due deliveries (`for update skip locked`, a lease per row) within the
 *   worker's and each subscription's concurrency, sends them, and records the outcome, the attempt
 *   and the subscription's state in batches. A worker that dies leaves leases that expire: another
 *   worker (or the same one restarted) sends those deliveries again.
 */
export class DeliveryWorker {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly deliveries = new DeliveryRepository();
  private readonly subs = new SubscriptionRepository();
  private readonly cache: SubscriptionCache;
  private readonly dispatchAlarm = new Alarm();
  private readonly flushAlarm = new Alarm();
  private readonly positionAlarm = new Alarm();
  /** Per subscription, slots held: attempts in flight and leased deliveries waiting in `ready`. */
  private readonly heldBySub = new Map<string, number>();
  private readonly attempts = new Set<Promise<void>>();
  /** Leases being given back (awaited on stop). */
  private readonly givingBack = new Set<Promise<void>>();
  private readonly secrets = new Map<string, string>();
  /** Per subscription, when its last success was. */
  private readonly lastOk = new Map<string, number>();
  /** Per subscription, successes in a row in this worker (capped at the per-subscription limit). */
  private readonly streak = new Map<string, number>();
  private finished: Finished[] = [];
  /** Planned events whose consumer position is not moved yet, and the loop moving it. */
  private uncommitted: EventEnvelope[] = [];
  private committing: Promise<void> | undefined;
  /** Slots held in all (attempts in flight, deliveries waiting in `ready`, rows being leased by planning). */
  private held = 0;
  /** Attempts in flight (at most WEBHOOK_CONCURRENCY). */
  private active = 0;
  /** Per subscription, attempts in flight. */
  private readonly activeBySub = new Map<string, number>();
  /** Attempts in flight beyond the first of subscriptions without a recent success (at most half the slots). */
  private burstActive = 0;
  /** Leased deliveries waiting for a free slot (the worker's or their subscription's), in the order they were leased. */
  private ready: Waiting[] = [];
  /** Deliveries this worker planned without a slot for them, leased by id as slots free up. */
  private readonly queued = new PlannedQueue(PLANNED_QUEUE_MAX);
  /**
   * Whether a lease by id may find something in `queued` beyond the rows of a subscription whose slot just
   * freed: rows were queued (or planning's reservations released) since the last lease by id, or that lease
   * was cut short by the free slots. While false, a finished attempt wakes the dispatcher for the queue
   * only when its own subscription has rows queued: with receivers that hang, the queue holds their rows
   * (allowed no slot) for seconds, and a wake per finished attempt of the others found nothing every time.
   */
  private queueLeasable = false;
  private lastClaimAt = 0;
  /** Slots plus the prefetch buffer: how many deliveries this worker holds leased at most. */
  private readonly capacity: number;
  private running = false;
  private wanted = false;
  /**
   * When finished attempts claim again. A claim per finished burst would mostly find nothing (planning
   * leases what it can), so a finished attempt claims only when rows may be waiting for it: after a
   * claim that came back full (`unleased`: rows of any subscription may be left), or when its own
   * subscription is in `backlogged` (planning left rows of it behind, or the last claim took all the
   * subscription was allowed). The safety poll claims regardless (retries coming due, other workers'
   * rows). `plannedDuringClaim` keeps a claim under way from clearing what planning added meanwhile.
   */
  private unleased = true;
  private readonly backlogged = new Set<string>();
  private plannedDuringClaim: Set<string> | undefined;
  private loops: Promise<void>[] = [];
  private timers: NodeJS.Timeout[] = [];

  constructor(private readonly o: DeliveryWorkerOptions) {
    this.cache = new SubscriptionCache(o.db);
    this.capacity = o.concurrency + Math.ceil(o.concurrency * PREFETCH_SHARE);
  }

  start(): void {
    this.running = true;
    this.loops = [this.planLoop(), this.dispatchLoop(), this.flushLoop()];
    this.timers.push(setInterval(() => void this.sweep(), SWEEP_EVERY_MS));
    for (const t of this.timers) t.unref();
  }

  /** Stops taking work, lets attempts in flight finish (until `deadline`), records them. */
  async stop(deadline: number): Promise<void> {
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    // Ends the planning loop's wait for events; what it was handed and did not plan keeps its position
    // unmoved, so the next start reads it again.
    await this.o.consumer.close();
    // Queued rows were never leased: other workers (or the next start) claim them.
    this.queued.clear();
    this.o.metrics.queued.set(0);
    this.dispatchAlarm.ring();
    await this.releaseReady();
    await Promise.race([Promise.allSettled([...this.attempts]), sleep(Math.max(0, deadline - Date.now()))]);
    this.flushAlarm.ring();
    this.positionAlarm.ring();
    await Promise.race([Promise.allSettled([...this.loops, this.committing]), sleep(Math.max(0, deadline - Date.now()))]);
    await Promise.race([Promise.allSettled([...this.givingBack]), sleep(Math.max(0, deadline - Date.now()))]);
    this.o.sender.close();
  }

  // --- planning: events → deliveries ---

  /**
   * Reads events and plans them, with up to PLAN_IN_FLIGHT planning inserts at once: a batch read while
   * the one before is being inserted does not wait for it (on a busy database that wait was most of an
   * event's time to its first attempt). Positions still move in reading order: a batch's position moves
   * only once every batch read before it is planned.
   */
  private async planLoop(): Promise<void> {
    const inFlight = new Set<Promise<boolean>>();
    /** Settles true once every batch read so far is planned (false: the worker stopped first). */
    let previous: Promise<boolean> = Promise.resolve(true);
    while (this.running) {
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
      if (!this.running) break;
      if (events.length === 0) continue;
      const before = previous;
      const planned = this.planUntilDone(events);
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
  private async planUntilDone(events: readonly EventEnvelope[]): Promise<boolean> {
    for (let failures = 0; ; failures++) {
      try {
        await this.plan(events);
        return true;
      } catch (err) {
        this.o.log.error({ err, events: events.length, failures: failures + 1 }, 'webhook planning failed; retrying the same events');
        await sleep(Math.min(200 * 2 ** failures, 5_000));
        if (!this.running) return false;
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
        if (this.running) await this.positionAlarm.sleep(POSITION_EVERY_MS);
        const batch = this.uncommitted;
        this.uncommitted = [];
        try {
          await this.o.consumer.commit(batch);
        } catch (err) {
          this.o.log.warn({ err }, 'moving the webhook consumer position failed; retrying');
          this.uncommitted = batch.concat(this.uncommitted);
          await sleep(500);
          if (!this.running) break;
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
  private async plan(events: readonly EventEnvelope[]): Promise<number> {
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
      // The deliveries this worker has slots for are leased as they are planned and sent at once; the
      // rest wait for a claim (by this worker or another).
      const lease = this.running ? this.reserveForPlanning(rows) : new Set<number>();
      let planned: Awaited<ReturnType<DeliveryRepository['plan']>>;
      try {
        planned = await this.deliveries.plan(this.o.db, rows, { owner: this.owner, leaseMs: this.o.leaseMs, rows: lease }, versions);
      } finally {
        for (const i of lease) this.release(rows[i]!.subscriptionId);
        if (lease.size && this.queued.size) this.queueLeasable = true;
      }
      if (planned.stale.length) {
        entries = undefined;
        continue;
      }
      for (const d of planned.leased) this.begin(d);
      this.o.metrics.planned.inc(planned.added);
      if (planned.queued.length) {
        // Queued by id for the next free slots; what does not fit (or comes while stopping) is left to claims.
        this.queueLeasable = true;
        for (const q of planned.queued) {
          if (this.running && this.queued.push(q.subscriptionId, q.id)) continue;
          this.backlogged.add(q.subscriptionId);
          this.plannedDuringClaim?.add(q.subscriptionId);
        }
        this.o.metrics.queued.set(this.queued.size);
        this.wake();
      }
      return planned.added;
    }
  }

  /**
   * The rows (by index) this worker leases as they are planned, while it holds fewer than its capacity:
   * per subscription up to what it may queue (`queueable`). When each starts is the buffer's business
   * (`pump`).
   */
  private reserveForPlanning(rows: readonly PlannedDelivery[]): Set<number> {
    const lease = new Set<number>();
    let free = this.capacity - this.held;
    for (const [i, r] of rows.entries()) {
      if (free <= 0) break;
      const id = r.subscriptionId;
      if ((this.heldBySub.get(id) ?? 0) >= this.queueable(id)) continue;
      free--;
      lease.add(i);
      this.reserve(id);
    }
    return lease;
  }

  // --- dispatch: due deliveries → attempts ---

  private wake(): void {
    this.wanted = true;
    this.dispatchAlarm.ring();
  }

  private async dispatchLoop(): Promise<void> {
    while (this.running) {
      this.wanted = false;
      let full = false;
      try {
        let free = this.capacity - this.held;
        if (free > 0 && this.queued.size > 0) {
          full = await this.leaseQueued(free);
          if (!this.running) return;
          free = this.capacity - this.held;
        }
        // A claim looks for rows this worker has not queued (retries coming due, other workers' rows, rows
        // left to claims) when slots are still free after the queue; while the queue holds some, at most
        // once a poll interval, or claims would lease the queued rows first and leave every lease by id empty.
        if (free > 0 && (this.queued.size === 0 || Date.now() - this.lastClaimAt >= this.o.pollMs)) {
          this.lastClaimAt = Date.now();
          const allowances = this.allowances();
          const planned = (this.plannedDuringClaim = new Set());
          let claimed: ClaimedDelivery[];
          try {
            claimed = await this.deliveries.claim(this.o.db, this.owner, this.o.leaseMs, free, 1, allowances);
          } finally {
            this.plannedDuringClaim = undefined;
          }
          if (!(await this.accept(claimed))) return;
          full = claimed.length === free;
          this.unleased = full;
          this.noteBacklog(claimed, allowances, planned);
        }
      } catch (err) {
        this.o.log.error({ err }, 'claiming webhook deliveries failed; retrying');
        await sleep(1_000);
        continue;
      }
      if (!this.running) return;
      // More may be due at once when the claim was full and slots free up; else wait for news.
      if (!this.wanted && !(full && this.held < this.capacity)) await this.dispatchAlarm.sleep(this.o.pollMs);
    }
  }

  /**
   * Leases up to `free` queued deliveries by id, within each subscription's allowance, and takes them.
   * True when it took all it asked for (more may be waiting). On an error the ids are left to claims.
   */
  private async leaseQueued(free: number): Promise<boolean> {
    const since = Date.now() - 1_000;
    const picked = this.queued.take(free, (id) => this.allowance(id, since));
    this.queueLeasable = picked.length === free;
    if (picked.length === 0) return false;
    try {
      let leased: ClaimedDelivery[];
      try {
        leased = await this.deliveries.leaseIds(
          this.o.db,
          this.owner,
          this.o.leaseMs,
          picked.map((p) => p.id),
        );
      } catch (err) {
        for (const p of picked) this.backlogged.add(p.subscriptionId);
        throw err;
      }
      if (!(await this.accept(leased))) return false;
      // A subscription none of whose rows could be leased was switched off, or another worker is taking
      // its rows: the rest of its queue is left to claims instead of being tried a few ids at a time.
      const got = new Set(leased.map((d) => d.subscription_id));
      for (const { subscriptionId } of picked) {
        if (got.has(subscriptionId) || !this.queued.has(subscriptionId)) continue;
        this.queued.drop(subscriptionId);
        this.backlogged.add(subscriptionId);
      }
      return picked.length === free;
    } finally {
      this.o.metrics.queued.set(this.queued.size);
    }
  }

  /**
   * Takes what a claim or a lease by id returned into the buffer. While stopping, gives it back at once
   * instead of letting the leases run out, and returns false.
   */
  private async accept(leased: readonly ClaimedDelivery[]): Promise<boolean> {
    if (!this.running) {
      await this.deliveries.release(
        this.o.db,
        this.owner,
        leased.map((d) => d.id),
      );
      return false;
    }
    for (const d of leased) this.begin(d);
    return true;
  }

  /**
   * Slots each subscription holds, for the claim. A subscription starts with one attempt in flight and
   * gains one per success in a row up to WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION; a failure (a timeout, a
   * refused connection, an error status) takes it back to one. Receivers that hang or refuse never hold
   * more than one slot each, so they cannot take the slots of healthy ones, even at the start.
   */
  private allowances(): Map<string, number> {
    const left = new Map<string, number>();
    const since = Date.now() - 1_000;
    for (const id of new Set([...this.heldBySub.keys(), ...this.streak.keys()])) left.set(id, this.allowance(id, since));
    return left;
  }

  /**
   * Slots the subscription may still take (see `allowances`). Successes in a row count only while they
   * are recent (the last newer than `since`): a subscription quiet for a second starts again at one slot,
   * so a receiver that began to hang meanwhile cannot take all its slots at once.
   */
  private allowance(id: string, since: number): number {
    const allowed = this.recent(id, since) ? this.earned(id) : 1;
    return Math.max(0, allowed - (this.heldBySub.get(id) ?? 0));
  }

  /**
   * After a claim: a subscription that got all it was allowed may have more rows (backlogged); one that
   * got less has none due, unless planning left rows of it behind while the claim was under way.
   */
  private noteBacklog(claimed: readonly ClaimedDelivery[], allowances: ReadonlyMap<string, number>, planned: ReadonlySet<string>): void {
    const got = new Map<string, number>();
    for (const d of claimed) got.set(d.subscription_id, (got.get(d.subscription_id) ?? 0) + 1);
    for (const [id, n] of got) if (n >= (allowances.get(id) ?? 1)) this.backlogged.add(id);
    for (const id of [...this.backlogged]) {
      const allowed = allowances.get(id) ?? 1;
      if (allowed > 0 && (got.get(id) ?? 0) < allowed && !planned.has(id)) this.backlogged.delete(id);
    }
  }

  /** Whether the subscription's successes in a row count: it has some, and the last is newer than `since`. */
  private recent(id: string, since: number): boolean {
    return (this.streak.get(id) ?? 0) > 0 && (this.lastOk.get(id) ?? 0) >= since;
  }

  /**
   * Deliveries of the subscription planning may lease: its earned slots, and once it has a success in a
   * row QUEUE_PER_SLOT times its slot limit more, waiting in `ready` (a burst then needs no claims).
   */
  private queueable(id: string): number {
    return this.earned(id) + ((this.streak.get(id) ?? 0) > 0 ? QUEUE_PER_SLOT * this.o.perSubscription : 0);
  }

  /** Slots the subscription has earned: one, plus its successes in a row, up to the per-subscription limit. */
  private earned(id: string): number {
    return Math.min(this.o.perSubscription, 1 + (this.streak.get(id) ?? 0));
  }

  /** Counts a slot of the subscription as taken (an attempt in flight, a delivery waiting in `ready`, or one being leased). */
  private reserve(subscriptionId: string): void {
    this.held++;
    this.heldBySub.set(subscriptionId, (this.heldBySub.get(subscriptionId) ?? 0) + 1);
  }

  private release(subscriptionId: string): void {
    this.held--;
    const n = (this.heldBySub.get(subscriptionId) ?? 1) - 1;
    if (n > 0) this.heldBySub.set(subscriptionId, n);
    else this.heldBySub.delete(subscriptionId);
  }

  /** Takes a leased delivery: its attempt starts when a slot of the worker and of its subscription is free. */
  private begin(d: ClaimedDelivery): void {
    this.reserve(d.subscription_id);
    // Leased by a planning insert that returned after the worker began to stop: given back at once.
    if (!this.running) return this.giveBack([d]);
    this.ready.push({ delivery: d, leasedAt: Date.now() });
    this.pump();
  }

  /**
   * Starts waiting deliveries, in order, while the worker has slots: each only while its subscription
   * is below its earned slots. A subscription that succeeded before but not in the last second (a map
   * written now and then) gets its earned slots at once too, but its attempts beyond the first may take
   * only half of the worker's slots in all: if such receivers began to hang meanwhile, the other half
   * still serves the rest. One whose lease would no longer outlast an attempt is given back instead.
   */
  private pump(): void {
    if (!this.running) return;
    const now = Date.now();
    const stale = now - Math.max(0, this.o.leaseMs - this.o.attemptTimeoutMs - 1_000);
    const expired: ClaimedDelivery[] = [];
    for (let i = 0; i < this.ready.length && this.active < this.o.concurrency;) {
      const { delivery: d, leasedAt } = this.ready[i]!;
      const sub = d.subscription_id;
      const active = this.activeBySub.get(sub) ?? 0;
      if (leasedAt < stale) {
        this.ready.splice(i, 1);
        expired.push(d);
      } else if (active >= this.earned(sub)) {
        i++;
      } else if (active === 0 || this.recent(sub, now - 1_000)) {
        this.ready.splice(i, 1);
        this.launch(d, false);
      } else if (this.burstActive < this.o.concurrency / 2) {
        this.ready.splice(i, 1);
        this.launch(d, true);
      } else i++;
    }
    if (expired.length) this.giveBack(expired);
  }

  /** Starts an attempt; `burst`: an attempt beyond the first of a subscription without a recent success. */
  private launch(d: ClaimedDelivery, burst: boolean): void {
    const sub = d.subscription_id;
    this.active++;
    if (burst) this.burstActive++;
    this.activeBySub.set(sub, (this.activeBySub.get(sub) ?? 0) + 1);
    this.o.metrics.inFlight.set(this.active);
    const p = this.attempt(d)
      .catch((err: unknown) => this.o.log.error({ err, subscription: sub }, 'webhook attempt failed unexpectedly'))
      .finally(() => {
        this.active--;
        if (burst) this.burstActive--;
        const n = (this.activeBySub.get(sub) ?? 1) - 1;
        if (n > 0) this.activeBySub.set(sub, n);
        else this.activeBySub.delete(sub);
        this.o.metrics.inFlight.set(this.active);
        this.release(sub);
        this.attempts.delete(p);
        // A failure takes the subscription back to one slot: what waits for it goes back to the queue
        // (claimed again one at a time), instead of waiting behind attempts that may run to the timeout.
        if (!this.streak.has(sub)) {
          const mine = this.ready.filter((w) => w.delivery.subscription_id === sub);
          if (mine.length) {
            this.ready = this.ready.filter((w) => w.delivery.subscription_id !== sub);
            this.giveBack(mine.map((w) => w.delivery));
          }
        }
        this.pump();
        // Claim again if rows may be waiting for this slot: at once for the subscription's own backlog,
        // else once a quarter of the slots is free. Queued deliveries are leased once half the slots are
        // free (and the queue may yield some: `queueLeasable`): a lease by id is quick, and leasing at
        // every quarter made twice the statements for the same rows (more of PostgreSQL's time per
        // delivery than the claims it replaces).
        if (
          this.backlogged.has(sub) ||
          (this.unleased && this.held <= this.capacity - this.o.concurrency / 4) ||
          (this.queued.size > 0 && this.held <= this.capacity - this.o.concurrency / 2 && (this.queueLeasable || this.queued.has(sub)))
        )
          this.wake();
      });
    this.attempts.add(p);
  }

  /** Ends the leases of deliveries taken out of `ready` unattempted; they are due again at once. */
  private giveBack(deliveries: readonly ClaimedDelivery[]): void {
    for (const d of deliveries) {
      this.release(d.subscription_id);
      this.backlogged.add(d.subscription_id);
    }
    const done = this.deliveries
      .release(
        this.o.db,
        this.owner,
        deliveries.map((d) => d.id),
      )
      .catch((err: unknown) =>
        this.o.log.warn({ err, deliveries: deliveries.length }, 'giving back leased webhook deliveries failed; they are taken over when their leases end'),
      )
      .finally(() => {
        this.givingBack.delete(done);
        this.wake();
      });
    this.givingBack.add(done);
  }

  /** Gives the leases of deliveries that did not start back (the worker is stopping). */
  private async releaseReady(): Promise<void> {
    const waiting = this.ready;
    this.ready = [];
    if (waiting.length) this.giveBack(waiting.map((w) => w.delivery));
    await Promise.allSettled([...this.givingBack]);
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    // Counted when the delivery was leased (delivery.repository.ts): this attempt's number.
    const attempt = d.attempts;
    const attemptedAt = new Date();
    const result = await this.o.sender.send({
      url: d.url,
      secret: this.secret(d.secret_encrypted),
      body: d.body,
      eventId: d.event_id,
      eventType: d.event_type,
      attempt,
    });
    const m = this.o.metrics;
    m.deliveries.inc({ outcome: result.ok ? 'success' : 'failure', status_class: result.status === null ? 'none' : `${Math.floor(result.status / 100)}xx` });
    m.attemptDuration.observe(result.durationMs / 1000);
    if (result.ok) {
      this.lastOk.set(d.subscription_id, Date.now());
      if (this.streak.size < 100_000 || this.streak.has(d.subscription_id))
        this.streak.set(d.subscription_id, Math.min(this.o.perSubscription, (this.streak.get(d.subscription_id) ?? 0) + 1));
    } else this.streak.delete(d.subscription_id);
    let outcome: DeliveryOutcome;
    if (result.ok) {
      m.eventToDelivered.observe(Math.max(0, Date.now() - d.event_at_ms) / 1000);
      outcome = { id: d.id, state: 'delivered', attempts: attempt, nextAttemptAtMs: null, lastStatus: result.status, lastError: null };
    } else if (result.gone) {
      outcome = { id: d.id, state: 'failed', attempts: attempt, nextAttemptAtMs: null, lastStatus: result.status, lastError: result.error };
    } else {
      const wait = nextWaitMs(attempt, { waits: this.o.retryWaitsMs, retryAfterMs: result.retryAfterMs });
      outcome =
        wait === null
          ? { id: d.id, state: 'failed', attempts: attempt, nextAttemptAtMs: null, lastStatus: result.status, lastError: result.error }
          : { id: d.id, state: 'pending', attempts: attempt, nextAttemptAtMs: Date.now() + wait, lastStatus: result.status, lastError: result.error };
    }
    this.finished.push({ delivery: d, attempt, attemptedAt, result, outcome });
    if (this.finished.length >= FLUSH_MAX) this.flushAlarm.ring();
  }

  private secret(encrypted: string): string {
    let s = this.secrets.get(encrypted);
    if (s === undefined) {
      s = this.o.box.decrypt(encrypted);
      if (this.secrets.size > 10_000) this.secrets.clear();
      this.secrets.set(encrypted, s);
    }
    return s;
  }

  // --- recording outcomes, in batches ---

  private async flushLoop(): Promise<void> {
    for (;;) {
      await this.flushAlarm.sleep(FLUSH_EVERY_MS);
      if (this.finished.length) {
        const batch = this.finished;
        this.finished = [];
        try {
          await this.record(batch);
        } catch (err) {
          // Kept for the next round; if this worker dies first, the leases expire and the attempts are made again.
          this.o.log.error({ err, attempts: batch.length }, 'recording webhook attempts failed; retrying');
          this.finished = batch.concat(this.finished);
          await sleep(500);
        }
      }
      if (!this.running && this.finished.length === 0 && this.attempts.size === 0) return;
    }
  }

  private async record(batch: readonly Finished[]): Promise<void> {
    const log: AttemptLogEntry[] = batch.map((f) => ({
      subscriptionId: f.delivery.subscription_id,
      eventId: f.delivery.event_id,
      eventType: f.delivery.event_type,
      attempt: f.attempt,
      attemptedAt: f.attemptedAt,
      result: f.result,
      nextAttemptAt: f.outcome.nextAttemptAtMs === null ? null : new Date(f.outcome.nextAttemptAtMs),
    }));
    const succeeded = [...new Set(batch.filter((f) => f.result.ok).map((f) => f.delivery.subscription_id))];
    // The usual batch: successes only, recorded in one statement (no transaction round trips).
    if (batch.every((f) => f.result.ok)) {
      await this.deliveries.recordSuccesses(
        this.o.db,
        this.owner,
        batch.map((f) => f.outcome),
        log,
        succeeded,
      );
      return;
    }
    const lastErrors = new Map<string, string>();
    for (const f of batch) if (!f.result.ok && f.result.error) lastErrors.set(f.delivery.subscription_id, f.result.error);
    const disabled: { id: string; reason: 'gone' | 'failures' }[] = [];
    await this.o.db.transaction(async (tx) => {
      await this.deliveries.finish(
        tx,
        this.owner,
        batch.map((f) => f.outcome),
      );
      await this.deliveries.logAttempts(tx, log);
      await this.subs.recordSuccess(tx, succeeded);
      for (const [id, error] of lastErrors) await this.subs.recordError(tx, id, error);
      for (const f of batch) {
        const subId = f.delivery.subscription_id;
        if (f.result.gone) {
          if (await this.subs.disable(tx, subId, 'disabled: the receiver answered 410 Gone')) disabled.push({ id: subId, reason: 'gone' });
        } else if (f.outcome.state === 'failed') {
          const error = `disabled after ${this.o.disableAfter} consecutive events failed every attempt; last: ${f.result.error ?? 'failure'}`;
          if (await this.subs.recordExhausted(tx, subId, f.result.error ?? 'failure', this.o.disableAfter)) {
            await this.subs.recordError(tx, subId, error);
            disabled.push({ id: subId, reason: 'failures' });
          }
        }
      }
      for (const d of disabled) {
        await this.deliveries.dropPending(tx, d.id);
        const mapId = batch.find((f) => f.delivery.subscription_id === d.id)!.delivery.map_id;
        await this.subs.bumpMap(tx, mapId);
      }
    });
    for (const d of disabled) {
      this.o.metrics.disabled.inc({ reason: d.reason });
      this.o.log.warn({ subscription: d.id, reason: d.reason }, 'webhook subscription disabled');
    }
  }

  // --- upkeep ---

  private async sweep(): Promise<void> {
    try {
      const n = await this.deliveries.prune(this.o.db, this.o.attemptsRetentionDays);
      if (n) this.o.log.info({ deleted: n }, 'pruned the webhook attempt log');
    } catch (err) {
      this.o.log.warn({ err }, 'pruning the webhook attempt log failed');
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
