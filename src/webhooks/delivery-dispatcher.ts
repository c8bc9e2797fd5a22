import type { Db } from '../db/db.js';
import type { Logger } from '../common/log.js';
import { Alarm } from '../events/alarm.js';
import type { ClaimedDelivery, DeliveryRepository, PlannedDelivery } from './delivery.repository.js';
import { PlannedQueue } from './planned-queue.js';
import type { PlanningSink } from './delivery-planner.js';
import { SubscriptionSlots } from './subscription-slots.js';
import { InFlight } from './in-flight.js';
import type { WebhookMetrics } from './webhook.metrics.js';
import { sleep } from './sleep.js';

/**
 * Leased deliveries a worker may hold beyond its slots, as a share of WEBHOOK_CONCURRENCY: a slot that
 * frees up starts the next attempt from this buffer at once, instead of waiting for a lease round trip
 * (which takes longer than many attempts do on a busy machine). The buffer counts toward each
 * subscription's slots, so a hanging receiver still holds at most its one. Twice the slots, so that
 * queued deliveries can be leased in batches of half the slots and the slots still never run dry while
 * a lease is under way.
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

interface Waiting {
  delivery: ClaimedDelivery;
  /** When it was leased (a little after the lease began). */
  leasedAt: number;
}

export interface DeliveryDispatcherOptions {
  db: Db;
  deliveries: DeliveryRepository;
  metrics: WebhookMetrics;
  log: Logger;
  owner: string;
  /** Attempts in flight in this worker. */
  concurrency: number;
  /** Attempts in flight per subscription in this worker. */
  perSubscription: number;
  /** Attempts in flight per map in this worker (its subscriptions together). */
  perMap: number;
  leaseMs: number;
  /** The sender's timeout: a leased delivery starts only while its lease outlasts an attempt by a second. */
  attemptTimeoutMs: number;
  /** Safety poll for due retries and for deliveries queued by other workers. */
  pollMs: number;
  running: () => boolean;
  /** Makes one attempt of a leased delivery (send and hand the outcome on); never rejects on a failed send. */
  attempt: (d: ClaimedDelivery) => Promise<void>;
}

/**
 * Due deliveries → attempts, within the worker's and each subscription's concurrency (`SubscriptionSlots`).
 * Deliveries come leased from planning, from a lease by id of the rows planning queued without a slot,
 * or from a claim (candidates read without locks, leased by one update that checks them under the row lock: retries coming due, other workers' rows, rows left to
 * claims). Leased deliveries wait in `ready` for a slot; one whose lease would no longer outlast an
 * attempt, or whose subscription just failed, is given back.
 */
export class DeliveryDispatcher implements PlanningSink {
  readonly slots: SubscriptionSlots;
  /** Attempts in flight (awaited on stop). */
  readonly attempts = new Set<Promise<void>>();
  /** Leases being given back (awaited on stop). */
  readonly givingBack = new Set<Promise<void>>();
  private readonly alarm = new Alarm();
  /**
   * Attempts in flight: at most WEBHOOK_CONCURRENCY in all, per subscription its earned slots, per map its
   * share; those beyond the first of subscriptions without a recent success (bursts) at most half the slots.
   */
  private readonly inFlight: InFlight;
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

  constructor(private readonly o: DeliveryDispatcherOptions) {
    // An attempt that took half the timeout or more does not grow its subscription's share (subscription-slots.ts).
    this.slots = new SubscriptionSlots(o.perSubscription, QUEUE_PER_SLOT, o.attemptTimeoutMs / 2);
    this.inFlight = new InFlight(o.perMap);
    this.capacity = o.concurrency + Math.ceil(o.concurrency * PREFETCH_SHARE);
  }

  wake(): void {
    this.wanted = true;
    this.alarm.ring();
  }

  /** Stopping: queued rows were never leased, so other workers (or the next start) claim them. */
  forgetQueued(): void {
    this.queued.clear();
    this.o.metrics.queued.set(0);
  }

  // --- planning's side (PlanningSink) ---

