/**
 * The per-process budget of replay bytes: pages are let through while they fit, one page always goes
 * when nothing is held (an event larger than the budget still replays), and waiting resumes are served
 * first come, first served as bytes are given back.
 */
import { describe, expect, it } from 'vitest';
import { BackfillBudget } from '../../src/stream/backfill.js';

const settled = () => new Promise((r) => setImmediate(r));

describe('BackfillBudget', () => {
  it('lets pages through while they fit and holds the next until bytes are given back, in order', async () => {
    const b = new BackfillBudget(1000);
    await b.take(600);
    await b.take(400);
    expect(b.inUse()).toBe(1000);
    const order: string[] = [];
    const first = b.take(300).then(() => order.push('first'));
    const second = b.take(100).then(() => order.push('second'));
    await settled();
    expect(order).toEqual([]);
    b.give(400);
    await first;
    await second;
    expect(order).toEqual(['first', 'second']);
    expect(b.inUse()).toBe(1000);
  });

  it('lets one page larger than the whole budget through when nothing else is held', async () => {
    const b = new BackfillBudget(1000);
    await b.take(5000);
    expect(b.inUse()).toBe(5000);
    let granted = false;
    const next = b.take(10).then(() => (granted = true));
    await settled();
    expect(granted).toBe(false);
    b.give(5000);
    await next;
    expect(b.inUse()).toBe(10);
  });

  it('never lets a later small page pass an earlier waiting one', async () => {
    const b = new BackfillBudget(1000);
    await b.take(900);
    const order: string[] = [];
    const big = b.take(500).then(() => order.push('big'));
    // 50 would fit, but the 500 came first.
    const small = b.take(50).then(() => order.push('small'));
    await settled();
    expect(order).toEqual([]);
    b.give(900);
    await Promise.all([big, small]);
    expect(order).toEqual(['big', 'small']);
  });
});
