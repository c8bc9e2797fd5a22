/**
 * A receiver's `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an HTTP date) in milliseconds from
 * `now`, at most `maxMs`; undefined when absent or not a delay. A number of seconds too large to
 * represent, or beyond `maxMs`, gives `maxMs`: the receiver asked for a long wait, and the longest wait
 * the caller allows is the nearest to what it asked. A date in the past gives 0.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now(), maxMs = Number.MAX_SAFE_INTEGER): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const ms = Number(text) * 1000;
    return Number.isFinite(ms) && ms < maxMs ? ms : maxMs;
  }
  // An HTTP date names its day and month in letters; anything else (`-5`, `1.5`) is no delay.
  const at = /^[A-Za-z]{3}, /.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.min(maxMs, Math.max(0, at - now));
}
