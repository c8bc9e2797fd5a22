/**
 * How many deliveries each subscription may have under way in one worker, and how many it holds.
 *
 * A subscription starts with one attempt in flight and gains one per success in a row up to
 * WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION (`perSubscription`); a failure (a timeout, a refused connection,
 * an error status) takes it back to one. Receivers that hang or refuse never hold more than one slot
 * each, so they cannot take the slots of healthy ones, even at the start. Successes in a row count only
 * while they are recent (the last newer than a second): a subscription quiet for a second starts again
 * at one slot, so a receiver that began to hang meanwhile cannot take all its slots at once (decision
 * 0004).
 *
 * A success that took `slowMs` or longer (half of WEBHOOK_TIMEOUT_MS: a receiver that answers 2xx near
 * the deadline, or whose body is still coming when the attempt ends) counts for slots as a failure: back
 * to one slot. Otherwise receivers that stall after their status would grow their share one attempt at a
 * time and hold every slot for the whole timeout (decision 0013).
 *
 * "Held" counts what the worker holds for a subscription: attempts in flight, leased deliveries waiting
 * for a slot, and rows being leased by a planning insert.
 */
export class SubscriptionSlots {
  /** Slots held in all. */
  private total = 0;
  private readonly heldBySub = new Map<string, number>();
  /** Per subscription, when its last success was. */
  private readonly lastOk = new Map<string, number>();
  /** Per subscription, successes in a row in this worker (capped at the per-subscription limit). */
  private readonly streak = new Map<string, number>();
  /**
   * Per subscription, until when (epoch ms) a receiver's Retry-After holds its attempts, known here as
   * soon as the answer came: the recorder writes the hold to PostgreSQL (which claims and leases
   * respect) a batch later, and nothing of the subscription may start in between.
   */
  private readonly holds = new Map<string, number>();

  /**
   * `perSubscription`: WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION. `queuePerSlot`: deliveries a subscription with
   * successes in a row may have waiting, per slot, so that a burst goes out without claim round trips.
   */
  constructor(
    private readonly perSubscription: number,
    private readonly queuePerSlot: number,
    private readonly slowMs = Infinity,
  ) {}

  /** Slots held in all. */
  get held(): number {
    return this.total;
  }

  heldBy(id: string): number {
    return this.heldBySub.get(id) ?? 0;
  }

  /** A receiver's Retry-After: no attempt of the subscription starts in this worker before `untilMs`. */
  hold(id: string, untilMs: number): void {
    if (untilMs > (this.holds.get(id) ?? 0)) this.holds.set(id, untilMs);
  }

  /** Whether a Retry-After holds the subscription at `now`. */
  isHeld(id: string, now: number): boolean {
    const until = this.holds.get(id);
    if (until === undefined) return false;
    if (until > now) return true;
    this.holds.delete(id);
    return false;
  }

  /** Counts a slot of the subscription as taken. */
  reserve(id: string): void {
    this.total++;
    this.heldBySub.set(id, this.heldBy(id) + 1);
  }

  release(id: string): void {
    this.total--;
    const n = (this.heldBySub.get(id) ?? 1) - 1;
    if (n > 0) this.heldBySub.set(id, n);
    else this.heldBySub.delete(id);
  }

  /**
   * An attempt of the subscription succeeded at `now` after `durationMs`: one more success in a row, unless
   * it took `slowMs` or longer (then back to one slot, as after a failure).
   */
  succeeded(id: string, now: number, durationMs = 0): void {
    if (durationMs >= this.slowMs) return this.failed(id);
    this.lastOk.set(id, now);
    // Bounded: beyond 100,000 subscriptions, new ones are not tracked (they stay at one slot).
    if (this.streak.size < 100_000 || this.streak.has(id)) this.streak.set(id, Math.min(this.perSubscription, (this.streak.get(id) ?? 0) + 1));
  }

  /** An attempt of the subscription failed: back to one slot. */
  failed(id: string): void {
    this.streak.delete(id);
  }

  /** Whether the subscription has successes in a row (however old). */
  hasStreak(id: string): boolean {
    return this.streak.has(id);
  }

  /** Whether the subscription's successes in a row count: it has some, and the last is newer than `since`. */
  recent(id: string, since: number): boolean {
    return (this.streak.get(id) ?? 0) > 0 && (this.lastOk.get(id) ?? 0) >= since;
  }

  /** Slots the subscription has earned: one, plus its successes in a row, up to the per-subscription limit. */
  earned(id: string): number {
    return Math.min(this.perSubscription, 1 + (this.streak.get(id) ?? 0));
  }

  /** Slots the subscription may still take: its earned slots while its successes are recent (newer than `since`), else one, less what it holds. */
  allowance(id: string, since: number): number {
    const allowed = this.recent(id, since) ? this.earned(id) : 1;
    return Math.max(0, allowed - this.heldBy(id));
  }

  /** `allowance` of every subscription the worker holds slots for or knows successes of, for a claim. */
  allowances(since: number): Map<string, number> {
    const left = new Map<string, number>();
    for (const id of new Set([...this.heldBySub.keys(), ...this.streak.keys()])) left.set(id, this.allowance(id, since));
    return left;
  }

  /**
   * Deliveries of the subscription a planning insert may lease: its earned slots, and once it has a
   * success in a row `queuePerSlot` times its slot limit more, waiting for slots.
   */
  queueable(id: string): number {
    return this.earned(id) + ((this.streak.get(id) ?? 0) > 0 ? this.queuePerSlot * this.perSubscription : 0);
  }
}
