/**
 * Deliveries a worker planned but could not lease as it planned them (its slots were taken): their row
 * ids, per subscription in planning order. When slots free up the worker leases them by id, which costs
 * PostgreSQL a primary-key update per row instead of a claim's search of every subscription's pending
 * rows. The rows stay unleased in the meantime, so other workers' claims may take them; an id whose row
 * was taken, finished or switched off is simply not leased, and dropped.
 */
export interface QueuedDelivery {
  id: string;
  subscriptionId: string;
}

interface SubscriptionIds {
  ids: string[];
  /** The order in which each id was queued, across subscriptions. */
  seqs: number[];
  /** Index of the oldest id still queued. */
  head: number;
}

export class PlannedQueue {
  private readonly bySubscription = new Map<string, SubscriptionIds>();
  private count = 0;
  private seq = 0;

  /** `max`: ids held in all; beyond it `push` refuses and the rows are left to claims. */
  constructor(private readonly max: number) {}

  get size(): number {
    return this.count;
  }

  has(subscriptionId: string): boolean {
    return this.bySubscription.has(subscriptionId);
  }

  /** Queues a planned row (after those queued before it); false when the queue is full. */
  push(subscriptionId: string, id: string): boolean {
    if (this.count >= this.max) return false;
    let q = this.bySubscription.get(subscriptionId);
    if (!q) this.bySubscription.set(subscriptionId, (q = { ids: [], seqs: [], head: 0 }));
    q.ids.push(id);
    q.seqs.push(this.seq++);
    this.count++;
    return true;
  }

  /**
   * Takes up to `limit` queued deliveries, first queued first, at most `allowance(subscription)` of each
   * subscription: the rule a claim follows, so a subscription's share of the worker's slots is the same
   * whichever way its rows come. `allowance` is asked once per subscription with queued ids.
   */
  take(limit: number, allowance: (subscriptionId: string) => number): QueuedDelivery[] {
    if (limit <= 0 || this.count === 0) return [];
    const candidates: (QueuedDelivery & { seq: number })[] = [];
    for (const [subscriptionId, q] of this.bySubscription) {
      const n = Math.min(allowance(subscriptionId), q.ids.length - q.head);
      for (let i = 0; i < n; i++) candidates.push({ id: q.ids[q.head + i]!, subscriptionId, seq: q.seqs[q.head + i]! });
    }
    candidates.sort((a, b) => a.seq - b.seq);
    if (candidates.length > limit) candidates.length = limit;
    // A subscription's candidates are the front of its queue in queue order, so what is taken of it is a front too.
    const perSubscription = new Map<string, number>();
    for (const t of candidates) perSubscription.set(t.subscriptionId, (perSubscription.get(t.subscriptionId) ?? 0) + 1);
    for (const [subscriptionId, n] of perSubscription) {
      const q = this.bySubscription.get(subscriptionId)!;
      q.head += n;
      this.count -= n;
      if (q.head === q.ids.length) this.bySubscription.delete(subscriptionId);
      else if (q.head > 1024 && q.head * 2 > q.ids.length) {
        q.ids = q.ids.slice(q.head);
        q.seqs = q.seqs.slice(q.head);
        q.head = 0;
      }
    }
    return candidates.map(({ id, subscriptionId }) => ({ id, subscriptionId }));
  }

  /** Forgets a subscription's queued ids (its rows are left to claims). */
  drop(subscriptionId: string): void {
    const q = this.bySubscription.get(subscriptionId);
    if (!q) return;
    this.count -= q.ids.length - q.head;
    this.bySubscription.delete(subscriptionId);
  }

  clear(): void {
    this.bySubscription.clear();
    this.count = 0;
  }
}
