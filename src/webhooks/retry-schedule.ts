/**
 * When a failed delivery is tried again (decisions §7): 10 attempts in all, waits of 1 s, 5 s, 30 s,
 * 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, each plus 0–20 % jitter (never earlier), and a receiver's
 * `Retry-After` on 429/503 honoured, clamped to the schedule's longest wait (6 h by default;
 * docs/decisions/0011-webhooks-for-integrators.md). The Retry-After also holds the subscription's other
 * deliveries until then (outcome-recorder.ts).
 */
export const DEFAULT_RETRY_WAITS_MS = [1_000, 5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000] as const;

/** The longest wait of a retry schedule: the most a receiver's Retry-After can delay an attempt. */
export function longestWaitMs(waits: readonly number[] = DEFAULT_RETRY_WAITS_MS): number {
  return waits.reduce((a, b) => Math.max(a, b), 0);
}

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed, or null when that was
 * the last attempt. `random` is in [0, 1).
 */
export function nextWaitMs(attempt: number, opts: { waits?: readonly number[]; retryAfterMs?: number | undefined; random?: () => number } = {}): number | null {
  const waits = opts.waits ?? DEFAULT_RETRY_WAITS_MS;
  if (attempt < 1 || attempt > waits.length) return null;
  const base = waits[attempt - 1]!;
  const jittered = base + Math.floor(base * 0.2 * (opts.random ?? Math.random)());
  if (opts.retryAfterMs === undefined) return jittered;
  return Math.max(jittered, Math.min(opts.retryAfterMs, longestWaitMs(waits)));
}
