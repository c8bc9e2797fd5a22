/**
 * The operator's work queue: one run per key however often it is added, never two runs of a key at
 * once, per-key exponential backoff that a success resets.
 */
import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../src/operator/work-queue.js';

describe('WorkQueue', () => {
  it('runs a key added three times once, in first-added order with other keys', async () => {
    const depths: number[] = [];
    const q = new WorkQueue({ onDepth: (d) => depths.push(d) });
    q.add('ns/a');
    q.add('ns/b');
    q.add('ns/a');
    q.add('ns/a');
    expect(q.depth).toBe(2);
    expect(await q.get()).toBe('ns/a');
    expect(await q.get()).toBe('ns/b');
    expect(q.depth).toBe(0);
    expect(depths).toEqual([1, 2, 1, 0]);
  });

  it('never hands out a key that is being processed; a change meanwhile runs it once more afterwards', async () => {
    const q = new WorkQueue();
    q.add('ns/a');
    const key = await q.get();
    q.add('ns/a');
    q.add('ns/a');
    expect(q.depth).toBe(0);
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await new Promise((r) => setTimeout(r, 10));
    expect(second).toBeUndefined();
    q.done(key!);
    await new Promise((r) => setTimeout(r, 0));
    expect(second).toBe('ns/a');
  });

  it('backs off a failing key exponentially up to the maximum and forgets it after a success', () => {
    const q = new WorkQueue({ baseDelayMs: 100, maxDelayMs: 1000 });
    expect([q.addRateLimited('k'), q.addRateLimited('k'), q.addRateLimited('k'), q.addRateLimited('k'), q.addRateLimited('k')]).toEqual([
      100, 200, 400, 800, 1000,
    ]);
    expect(q.addRateLimited('other')).toBe(100);
    q.forget('k');
    expect(q.failuresOf('k')).toBe(0);
    expect(q.addRateLimited('k')).toBe(100);
    q.shutDown();
  });

  it('adds a delayed key after its delay', async () => {
    const q = new WorkQueue();
    q.addAfter('ns/later', 30);
    expect(q.depth).toBe(0);
    const started = Date.now();
    expect(await q.get()).toBe('ns/later');
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('answers waiting workers with undefined when they are released or the queue shuts down', async () => {
    const q = new WorkQueue();
    const a = q.get();
    q.releaseWaiters();
    expect(await a).toBeUndefined();
    q.add('ns/a');
    q.shutDown();
    expect(await q.get()).toBeUndefined();
    // Refused after shutdown: only ns/a is left.
    q.add('ns/b');
    expect(q.depth).toBe(1);
  });

  it("passes every retry through one token bucket shared by all keys, beside each key's own backoff", () => {
    let t = 0;
    // 10 retries a second, bursts of 3: the fourth retry of fresh keys waits for a token.
    const q = new WorkQueue({ baseDelayMs: 1, qps: 10, burst: 3, now: () => t });
    expect(['a', 'b', 'c', 'd', 'e'].map((k) => q.addRateLimited(k))).toEqual([1, 1, 1, 100, 200]);
    // After a second the bucket has refilled (to its burst, no more).
    t += 1000;
    expect(['f', 'g', 'h', 'i'].map((k) => q.addRateLimited(k))).toEqual([1, 1, 1, 100]);
    q.shutDown();
  });

  it("reports how long keys waited and ran, and the work in flight, as client-go's workqueue metrics do", async () => {
    let t = 1000;
    const queued: number[] = [];
    const worked: number[] = [];
    const q = new WorkQueue({ now: () => t, onQueued: (s) => queued.push(s), onWorked: (s) => worked.push(s) });
    q.add('ns/a');
    q.add('ns/b');
    t += 2000;
    const a = await q.get();
    t += 500;
    const b = await q.get();
    t += 1000;
    expect(q.inFlight()).toEqual({ unfinishedSeconds: 2.5, longestSeconds: 1.5 });
    q.done(a!);
    q.done(b!);
    expect(queued).toEqual([2, 2.5]);
    expect(worked).toEqual([1.5, 1]);
    expect(q.inFlight()).toEqual({ unfinishedSeconds: 0, longestSeconds: 0 });
  });
});
