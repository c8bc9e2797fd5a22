/**
 * A worker's attempts in flight: in all, per subscription, per map, and those started as bursts (beyond
 * the first of a subscription without a recent success; delivery-dispatcher.ts).
 *
 * Each map's share of the worker's slots: its attempts in flight (all its subscriptions together) are
 * capped at WEBHOOK_CONCURRENCY_PER_MAP, and waiting deliveries start map by map in turn (one start per
 * map a round, maps in the order their first delivery waits, each map's deliveries in their order). One
 * map's receivers, however slow or however many deliveries they have waiting, so leave the other slots
 * to the other maps (decision 0013).
 */
export class InFlight {
  /** Attempts in flight in all. */
  total = 0;
  /** Attempts in flight started as bursts. */
  bursts = 0;
  private readonly bySub = new Map<string, number>();
  private readonly activeByMap = new Map<string, number>();

  constructor(private readonly perMap: number) {}

  /** Attempts of the map in flight. */
  active(map: string): number {
    return this.activeByMap.get(map) ?? 0;
  }

  /** Attempts of the subscription in flight. */
  ofSubscription(sub: string): number {
    return this.bySub.get(sub) ?? 0;
  }

  /** Whether the map may start one more attempt. */
  hasRoom(map: string): boolean {
    return this.active(map) < this.perMap;
  }

  begin(sub: string, map: string, burst: boolean): void {
    this.total++;
    if (burst) this.bursts++;
    this.bySub.set(sub, this.ofSubscription(sub) + 1);
    this.activeByMap.set(map, this.active(map) + 1);
  }

  end(sub: string, map: string, burst: boolean): void {
    this.total--;
    if (burst) this.bursts--;
    decrement(this.bySub, sub);
    decrement(this.activeByMap, map);
  }

  /**
   * Starts waiting items in map turns while `workerHasRoom()`: per turn, each map below its cap starts its
   * first item that `tryStart` accepts (which begins the attempt, counted here through `begin`). Items in
   * `skip` are left alone. Returns the indexes of the items started. An item `tryStart` refused is not
   * offered again in the same call: what it depends on (attempts in flight) only grows meanwhile.
   */
  startInTurns<T>(
    items: readonly T[],
    skip: ReadonlySet<number>,
    o: { mapOf(item: T): string; workerHasRoom(): boolean; tryStart(item: T): boolean },
  ): Set<number> {
    const started = new Set<number>();
    // Per map below its cap, the indexes of its waiting items, in order, and where its scan stands.
    const byMap = new Map<string, { list: number[]; next: number }>();
    for (const [i, item] of items.entries()) {
      if (skip.has(i)) continue;
      const map = o.mapOf(item);
      if (!this.hasRoom(map)) continue;
      let waiting = byMap.get(map);
      if (!waiting) byMap.set(map, (waiting = { list: [], next: 0 }));
      waiting.list.push(i);
    }
    while (byMap.size > 0 && o.workerHasRoom()) {
      for (const [map, waiting] of byMap) {
        if (!o.workerHasRoom()) break;
        let began = false;
        while (waiting.next < waiting.list.length && !began) {
          const i = waiting.list[waiting.next++]!;
          if (!o.tryStart(items[i]!)) continue;
          started.add(i);
          began = true;
        }
        if (!began || waiting.next >= waiting.list.length || !this.hasRoom(map)) byMap.delete(map);
      }
    }
    return started;
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 1) - 1;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
