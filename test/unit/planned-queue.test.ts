/** The worker's queue of planned, unleased deliveries: first queued first, each subscription within its allowance. */
import { describe, expect, it } from 'vitest';
import { PlannedQueue } from '../../src/webhooks/planned-queue.js';

const ids = (taken: { id: string }[]) => taken.map((t) => t.id);

describe('PlannedQueue', () => {
  it('hands out ids in the order they were queued, across subscriptions, up to the limit', () => {
    const q = new PlannedQueue(100);
    q.push('a', '10');
    q.push('b', '11');
    q.push('a', '12');
    q.push('c', '9');
    expect(q.size).toBe(4);
    expect(q.take(3, () => 8)).toEqual([
      { id: '10', subscriptionId: 'a' },
      { id: '11', subscriptionId: 'b' },
      { id: '12', subscriptionId: 'a' },
    ]);
    expect(q.size).toBe(1);
    expect(q.has('a')).toBe(false);
    expect(q.has('c')).toBe(true);
    expect(ids(q.take(3, () => 8))).toEqual(['9']);
    expect(q.size).toBe(0);
    expect(q.take(3, () => 8)).toEqual([]);
  });

  it('gives each subscription at most its allowance, asking once per subscription, keeping the rest queued in order', () => {
    const q = new PlannedQueue(100);
    for (let i = 0; i < 5; i++) q.push('busy', `b${i}`);
    q.push('quiet', 'q0');
    q.push('none', 'n0');
    // busy may take 2, none none at all, quiet 1.
    const allowances = new Map([
      ['busy', 2],
      ['none', 0],
      ['quiet', 1],
    ]);
    const asked: string[] = [];
    const taken = q.take(10, (id) => {
      asked.push(id);
      return allowances.get(id)!;
    });
    expect(ids(taken)).toEqual(['b0', 'b1', 'q0']);
    expect(asked.sort()).toEqual(['busy', 'none', 'quiet']);
    expect(q.size).toBe(4);
    expect(ids(q.take(10, (id) => (id === 'none' ? 0 : 3)))).toEqual(['b2', 'b3', 'b4']);
    expect(ids(q.take(10, () => 1))).toEqual(['n0']);
  });

  it('takes the front of a subscription when the limit cuts its share, and the next take goes on from there', () => {
    const q = new PlannedQueue(100);
    q.push('a', '1');
    q.push('b', '2');
    q.push('a', '3');
    q.push('a', '4');
    expect(ids(q.take(2, () => 3))).toEqual(['1', '2']);
    expect(ids(q.take(1, () => 3))).toEqual(['3']);
    expect(ids(q.take(5, () => 3))).toEqual(['4']);
  });

  it('refuses ids beyond its size, and keeps order through long runs of one subscription', () => {
    const q = new PlannedQueue(3000);
    for (let i = 0; i < 3000; i++) expect(q.push('a', String(i))).toBe(true);
    expect(q.push('a', 'x')).toBe(false);
    expect(q.push('b', 'y')).toBe(false);
    const seen: string[] = [];
    while (q.size) seen.push(...ids(q.take(7, () => 5)));
    expect(seen).toEqual(Array.from({ length: 3000 }, (_, i) => String(i)));
    expect(q.push('b', 'y')).toBe(true);
    q.push('c', 'z');
    q.drop('b');
    expect(q.size).toBe(1);
    expect(q.has('b')).toBe(false);
    expect(ids(q.take(5, () => 5))).toEqual(['z']);
    q.push('b', 'y');
    q.clear();
    expect(q.size).toBe(0);
    expect(q.has('b')).toBe(false);
  });
});
