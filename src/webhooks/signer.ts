/**
 * Webhook request signing (decisions §7): HMAC-SHA256 keyed with the secret's UTF-8 bytes over
 * `<unix seconds>.<raw body>`, sent as `x-service-signature: sha256=<lower hex>` beside
 * `x-service-timestamp`. Computed afresh for every attempt.
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

/** The signing headers of one attempt. */
export function signingHeaders(secret: string, body: Buffer | string, now = Date.now()): { 'x-service-signature': string; 'x-service-timestamp': string } {
  const timestamp = Math.floor(now / 1000);
  return { 'x-service-signature': signature(secret, timestamp, body), 'x-service-timestamp': String(timestamp) };
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
