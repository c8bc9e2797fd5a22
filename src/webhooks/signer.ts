/**
 * Webhook request signing (decisions §7): HMAC-SHA256 keyed with the secret's UTF-8 bytes over
 * `<unix seconds>.<raw body>`, sent as `x-service-signature: sha256=<lower hex>` beside
 * `x-service-timestamp`. Computed afresh for every attempt.
 *
 * Every attempt also carries the Standard Webhooks headers (standardwebhooks.com), so that a receiver
 * can verify with that specification's libraries: `webhook-id` (the event id), `webhook-timestamp`
 * (the same seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 over "<id>.<seconds>.<raw body>">`,
 * keyed with the same bytes: the secret's UTF-8 bytes. In the specification's key form that is
 * `whsec_` + base64(secret) (`standardWebhooksKey`), whatever the secret looks like (a generated one,
 * or one a Kubernetes Secret supplied).
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/** HMAC keys by secret: a key object is made once per secret, not once per attempt. */
const keys = new Map<string, KeyObject>();

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= 10_000) keys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

export function signature(secret: string, timestamp: number, body: Buffer | string): string {
  const mac = createHmac('sha256', keyOf(secret));
  mac.update(`${timestamp}.`);
  mac.update(body);
  return `sha256=${mac.digest('hex')}`;
}

/** The Standard Webhooks signature (`v1,<base64>`) of a message: id, seconds and body. */
export function standardSignature(secret: string, id: string, timestamp: number, body: Buffer | string): string {
  const mac = createHmac('sha256', keyOf(secret));
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** A subscription's secret in the Standard Webhooks key form, for its libraries (`new Webhook(key)`). */
export function standardWebhooksKey(secret: string): string {
  return `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;
}

export interface SigningHeaders {
  'x-service-signature': string;
  'x-service-timestamp': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The signing headers of one attempt of the event `eventId`: the service's pair and the Standard Webhooks three. */
export function signingHeaders(secret: string, eventId: string, body: Buffer | string, now = Date.now()): SigningHeaders {
  const timestamp = Math.floor(now / 1000);
  return {
    'x-service-signature': signature(secret, timestamp, body),
    'x-service-timestamp': String(timestamp),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(secret, eventId, timestamp, body),
  };
}

/**
 * What a receiver does (and what the tests' receivers do): recompute and compare in constant time,
 * refusing timestamps further than `toleranceS` from now (replays).
 */
export function verify(
  secret: string,
  header: string | undefined,
  timestamp: string | undefined,
  body: Buffer | string,
  now = Date.now(),
  toleranceS = 300,
): boolean {
  if (!header || !timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(Math.floor(now / 1000) - Number(timestamp)) > toleranceS) return false;
  const expected = Buffer.from(signature(secret, Number(timestamp), body));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
