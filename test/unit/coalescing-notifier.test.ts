import { describe, expect, it } from 'vitest';
import { CoalescingNotifier } from '../../src/events/outbox.js';

/** A send whose calls stay pending until the test settles them. */
function controlledSend() {
  const pending: { resolve: () => void; reject: (e: Error) => void }[] = [];
  let calls = 0;
  const send = () =>
    new Promise<void>((resolve, reject) => {
      calls++;
      pending.push({ resolve, reject });
    });
  return { send, pending, calls: () => calls };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('CoalescingNotifier', () => {
  it('sends at once when idle', async () => {
    const s = controlledSend();
    new CoalescingNotifier(s.send).notify();
    await tick();
    expect(s.calls()).toBe(1);
  });

  it('collapses every call made while a send is in flight into one more send after it', async () => {
    const s = controlledSend();
    const n = new CoalescingNotifier(s.send);
    n.notify();
    for (let i = 0; i < 50; i++) n.notify();
    await tick();
    expect(s.calls()).toBe(1);
    s.pending.shift()!.resolve();
    await tick();
    expect(s.calls()).toBe(2);
    s.pending.shift()!.resolve();
    await tick();
    expect(s.calls()).toBe(2);
  });

  it('never loses the last call of a burst: a call during the final send triggers another', async () => {
    const s = controlledSend();
    const n = new CoalescingNotifier(s.send);
    n.notify();
    await tick();
    n.notify();
    s.pending.shift()!.resolve();
    await tick();
    expect(s.calls()).toBe(2);
    n.notify();
    s.pending.shift()!.resolve();
    await tick();
    expect(s.calls()).toBe(3);
  });

  it('drops a failed send and keeps working', async () => {
    const s = controlledSend();
    const n = new CoalescingNotifier(s.send);
    n.notify();
    await tick();
    s.pending.shift()!.reject(new Error('connection lost'));
    await tick();
    n.notify();
    await tick();
    expect(s.calls()).toBe(2);
  });
});
