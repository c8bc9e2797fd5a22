import { MemoryStore, type IncrementResponse, type Options, type Store } from 'express-rate-limit';
import type { Logger } from '../common/log.js';

/** How long one Redis command may take before the request is counted in-process instead. */
const SHARED_TIMEOUT_MS = 500;
/** After a failure, requests count in-process for this long before Redis is tried again. */
const RETRY_SHARED_MS = 1_000;

/**
 * The rate-limit counters: in the shared store (Redis) while it answers, else in this process with
 * the same limits, back to the shared store as soon as it answers again. A Redis outage thus never
 * takes the API down, and never leaves it unlimited: each process enforces the limit on its own
 * (so across N processes a key may get up to N times its budget while Redis is down).
 */
export class FallbackStore implements Store {
  private readonly local = new MemoryStore();
  private options: Options | undefined;
  private degraded = false;
  private needsInit = false;
  private retryAt = 0;

  constructor(
    private readonly shared: Store,
    /** Whether the shared store's connection is up; when it is not, no command is tried. */
    private readonly sharedReady: () => boolean,
    private readonly log: Logger | undefined,
  ) {}

  init(options: Options): void {
    this.options = options;
    this.local.init(options);
    void Promise.resolve(this.shared.init?.(options)).catch((err: unknown) => this.fallBack(err));
  }

  increment(key: string): Promise<IncrementResponse> {
    return this.run((store) => store.increment(key));
  }

  decrement(key: string): Promise<void> {
    return this.run((store) => store.decrement(key));
  }

  async resetKey(key: string): Promise<void> {
    await this.local.resetKey(key);
    await this.run((store) => store.resetKey(key));
  }

  shutdown(): void {
    this.local.shutdown();
  }

  private async run<T>(op: (store: Store) => Promise<T> | T): Promise<T> {
    if (this.sharedReady() && Date.now() >= this.retryAt) {
      try {
        // Redis may have restarted without the counting scripts: load them again on the way back.
        if (this.needsInit && this.options) await withTimeout(Promise.resolve(this.shared.init?.(this.options)));
        this.needsInit = false;
        const result = await withTimeout(Promise.resolve(op(this.shared)));
        if (this.degraded) {
          this.degraded = false;
          this.log?.info('rate limits: Redis answers again, counting there');
        }
        return result;
      } catch (err) {
        this.fallBack(err);
      }
    } else if (!this.degraded) {
      this.fallBack(undefined);
    }
    return op(this.local);
  }

  private fallBack(err: unknown): void {
    this.retryAt = Date.now() + RETRY_SHARED_MS;
    this.needsInit = true;
    if (this.degraded) return;
    this.degraded = true;
    const message = err instanceof Error ? err.message : 'not connected';
    this.log?.warn({ err: { message } }, 'rate limits: Redis unreachable, counting in this process until it is back');
  }
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${SHARED_TIMEOUT_MS} ms`)), SHARED_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
