/**
 * A receiver's `Retry-After` (on 429 or 503), read once for every caller: seconds (`120`) or an HTTP
 * date, in milliseconds from now, at most RETRY_AFTER_MAX_MS. A number of seconds too large to read
 * exactly (`99999999999999999999`) is the longest wait, like any other past the limit, not "no
 * header" (decision 0013). Self-contained: no import, for every part that reads the header.
 */

/** The longest wait a `Retry-After` can ask for: an hour. */
export const RETRY_AFTER_MAX_MS = 3_600_000;

/** A `Retry-After` header (seconds or an HTTP date) in milliseconds from `now`, clamped to RETRY_AFTER_MAX_MS; undefined when it is neither. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    // Past ten digits the seconds are centuries: the longest wait, without parsing a number that large.
    if (text.length > 10) return RETRY_AFTER_MAX_MS;
    return Math.min(Number(text) * 1000, RETRY_AFTER_MAX_MS);
  }
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), RETRY_AFTER_MAX_MS);
}
