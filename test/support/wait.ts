/**
 * Polling for tests: wait until a condition holds, or until an endpoint answers a status. Both fail
 * with what they waited for and how long, never hang.
 */

/** Polls `cond` every `everyMs` until it holds; fails after `timeoutMs` naming `what`. */
export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition', everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what}: not reached within ${timeoutMs} ms`);
}

/** Repeats `probe` until it answers `status` (the other answers' bodies are dropped); fails after `timeoutMs`. */
export async function eventually(probe: () => Promise<Response>, status: number, timeoutMs = 20_000, everyMs = 100): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  let last: Response | undefined;
  while (Date.now() < deadline) {
    last = await probe();
    if (last.status === status) return last;
    await last.body?.cancel();
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`still ${last?.status} after ${timeoutMs} ms (waiting for ${status})`);
}

/**
 * `promise`, or a failure naming `what` once `ms` have passed without it settling. For a wait whose
 * broken counterpart never ends: a bound on its duration checked after it could not fail (the test's own
 * timeout would), this one fails at the bound, with its message.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
