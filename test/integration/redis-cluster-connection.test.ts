/**
 * The cluster-aware connection layer (src/redis/redis.ts) on a real 3-master Redis Cluster, and the
 * start-time check that refuses a REDIS_URL whose server does not match REDIS_CLUSTER in every role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/log.js';
import { RedisConnections, RedisModeError, type Redis } from '../../src/redis/redis.js';
import { mapKey } from '../../src/redis/redis-keys.js';
import { RedisClusterServer } from '../support/redis-cluster.js';
import { OwnRedis } from '../support/redis-server.js';
import { startCli } from '../support/cli-process.js';
import { TEST_DATABASE_URL, uniqueName } from '../support/db.js';

const log = createLogger('silent');
let cluster: RedisClusterServer;
let single: OwnRedis;

beforeAll(async () => {
  [cluster, single] = await Promise.all([RedisClusterServer.start(), OwnRedis.create({ persist: false })]);
});
afterAll(async () => {
  await Promise.all([cluster?.stop(), single?.destroy()]);
});

describe('RedisConnections on a Redis Cluster', () => {
  it('routes commands, scripts and MULTI by key to the master that owns each map, every master in use', async () => {
    const redis = await RedisConnections.connect(cluster.url, log, { cluster: true });
    try {
      expect(redis.cluster).toBe(true);
      expect(await redis.ping()).toBe(true);
      const owners = new Set<number>();
      for (let i = 0; i < 30; i++) {
        const map = `map-${i}`;
        const a = mapKey('t:', map, 'a');
        const b = mapKey('t:', map, 'b');
        // One map's keys share a slot: a script and a MULTI over both are allowed.
        const sum = await redis.commands.eval(
          "redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[2]); return redis.call('GET', KEYS[1]) + redis.call('GET', KEYS[2])",
          {
            keys: [a, b],
            arguments: ['2', String(i)],
          },
        );
        expect(sum).toBe(2 + i);
        const [, got] = await redis.commands.multi().incr(a).get(b).exec();
        expect(got).toBe(String(i));
        owners.add(await cluster.masterOf(a));
      }
      expect(owners.size).toBe(3);
      expect(await redis.send<number>(mapKey('t:', 'raw', 'n'), ['INCRBY', mapKey('t:', 'raw', 'n'), '5'])).toBe(5);
    } finally {
      await redis.close();
    }
  });

  it('gives a blocking reader a connection of its own: a blocked XREAD stalls no command of the shared connection', async () => {
    const redis = await RedisConnections.connect(cluster.url, log, { cluster: true });
    try {
      const stream = mapKey('t:', 'blocking', 'events');
      const reader: Redis = await redis.blocking('test-reader');
      const read = reader.xRead({ key: stream, id: '$' }, { BLOCK: 20_000, COUNT: 10 });
      await new Promise((r) => setTimeout(r, 200));
      // The same node, through the shared connection, answers while the read blocks.
      const started = Date.now();
      await redis.commands.set(mapKey('t:', 'blocking', 'other'), 'x');
      expect(Date.now() - started).toBeLessThan(10_000);
      await redis.commands.xAdd(stream, '*', { v: '1' });
      const reply = (await read) as unknown as { name: string; messages: { message: Record<string, string> }[] }[];
      expect(reply[0]!.name).toBe(stream);
      expect(reply[0]!.messages[0]!.message).toEqual({ v: '1' });
    } finally {
      await redis.close();
    }
  });
});

describe('the start-time check of REDIS_CLUSTER against the server', () => {
  it('refuses a cluster node named without REDIS_CLUSTER=true, saying what to set', async () => {
    const err = await RedisConnections.connect(cluster.url, log).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisModeError);
    expect((err as Error).message).toMatch(/cluster_enabled:1.*set REDIS_CLUSTER=true/);
  });

  it('refuses REDIS_CLUSTER=true against a server that is not part of a cluster', async () => {
    const err = await RedisConnections.connect(single.url, log, { cluster: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisModeError);
    expect((err as Error).message).toMatch(/REDIS_CLUSTER=true but .* not part of a Redis Cluster.*unset REDIS_CLUSTER/);
  });

  it.each(['api', 'stream', 'worker'])('the %s role exits at start with the message instead of running against the wrong mode', async (role) => {
    const base = {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: uniqueName('rmode').toLowerCase(),
      REDIS_KEY_PREFIX: `${uniqueName('rmode')}:`,
      SERVICE_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
      HOST: '127.0.0.1',
      PORT: '0',
      OPS_HOST: '127.0.0.1',
      OPS_PORT: '0',
      LOG_LEVEL: 'warn',
    };
    const onCluster = startCli(['serve', '--roles', role], { ...base, REDIS_URL: cluster.url });
    // A schema of its own: two processes creating one new schema at once can collide in PostgreSQL
    // (CREATE SCHEMA IF NOT EXISTS is not safe against a concurrent one) and exit 1 before the check.
    const onSingle = startCli(['serve', '--roles', role], {
      ...base,
      DATABASE_SCHEMA: uniqueName('rmode').toLowerCase(),
      REDIS_URL: single.url,
      REDIS_CLUSTER: 'true',
    });
    try {
      expect(await onCluster.exited).toBe(2);
      expect(onCluster.output()).toContain('set REDIS_CLUSTER=true');
      expect(await onSingle.exited).toBe(2);
      expect(onSingle.output()).toContain('unset REDIS_CLUSTER');
    } finally {
      await Promise.all([onCluster.stop(), onSingle.stop()]);
    }
  });
});
