/** What an attempt means for its delivery (src/webhooks/outcome-recorder.ts `outcomeOf`). */
import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../src/webhooks/outcome-recorder.js';
import type { ClaimedDelivery } from '../../src/webhooks/delivery.repository.js';
import type { AttemptResult } from '../../src/webhooks/sender.js';

const D: ClaimedDelivery = {
  id: '42',
  subscription_id: 's',
  map_id: 'm',
  event_id: '01JEVENT',
  event_type: 'map_kill',
  event_at_ms: 0,
  body: '{}',
  attempts: 0,
  sequence: 7,
  recovered: false,
  url: 'https://example.com/hook',
  secret_encrypted: 'x',
};
const result = (r: Partial<AttemptResult>): AttemptResult => ({ ok: false, gone: false, status: null, error: null, errorClass: null, durationMs: 5, ...r });
const WAITS = [1_000, 5_000];
const NOW = 1_700_000_000_000;

describe('outcomeOf', () => {
  it('records a success as delivered, with its status and no error or next attempt', () => {
    expect(outcomeOf(D, 1, result({ ok: true, status: 204 }), WAITS, NOW)).toEqual({
      id: '42',
      state: 'delivered',
      attempts: 1,
      nextAttemptAtMs: null,
      lastStatus: 204,
      lastError: null,
    });
  });

  it('fails a delivery for good on 410 Gone, whatever attempts are left', () => {
    expect(outcomeOf(D, 1, result({ gone: true, status: 410, error: 'HTTP 410' }), WAITS, NOW)).toMatchObject({
      state: 'failed',
      nextAttemptAtMs: null,
      lastStatus: 410,
    });
  });

  it('schedules the next attempt after the schedule wait (up to a fifth more), or the receiver Retry-After when it is longer, at most the longest wait', () => {
    const first = outcomeOf(D, 1, result({ status: 500, error: 'HTTP 500' }), WAITS, NOW);
    expect(first).toMatchObject({ state: 'pending', attempts: 1, lastStatus: 500, lastError: 'HTTP 500' });
    expect(first.nextAttemptAtMs).toBeGreaterThanOrEqual(NOW + 1_000);
    expect(first.nextAttemptAtMs).toBeLessThanOrEqual(NOW + 1_200);
    const second = outcomeOf(D, 2, result({ status: null, error: 'timeout' }), WAITS, NOW);
    expect(second).toMatchObject({ state: 'pending', attempts: 2, lastStatus: null });
    expect(second.nextAttemptAtMs).toBeGreaterThanOrEqual(NOW + 5_000);
    expect(second.nextAttemptAtMs).toBeLessThanOrEqual(NOW + 6_000);
    expect(outcomeOf(D, 1, result({ status: 429, error: 'HTTP 429', retryAfterMs: 3_000 }), WAITS, NOW)).toMatchObject({
      state: 'pending',
      nextAttemptAtMs: NOW + 3_000,
    });
    // The schedule's longest wait (5 s here) caps what a receiver may ask for.
    expect(outcomeOf(D, 1, result({ status: 503, error: 'HTTP 503', retryAfterMs: 30_000 }), WAITS, NOW)).toMatchObject({
      state: 'pending',
      nextAttemptAtMs: NOW + 5_000,
    });
  });

  it('fails a delivery once the schedule has no wait left', () => {
    expect(outcomeOf(D, 3, result({ status: 503, error: 'HTTP 503' }), WAITS, NOW)).toMatchObject({
      state: 'failed',
      attempts: 3,
      nextAttemptAtMs: null,
      lastError: 'HTTP 503',
    });
  });
});
