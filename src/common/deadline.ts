/** Deadlines for awaits that must not outlive their caller's patience (readiness checks, shutdown). */

export class DeadlineExceededError extends Error {
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} did not finish within ${ms} ms`);
    this.name = 'DeadlineExceededError';
  }
}

/**
 * Settles like `promise`, or rejects with DeadlineExceededError after `ms`. The work itself goes on
 * (a promise cannot be cancelled): whatever it holds needs a bound of its own.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceededError(what, ms)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** true when `promise` fulfils within `ms`, false when it rejects or runs late. */
export function passesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return withDeadline(promise, ms).then(
    () => true,
    () => false,
  );
}