  /**
   * The rows (by index) this worker leases as they are planned, while it holds fewer than its capacity:
   * per subscription up to what it may queue (`queueable`). When each starts is the buffer's business
   * (`pump`).
   */
  reserveForPlanning(rows: readonly PlannedDelivery[]): Set<number> {
    const lease = new Set<number>();
    let free = this.capacity - this.slots.held;
    for (const [i, r] of rows.entries()) {
      if (free <= 0) break;
      const id = r.subscriptionId;
      if (this.slots.heldBy(id) >= this.slots.queueable(id)) continue;
      free--;
      lease.add(i);
      this.slots.reserve(id);
    }
    return lease;
  }

  releaseReservations(rows: readonly PlannedDelivery[], lease: ReadonlySet<number>): void {
    for (const i of lease) this.slots.release(rows[i]!.subscriptionId);
    if (lease.size && this.queued.size) this.queueLeasable = true;
  }

  take(leased: readonly ClaimedDelivery[]): void {
    for (const d of leased) this.begin(d);
  }

  queue(queued: readonly { id: string; subscriptionId: string }[]): void {
    // Queued by id for the next free slots; what does not fit (or comes while stopping) is left to claims.
    this.queueLeasable = true;
    for (const q of queued) {
      if (this.o.running() && this.queued.push(q.subscriptionId, q.id)) continue;
      this.backlogged.add(q.subscriptionId);
      this.plannedDuringClaim?.add(q.subscriptionId);
    }
    this.o.metrics.queued.set(this.queued.size);
    this.wake();
  }

  // --- leasing: queued rows by id, and claims ---

