/** A worker's attempts in flight (src/webhooks/in-flight.ts): counts, each map's cap, maps in turn. */
import { describe, expect, it } from 'vitest';
import { InFlight } from '../../src/webhooks/in-flight.js';

interface Item {
  map: string;
  sub: string;
}

/** Starts in turns with `slots` free; returns the items started, in start order. */
function run(f: InFlight, items: Item[], slots: number, skip = new Set<number>(), refuse: (i: Item) => boolean = () => false): Item[] {
  const order: Item[] = [];
  const limit = f.total + slots;
  f.startInTurns(items, skip, {
    mapOf: (i) => i.map,
    workerHasRoom: () => f.total < limit,
    tryStart: (i) => {
      if (refuse(i)) return false;
      f.begin(i.sub, i.map, false);
      order.push(i);
      return true;
    },
  });
  return order;
}

describe('InFlight', () => {
  it('counts attempts in all, per subscription, per map and as bursts', () => {
    const f = new InFlight(4);
    f.begin('s1', 'm1', false);
    f.begin('s1', 'm1', true);
    f.begin('s2', 'm2', false);
    expect([f.total, f.bursts, f.ofSubscription('s1'), f.active('m1'), f.active('m2')]).toEqual([3, 1, 2, 2, 1]);
    f.end('s1', 'm1', true);
    f.end('s2', 'm2', false);
    expect([f.total, f.bursts, f.ofSubscription('s1'), f.ofSubscription('s2'), f.active('m2')]).toEqual([1, 0, 1, 0, 0]);
  });

  it('starts maps in turn: a map with many deliveries waiting first does not keep the next map from its start', () => {
    const f = new InFlight(100);
    const items: Item[] = [...Array.from({ length: 6 }, () => ({ map: 'busy', sub: 'b' })), { map: 'quiet', sub: 'q' }, { map: 'other', sub: 'o' }];
    const order = run(f, items, 4).map((i) => i.map);
    expect(order).toEqual(['busy', 'quiet', 'other', 'busy']);
  });

  it('holds each map to its cap, counting what it has in flight already, and leaves the rest of the slots to others', () => {
    const f = new InFlight(3);
    f.begin('b', 'busy', false);
    const items: Item[] = [...Array.from({ length: 10 }, () => ({ map: 'busy', sub: 'b' })), { map: 'quiet', sub: 'q' }];
    const started = run(f, items, 8);
    expect(started.filter((i) => i.map === 'busy')).toHaveLength(2);
    expect(started.filter((i) => i.map === 'quiet')).toHaveLength(1);
    expect(f.active('busy')).toBe(3);
    expect(f.hasRoom('busy')).toBe(false);
    // Full: nothing of the map starts however many slots are free.
    expect(run(f, items, 8).filter((i) => i.map === 'busy')).toHaveLength(0);
  });

  it('skips the items it is told to, and moves past an item it may not start to the next of the same map', () => {
    const f = new InFlight(10);
    const items: Item[] = [
      { map: 'm', sub: 'full' },
      { map: 'm', sub: 'ok' },
      { map: 'n', sub: 'n1' },
    ];
    const order = run(f, items, 5, new Set([2]), (i) => i.sub === 'full');
    expect(order.map((i) => i.sub)).toEqual(['ok']);
  });
});
