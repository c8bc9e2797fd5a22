/**
 * A token bucket in the manner of golang.org/x/time/rate, which client-go's work queue and REST
 * client use: `burst` tokens at first, refilled at `qps` per second. `reserve()` takes a token now
 * and says how long the caller must wait before using it (0 while tokens are left), so waiting
 * callers queue up in order and the long-run rate never exceeds `qps`.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(qps > 0) || !(burst >= 1)) throw new Error(`a token bucket needs qps > 0 and burst >= 1 (got ${qps}, ${burst})`);
    this.tokens = burst;
    this.last = now();
  }

  /** Takes one token; the milliseconds until it may be used. */
  reserve(): number {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  /** Waits for a token (rejects when `signal` aborts first; the token stays spent, as with rate.Limiter.Wait). */
  async take(signal?: AbortSignal): Promise<void> {
    const wait = this.reserve();
    if (wait === 0) return;
    signal?.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, wait);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
