/**
 * Test database: the machine's real PostgreSQL, one schema per test file, migrated, dropped after.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { initOrm, migrate, type Orm } from '../../src/db/orm.js';
import { connectRedis, type Redis } from '../../src/core/redis.js';
import { createLogger } from '../../src/log.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** TEST_REDIS_URL names a node of a Redis Cluster (the redis-cluster tier: test/support/redis-cluster.ts). */
export const TEST_REDIS_CLUSTER = process.env.TEST_REDIS_CLUSTER === 'true';
/** The settings that point the service at the test Redis: REDIS_URL, and REDIS_CLUSTER on the cluster tier. */
export const TEST_REDIS_ENV: Record<string, string> = { REDIS_URL: TEST_REDIS_URL, ...(TEST_REDIS_CLUSTER ? { REDIS_CLUSTER: 'true' } : {}) };

/** A connection to the test Redis as the service makes it (a cluster connection on the cluster tier). */
export async function connectTestRedis(purpose = 'test', opts: { failFast?: boolean } = {}): Promise<Redis> {
  return connectRedis({ url: TEST_REDIS_URL, cluster: TEST_REDIS_CLUSTER, purpose, log: createLogger('silent'), failFast: opts.failFast ?? false });
}

export interface TestDb {
  orm: Orm;
  schema: string;
  databaseUrl: string;
  close(): Promise<void>;
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

export async function createTestDb(prefix = 't'): Promise<TestDb> {
  const schema = uniqueName(prefix).toLowerCase();
  const orm = await initOrm({ databaseUrl: TEST_DATABASE_URL, schema, poolMax: 5 });
  await migrate(orm);
  return {
    orm,
    schema,
    databaseUrl: TEST_DATABASE_URL,
    async close() {
      await orm.close(true);
      await dropSchema(schema);
    },
  };
}

/** Drops a test's schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

/** Deletes every Redis key under a test's prefix (streams outlive the test otherwise); on a cluster, on every master. */
export async function deleteRedisPrefix(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const { createClient } = await import('redis');
  const nodes = [url];
  if (TEST_REDIS_CLUSTER && url === TEST_REDIS_URL) {
    const probe = createClient({ url });
    probe.on('error', () => undefined);
    await probe.connect();
    try {
      const lines = String(await probe.sendCommand(['CLUSTER', 'NODES']))
        .trim()
        .split('\n');
      nodes.length = 0;
      for (const f of lines.map((l) => l.split(' '))) {
        if (f[2]!.includes('master') && !f[2]!.includes('fail')) nodes.push(`redis://${f[1]!.split('@')[0]!}`);
      }
    } finally {
      await probe.close();
    }
  }
  for (const node of nodes) {
    const client = createClient({ url: node });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const keys: string[] = [];
      for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) keys.push(...(batch as unknown as string[]));
      // One DEL per key: on a cluster node a DEL of several keys must name keys of one slot.
      for (const key of keys) await client.del(key);
    } finally {
      await client.close();
    }
  }
}

/** Events the relay has not published yet: without an id, or past their map's publication cursor. */
export async function countUnpublished(orm: Orm): Promise<number> {
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<{ n: number }[]>(
      `select count(*)::int as n from map_events e left join map_event_cursors c on c.map_id = e.map_id
       where e.event_id is null or e.event_id > coalesce(c.published_event_id, '')`,
    );
  return rows[0]!.n;
}
