/**
 * verifyWebhook refuses options that would switch replay protection off (or refuse everything) with a
 * RangeError, instead of accepting a delivery signed ten years ago.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../src/index.js';

const SECRET = 'whsec-test-secret-0123456789';
const BODY = JSON.stringify({ id: '01JAAAAAAAAAAAAAAAAAAAAAAA', type: 'map_updated', map_id: 'm', ts: '2016-01-01T00:00:00Z', payload: {} });
const TEN_YEARS_AGO = Math.floor(Date.now() / 1000) - 10 * 365 * 86_400;

/** The service's headers for BODY signed at `timestamp` (unix seconds). */
function signed(timestamp: number): Record<string, string> {
  const mac = createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(`${timestamp}.`).update(BODY).digest('hex');
  return { 'x-service-timestamp': String(timestamp), 'x-service-signature': `sha256=${mac}` };
}

describe('verifyWebhook toleranceSeconds', () => {
  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['a negative number', -1],
  ])('throws a RangeError naming the option for %s, even for a delivery that would otherwise pass', (_name, toleranceSeconds) => {
    for (const timestamp of [TEN_YEARS_AGO, Math.floor(Date.now() / 1000)]) {
      const run = () => verifyWebhook({ secret: SECRET, body: BODY, headers: signed(timestamp), scheme: 'service', toleranceSeconds });
      expect(run).toThrow(RangeError);
      expect(run).toThrow(`toleranceSeconds must be a finite number of seconds, 0 or more (got ${String(toleranceSeconds)})`);
    }
  });

  it('throws a RangeError for a tolerance that is not a number at all (an unparsed setting)', () => {
    const toleranceSeconds = '300' as unknown as number;
    expect(() => verifyWebhook({ secret: SECRET, body: BODY, headers: signed(TEN_YEARS_AGO), toleranceSeconds })).toThrow(RangeError);
  });

  it('throws a RangeError for a now that is not finite', () => {
    expect(() => verifyWebhook({ secret: SECRET, body: BODY, headers: signed(TEN_YEARS_AGO), now: Number.NaN })).toThrow(/now must be a finite number/);
  });

  it('still refuses an old timestamp with a finite tolerance, and accepts a fresh one; 0 means the same second', () => {
    expect(() => verifyWebhook({ secret: SECRET, body: BODY, headers: signed(TEN_YEARS_AGO), toleranceSeconds: 300 })).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook({ secret: SECRET, body: BODY, headers: signed(TEN_YEARS_AGO), toleranceSeconds: 300 })).toThrow(/tolerance/);
    const now = Date.now();
    const fresh = verifyWebhook({ secret: SECRET, body: BODY, headers: signed(Math.floor(now / 1000)), toleranceSeconds: 0, now });
    expect(fresh.scheme).toBe('service');
    expect(fresh.event.type).toBe('map_updated');
  });
});
