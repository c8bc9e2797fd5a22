/**
 * RedisScript (src/redis/redis-script.ts): a script is run by its SHA1, its body sent only to a node
 * that does not hold it yet; on one Redis and on a cluster (the redis-cluster tier).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { connectTestRedis, deleteRedisPrefix, uniqueName } from '../support/db.js';
import { RedisScript } from '../../src/redis/redis-script.js';
import type { Redis } from '../../src/redis/redis.js';

let redis: Redis;
const prefix = `${uniqueName('script')}:`;

beforeAll(async () => {
  redis = await connectTestRedis('test-script');
});
afterAll(async () => {
  await deleteRedisPrefix(prefix);
  redis?.destroy();
});

/** A script no node has run yet (its body names a fresh id), adding ARGV[1] to the counter KEYS[1]. */
const freshScript = () => new RedisScript(`-- ${randomUUID()}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`);

describe('RedisScript', () => {
  it('runs a script its node does not hold (sending its body), then by its SHA1 alone', async () => {
    const script = freshScript();
    const key = `${prefix}{s}:n`;
    const bySha = (n: string) => redis.evalSha(script.sha, { keys: [key], arguments: [n] });
    await expect(bySha('1')).rejects.toThrow(/^NOSCRIPT/);
    expect(await script.run(redis, { keys: [key], arguments: ['2'] })).toBe(2);
    // The node of the key holds it now: its SHA1 alone runs it.
    expect(await bySha('3')).toBe(5);
    expect(await script.run(redis, { keys: [key], arguments: ['5'] })).toBe(10);
  });

  it('has the SHA1 Redis gives the body', async () => {
    const script = freshScript();
    expect(await redis.eval('return redis.sha1hex(ARGV[1])', { keys: [`${prefix}{s}:n`], arguments: [script.body] })).toBe(script.sha);
  });

  it("passes a script's own error on as it is, without running it a second time", async () => {
    const key = `${prefix}{s}:err`;
    const script = new RedisScript(`-- ${randomUUID()}\nredis.call('INCR', KEYS[1])\nreturn redis.error_reply('NOPE refused')`);
    await expect(script.run(redis, { keys: [key], arguments: [] })).rejects.toThrow(/NOPE refused/);
    await expect(script.run(redis, { keys: [key], arguments: [] })).rejects.toThrow(/NOPE refused/);
    expect(await redis.get(key)).toBe('2');
  });
});
