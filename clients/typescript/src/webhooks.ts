/**
 * Verifies a webhook delivery of the service, in either header family it carries:
 *
 * - the service's own: `x-service-timestamp: <unix seconds>` and
 *   `x-service-signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`;
 * - Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
 *   `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">` (several
 *   space-separated signatures may be given; one matching is enough).
 *
 * Both are keyed with the UTF-8 bytes of the subscription's `secret`, as the API returned it (its
 * Standard Webhooks key form is `whsec_` + base64 of those bytes). A timestamp further than the
 * tolerance from now is refused (replays), and signatures are compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './generated/openapi.js';

type EventEnvelope = components['schemas']['EventEnvelope'];

export interface VerifyWebhookOptions {
  /** The subscription's secret, as `POST …/webhooks` (or `rotate-secret`) answered it. */
  secret: string;
  /** The request body exactly as received (verify before parsing it). */
  body: string | Uint8Array;
  /** The request's headers: a `Headers`, or Node's `req.headers`. */
  headers: Headers | Record<string, string | string[] | undefined>;
  /** Which family to check: `any` (default) checks Standard Webhooks when its headers are present, else the service's. */
  scheme?: 'any' | 'standard' | 'service';
  /**
   * How far the timestamp may be from now, in seconds (default 300): a finite number, 0 or more. NaN,
   * Infinity and negative values throw a RangeError (they would turn replay protection off or refuse
   * everything: a `Number(process.env.X)` of a missing or mistyped setting gives NaN).
   */
  toleranceSeconds?: number;
  /** Now, in milliseconds (default `Date.now()`). */
  now?: number;
}

export interface VerifiedWebhook {
  scheme: 'standard' | 'service';
  /** The delivery's timestamp, unix seconds. */
  timestamp: number;
  /** The event, parsed from the verified body. */
  event: EventEnvelope;
}

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

function header(headers: VerifyWebhookOptions['headers'], name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function hmac(secret: string, prefix: string, body: string | Uint8Array, encoding: 'hex' | 'base64'): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(prefix);
  mac.update(body);
  return mac.digest(encoding);
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function checkTimestamp(value: string | undefined, now: number, toleranceSeconds: number): number {
  if (!value || !/^\d{1,12}$/.test(value)) throw new WebhookVerificationError('Missing or malformed timestamp header');
  const timestamp = Number(value);
  if (Math.abs(Math.floor(now / 1000) - timestamp) > toleranceSeconds) throw new WebhookVerificationError('Timestamp outside the tolerance');
  return timestamp;
}

/**
 * The verified delivery; throws WebhookVerificationError when it does not verify, and RangeError for
 * options no delivery can be checked with (a `toleranceSeconds` or `now` that is not a finite number,
 * a negative `toleranceSeconds`): a mistake of the caller, not of the sender.
 */
export function verifyWebhook(options: VerifyWebhookOptions): VerifiedWebhook {
  const { secret, body, headers, scheme = 'any', toleranceSeconds = 300, now = Date.now() } = options;
  if (typeof toleranceSeconds !== 'number' || !Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new RangeError(`verifyWebhook: toleranceSeconds must be a finite number of seconds, 0 or more (got ${String(toleranceSeconds)})`);
  }
  if (typeof now !== 'number' || !Number.isFinite(now)) throw new RangeError(`verifyWebhook: now must be a finite number of milliseconds (got ${String(now)})`);
  if (!secret) throw new WebhookVerificationError('No secret to verify with');
  const standard = scheme === 'standard' || (scheme === 'any' && header(headers, 'webhook-signature') !== undefined);
  let timestamp: number;
  if (standard) {
    const id = header(headers, 'webhook-id');
    const signatures = header(headers, 'webhook-signature');
    if (!id || !signatures) throw new WebhookVerificationError('Missing webhook-id or webhook-signature header');
    timestamp = checkTimestamp(header(headers, 'webhook-timestamp'), now, toleranceSeconds);
    const expected = hmac(secret, `${id}.${timestamp}.`, body, 'base64');
    const ok = signatures
      .split(' ')
      .map((s) => s.split(','))
      .some(([version, signature]) => version === 'v1' && signature !== undefined && same(signature, expected));
    if (!ok) throw new WebhookVerificationError('No matching signature');
  } else {
    const signature = header(headers, 'x-service-signature');
    if (!signature) throw new WebhookVerificationError('Missing x-service-signature header');
    timestamp = checkTimestamp(header(headers, 'x-service-timestamp'), now, toleranceSeconds);
    if (!same(signature, `sha256=${hmac(secret, `${timestamp}.`, body, 'hex')}`)) throw new WebhookVerificationError('No matching signature');
  }
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  return { scheme: standard ? 'standard' : 'service', timestamp, event: JSON.parse(text) as EventEnvelope };
}
