/**
 * A check of the e2e tier: a vitest test whose duration is recorded for run.mjs's summary.
 */
import { it } from 'vitest';
import { recordDuration } from './cluster.js';

export function check(name: string, fn: () => Promise<void>, timeoutMs = 300_000): void {
  it(
    name,
    async () => {
      const t0 = Date.now();
      try {
        await fn();
      } finally {
        recordDuration(name, (Date.now() - t0) / 1000);
      }
    },
    timeoutMs,
  );
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
