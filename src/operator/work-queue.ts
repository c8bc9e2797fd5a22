/**
 * The work queue of a controller, keyed by namespace/name (client-go's semantics): a key queued twice
 * runs once; a key is never processed by two workers at once (a change during processing queues it
 * again for afterwards); failures back off per key exponentially and a success resets the key.
 */

export interface WorkQueueOptions {
  /** First retry delay of a failing key. */
  baseDelayMs?: number;
  /** Longest retry delay. */
  maxDelayMs?: number;
  /** Called whenever the number of waiting keys changes (for workqueue_depth). */
  onDepth?: (depth: number) => void;
  onAdd?: () => void;
  onRetry?: () => void;
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
  private shuttingDown = false;
  private readonly base: number;
  private readonly max: number;

  constructor(private readonly opts: WorkQueueOptions = {}) {
    this.base = opts.baseDelayMs ?? 100;
    this.max = opts.maxDelayMs ?? 300_000;
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
      this.processing.add(key);
      waiter(key);
      return;
    }
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

  /** Retries a failed key after its backoff: base × 2^(failures−1), at most max. */
  addRateLimited(key: string): number {
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    this.opts.onRetry?.();
    const delay = Math.min(this.max, this.base * 2 ** Math.min(n - 1, 30));
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
      this.processing.add(key);
      this.opts.onDepth?.(this.queue.length);
      return key;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends processing of a key; a change seen meanwhile queues it again. */
  done(key: string): void {
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
