/**
 * The work queue of a controller, keyed by namespace/name (client-go's semantics): a key queued twice
 * runs once; a key is never processed by two workers at once (a change during processing queues it
 * again for afterwards); failures back off per key exponentially and a success resets the key.
 * Retries also pass one token bucket shared by every key (client-go's DefaultControllerRateLimiter:
 * the longer of the key's backoff and the bucket's wait), so many keys failing at once cannot make
 * the controller hammer the apiserver or the database.
 */
import { TokenBucket } from './token-bucket.js';

/** client-go's default controller rate limiter: 10 retries a second, bursts of 100. */
export const DEFAULT_QUEUE_QPS = 10;
export const DEFAULT_QUEUE_BURST = 100;

export interface WorkQueueOptions {
  /** First retry delay of a failing key. */
  baseDelayMs?: number;
  /** Longest retry delay. */
  maxDelayMs?: number;
  /** Called whenever the number of waiting keys changes (for workqueue_depth). */
  onDepth?: (depth: number) => void;
  onAdd?: () => void;
  onRetry?: () => void;
  /** Retries per second over all keys (the shared bucket). */
  qps?: number;
  /** Retries the shared bucket lets through at once. */
  burst?: number;
  /** The clock of the shared bucket and of the timings (tests). */
  now?: () => number;
  /** Seconds a key waited from its add to its get (workqueue_queue_duration_seconds). */
  onQueued?: (seconds: number) => void;
  /** Seconds a key was processed, get to done (workqueue_work_duration_seconds). */
  onWorked?: (seconds: number) => void;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  /** Keys changed while processing: queued again when their processing ends. */
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  /** When each waiting key was added, and when each key in processing was handed out. */
  private readonly addedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();
  private readonly now: () => number;
  private shuttingDown = false;
  private readonly base: number;
  private readonly max: number;
  private readonly bucket: TokenBucket;

  constructor(private readonly opts: WorkQueueOptions = {}) {
    this.base = opts.baseDelayMs ?? 100;
    this.max = opts.maxDelayMs ?? 300_000;
    this.now = opts.now ?? Date.now;
    this.bucket = new TokenBucket(opts.qps ?? DEFAULT_QUEUE_QPS, opts.burst ?? DEFAULT_QUEUE_BURST, this.now);
  }

  /** Seconds of work in progress (summed over keys), and of the longest-running key, as client-go reports them. */
  inFlight(): { unfinishedSeconds: number; longestSeconds: number } {
    const t = this.now();
    let unfinished = 0;
    let longest = 0;
    for (const started of this.startedAt.values()) {
      const s = (t - started) / 1000;
      unfinished += s;
      longest = Math.max(longest, s);
    }
    return { unfinishedSeconds: unfinished, longestSeconds: longest };
  }

  private handOut(key: string): void {
    const t = this.now();
    const added = this.addedAt.get(key) ?? t;
    this.addedAt.delete(key);
    this.opts.onQueued?.((t - added) / 1000);
    this.processing.add(key);
    this.startedAt.set(key, t);
  }

  get depth(): number {
    return this.queue.length;
  }

  add(key: string): void {
    if (this.shuttingDown) return;
    this.opts.onAdd?.();
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      this.handOut(key);
      waiter(key);
      return;
    }
    this.addedAt.set(key, this.now());
    this.queued.add(key);
    this.queue.push(key);
    this.opts.onDepth?.(this.queue.length);
  }

  /** Adds the key after `ms` (a sooner add wins; a later timer for it is kept only if none is set). */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing);
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    t.unref();
    this.timers.set(key, t);
  }

  /**
   * Retries a failed key after the longer of its backoff (base × 2^(failures−1), at most max) and
   * the shared bucket's wait.
   */
  addRateLimited(key: string): number {
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    this.opts.onRetry?.();
    const delay = Math.max(Math.min(this.max, this.base * 2 ** Math.min(n - 1, 30)), this.bucket.reserve());
    this.addAfter(key, delay);
    return delay;
  }

  /** Forgets a key's failures (after a success). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process (waits for one); undefined once shut down. Pair with done(key). */
  async get(): Promise<string | undefined> {
    if (this.shuttingDown) return undefined;
    const key = this.queue.shift();
    if (key !== undefined) {
      this.queued.delete(key);
      this.handOut(key);
      this.opts.onDepth?.(this.queue.length);
      return key;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends processing of a key; a change seen meanwhile queues it again. */
  done(key: string): void {
    const started = this.startedAt.get(key);
    this.startedAt.delete(key);
    if (started !== undefined) this.opts.onWorked?.((this.now() - started) / 1000);
    this.processing.delete(key);
    if (this.dirty.delete(key)) this.add(key);
  }

  /** Answers every waiting get() with undefined (workers stopping), without shutting the queue down. */
  releaseWaiters(): void {
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const w of this.waiters.splice(0)) w(undefined);
  }
}