  async loop(): Promise<void> {
    while (this.o.running()) {
      this.wanted = false;
      let full = false;
      try {
        let free = this.capacity - this.slots.held;
        if (free > 0 && this.queued.size > 0) {
          full = await this.leaseQueued(free);
          if (!this.o.running()) return;
          free = this.capacity - this.slots.held;
        }
        // A claim looks for rows this worker has not queued (retries coming due, other workers' rows, rows
        // left to claims) when slots are still free after the queue; while the queue holds some, at most
        // once a poll interval, or claims would lease the queued rows first and leave every lease by id empty.
        if (free > 0 && (this.queued.size === 0 || Date.now() - this.lastClaimAt >= this.o.pollMs)) {
          this.lastClaimAt = Date.now();
          const allowances = this.slots.allowances(Date.now() - 1_000);
          const planned = (this.plannedDuringClaim = new Set());
          let claimed: ClaimedDelivery[];
          try {
            claimed = await this.o.deliveries.claim(this.o.db, this.o.owner, this.o.leaseMs, free, 1, allowances);
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
      if (!this.o.running()) return;
      // More may be due at once when the claim was full and slots free up; else wait for news.
      if (!this.wanted && !(full && this.slots.held < this.capacity)) await this.alarm.sleep(this.o.pollMs);
    }
  }

  /**
   * Leases up to `free` queued deliveries by id, within each subscription's allowance, and takes them.
   * True when it took all it asked for (more may be waiting). On an error the ids are left to claims.
   */
  private async leaseQueued(free: number): Promise<boolean> {
    const since = Date.now() - 1_000;
    const picked = this.queued.take(free, (id) => this.slots.allowance(id, since));
    this.queueLeasable = picked.length === free;
    if (picked.length === 0) return false;
    try {
      let leased: ClaimedDelivery[];
      try {
        leased = await this.o.deliveries.leaseIds(
          this.o.db,
          this.o.owner,
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
    if (!this.o.running()) {
      await this.o.deliveries.release(
        this.o.db,
        this.o.owner,
        leased.map((d) => d.id),
      );
      return false;
    }
    this.take(leased);
    return true;
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

  // --- the buffer: leased deliveries → attempts ---

  /** Takes a leased delivery: its attempt starts when a slot of the worker and of its subscription is free. */
  private begin(d: ClaimedDelivery): void {
    this.slots.reserve(d.subscription_id);
    // Leased by a planning insert that returned after the worker began to stop: given back at once.
    if (!this.o.running()) return this.giveBack([d]);
    this.ready.push({ delivery: d, leasedAt: Date.now() });
    this.pump();
  }

  /**
   * Starts waiting deliveries while the worker has slots, maps in turn and each within its share
   * (in-flight.ts), each map's deliveries in the order leased. A delivery starts only while its
   * subscription is below its earned slots. A subscription that succeeded before but not in the last second (a map written now and then) gets its earned slots at once too, but
   * its attempts beyond the first may take only half of the worker's slots in all: if such receivers began
   * to hang meanwhile, the other half still serves the rest. One whose lease would no longer outlast an
   * attempt, or whose subscription a Retry-After holds, is given back instead.
   */
  private pump(): void {
    if (!this.o.running() || this.inFlight.total >= this.o.concurrency) return;
    const now = Date.now();
    const stale = now - Math.max(0, this.o.leaseMs - this.o.attemptTimeoutMs - 1_000);
    const expired: ClaimedDelivery[] = [];
    const leave = new Set<number>();
    for (const [i, w] of this.ready.entries()) {
      if (w.leasedAt >= stale && !this.slots.isHeld(w.delivery.subscription_id, now)) continue;
      expired.push(w.delivery);
      leave.add(i);
    }
    const started = this.inFlight.startInTurns(this.ready, leave, {
      mapOf: (w) => w.delivery.map_id,
      workerHasRoom: () => this.inFlight.total < this.o.concurrency,
      tryStart: (w) => {
        const burst = this.startable(w.delivery, now);
        if (burst === undefined) return false;
        this.launch(w.delivery, burst);
        return true;
      },
    });
    for (const i of started) leave.add(i);
    if (leave.size) this.ready = this.ready.filter((_, i) => !leave.has(i));
    if (expired.length) this.giveBack(expired);
  }

  /** Whether a waiting delivery may start now: undefined if not, else whether it starts as a burst attempt. */
  private startable(d: ClaimedDelivery, now: number): boolean | undefined {
    const sub = d.subscription_id;
    const active = this.inFlight.ofSubscription(sub);
    if (active >= this.slots.earned(sub)) return undefined;
    if (active === 0 || this.slots.recent(sub, now - 1_000)) return false;
    return this.inFlight.bursts < this.o.concurrency / 2 ? true : undefined;
  }

  /** Starts an attempt; `burst`: an attempt beyond the first of a subscription without a recent success. */
  private launch(d: ClaimedDelivery, burst: boolean): void {
    const sub = d.subscription_id;
    const map = d.map_id;
    this.inFlight.begin(sub, map, burst);
    this.o.metrics.inFlight.set(this.inFlight.total);
    const p = this.o
      .attempt(d)
      .catch((err: unknown) => this.o.log.error({ err, subscription: sub }, 'webhook attempt failed unexpectedly'))
      .finally(() => {
        this.inFlight.end(sub, map, burst);
        this.o.metrics.inFlight.set(this.inFlight.total);
        this.slots.release(sub);
        this.attempts.delete(p);
        // A failure takes the subscription back to one slot: what waits for it goes back to the queue
        // (claimed again one at a time), instead of waiting behind attempts that may run to the timeout.
        if (!this.slots.hasStreak(sub)) {
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
        const held = this.slots.held;
        if (
          this.backlogged.has(sub) ||
          (this.unleased && held <= this.capacity - this.o.concurrency / 4) ||
          (this.queued.size > 0 && held <= this.capacity - this.o.concurrency / 2 && (this.queueLeasable || this.queued.has(sub)))
        )
          this.wake();
      });
    this.attempts.add(p);
  }

  /** Ends the leases of deliveries taken out of `ready` unattempted; they are due again at once. */
  private giveBack(deliveries: readonly ClaimedDelivery[]): void {
    for (const d of deliveries) {
      this.slots.release(d.subscription_id);
      this.backlogged.add(d.subscription_id);
    }
    const done = this.o.deliveries
      .release(
        this.o.db,
        this.o.owner,
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
  async releaseReady(): Promise<void> {
    const waiting = this.ready;
    this.ready = [];
    if (waiting.length) this.giveBack(waiting.map((w) => w.delivery));
    await Promise.allSettled([...this.givingBack]);
  }
}
