/** A subscription's slots in one worker (src/webhooks/subscription-slots.ts): slow start, recency, holds. */
import { describe, expect, it } from 'vitest';
import { SubscriptionSlots } from '../../src/webhooks/subscription-slots.js';

describe('SubscriptionSlots', () => {
  const NOW = 1_000_000;

  it('starts a subscription at one slot and adds one per success in a row, up to the per-subscription limit', () => {
    const slots = new SubscriptionSlots(4, 3);
    expect(slots.earned('a')).toBe(1);
    expect(slots.allowance('a', NOW - 1_000)).toBe(1);
    for (const want of [2, 3, 4, 4, 4]) {
      slots.succeeded('a', NOW);
      expect(slots.earned('a')).toBe(want);
    }
    expect(slots.allowance('a', NOW - 1_000)).toBe(4);
    expect(slots.earned('b')).toBe(1);
  });

  it('does not grow a subscription on successes that took the slow threshold or longer: back to one slot', () => {
    const slots = new SubscriptionSlots(8, 3, 5_000);
    slots.succeeded('a', NOW, 100);
    slots.succeeded('a', NOW, 4_999);
    expect(slots.earned('a')).toBe(3);
    // A 2xx just under the timeout, or one whose body ran to the deadline.
    slots.succeeded('a', NOW, 5_000);
    expect(slots.hasStreak('a')).toBe(false);
    expect(slots.earned('a')).toBe(1);
    for (let i = 0; i < 5; i++) slots.succeeded('a', NOW, 9_999);
    expect(slots.earned('a')).toBe(1);
    expect(slots.allowance('a', NOW - 1_000)).toBe(1);
    expect(slots.queueable('a')).toBe(1);
  });

  it('takes a subscription back to one slot after a failure', () => {
    const slots = new SubscriptionSlots(8, 3);
    for (let i = 0; i < 5; i++) slots.succeeded('a', NOW);
    expect(slots.hasStreak('a')).toBe(true);
    slots.failed('a');
    expect(slots.hasStreak('a')).toBe(false);
    expect(slots.earned('a')).toBe(1);
    expect(slots.allowance('a', NOW - 1_000)).toBe(1);
  });

  it('counts successes in a row only while the last is recent: a quiet subscription is allowed one slot', () => {
    const slots = new SubscriptionSlots(8, 3);
    for (let i = 0; i < 5; i++) slots.succeeded('a', NOW);
    expect(slots.recent('a', NOW - 1_000)).toBe(true);
    expect(slots.allowance('a', NOW - 1_000)).toBe(6);
    // A second later the same successes no longer count for new slots.
    expect(slots.recent('a', NOW + 1)).toBe(false);
    expect(slots.allowance('a', NOW + 1)).toBe(1);
    expect(slots.earned('a')).toBe(6);
  });

  it('subtracts what a subscription holds from its allowance, and counts holds in all and per subscription', () => {
    const slots = new SubscriptionSlots(4, 3);
    slots.succeeded('a', NOW);
    slots.reserve('a');
    slots.reserve('a');
    slots.reserve('b');
    expect(slots.held).toBe(3);
    expect(slots.heldBy('a')).toBe(2);
    expect(slots.allowance('a', NOW - 1_000)).toBe(0);
    expect(slots.allowance('b', NOW - 1_000)).toBe(0);
    slots.release('a');
    slots.release('b');
    expect(slots.held).toBe(1);
    expect(slots.heldBy('b')).toBe(0);
    expect(slots.allowance('a', NOW - 1_000)).toBe(1);
    expect(slots.allowances(NOW - 1_000)).toEqual(new Map([['a', 1]]));
  });

  it('lets planning lease more of a subscription with a success in a row (its burst queue), none extra before', () => {
    const slots = new SubscriptionSlots(4, 3);
    expect(slots.queueable('a')).toBe(1);
    slots.succeeded('a', NOW);
    expect(slots.queueable('a')).toBe(2 + 3 * 4);
    slots.failed('a');
    expect(slots.queueable('a')).toBe(1);
  });

  it("holds a subscription from the moment a receiver's Retry-After is known until it runs out, never shortening a hold", () => {
    const slots = new SubscriptionSlots(4, 3);
    expect(slots.isHeld('a', 1_000)).toBe(false);
    slots.hold('a', 3_000);
    slots.hold('a', 2_000);
    expect(slots.isHeld('a', 2_999)).toBe(true);
    expect(slots.isHeld('b', 2_000)).toBe(false);
    expect(slots.isHeld('a', 3_000)).toBe(false);
  });
});
