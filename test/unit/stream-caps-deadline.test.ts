/**
 * A cap admission waits for Redis a bounded time of its own (the stream role's commands run without
 * node-redis's per-command timer): a Redis that never answers gives 503 dependency_unavailable after
 * 5 s, and the process's local slot is free again. The Redis here is a stand-in whose scripts never
 * answer (EVALSHA, and EVAL were it asked); the admission against a real Redis is tested in test/integration/stream-caps*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { RedisStreamCaps } from '../../src/stream/stream-caps.redis.js';
import type { Redis } from '../../src/redis/redis.js';
import { AppError } from '../../src/common/errors.js';
import { within } from '../support/wait.js';

describe('RedisStreamCaps admission deadline', () => {
  it('answers 503 dependency_unavailable when Redis does not answer within 5 s, and frees the local slot', async () => {
    const never = () => new Promise(() => undefined);
    const silent = { evalSha: never, eval: never } as unknown as Redis;
    const caps = new RedisStreamCaps(silent, 'p:', { perMap: 5, perKey: 5, perProcess: 1 });
    const started = Date.now();
    // Its own deadline, not a wait without end (a busy machine may add seconds).
    const err = await within(
      caps.admit('map', 'key').catch((e: unknown) => e),
      20_000,
      'the admission ended by its 5 s deadline',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(503);
    expect((err as AppError).code).toBe('dependency_unavailable');
    expect(caps.held()).toBe(0);
    await caps.close();
  }, 40_000);
});
