/**
 * Test database: the machine's real PostgreSQL, one schema per test file, migrated, dropped after.
 *
 * Through a pooler (TEST_PGBOUNCER_URL, the pgbouncer tier: PgBouncer in transaction mode in front of
 * TEST_DATABASE_URL's server) a schema cannot be chosen per connection, so each test file gets a
 * database of the schema's name instead, whose settings (search_path and the server-side timeouts)
 * are on the database as docs/operations.md tells operators to put them: DATABASE_URL goes through
 * the pooler, DATABASE_SESSION_URL straight to PostgreSQL.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { initOrm, migrate, type Orm } from '../../src/db/orm.js';
import { connectRedis, type Redis } from '../../src/redis/redis.js';
import { createLogger } from '../../src/common/log.js';
import { DEFAULT_DATABASE_TIMEOUTS, statementTimeoutMs, type DatabaseTimeouts } from '../../src/db/pg-options.js';

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
/** PgBouncer in transaction mode in front of TEST_DATABASE_URL's server (scripts/pgbouncer-tier.mjs). */
export const TEST_PGBOUNCER_URL = process.env.TEST_PGBOUNCER_URL || undefined;

export interface TestDb {
  orm: Orm;
  schema: string;
  databaseUrl: string;
  /** DATABASE_SESSION_URL when the tier runs through a pooler. */
  sessionUrl: string | undefined;
  /** The connection settings the process would derive from its configuration. */
  timeouts: DatabaseTimeouts;
  close(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** DATABASE_URL, DATABASE_SESSION_URL (through a pooler) and DATABASE_SCHEMA of a test's schema, for a process's environment. */
export function testDatabaseEnv(schema: string): Record<string, string> {
  if (!TEST_PGBOUNCER_URL) return { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema };
  return {
    DATABASE_URL: withDatabase(TEST_PGBOUNCER_URL, schema),
    DATABASE_SESSION_URL: withDatabase(TEST_DATABASE_URL, schema),
    DATABASE_SCHEMA: schema,
    DATABASE_CONNECT_TIMEOUT_MS: String(POOLED_CONNECT_TIMEOUT_MS),
  };
}

/**
 * Through the pooler a login to a database it has no server connection for waits for one to be opened
 * (a new PostgreSQL backend): on this loaded machine that took longer than the default 5 s at times.
 */
const POOLED_CONNECT_TIMEOUT_MS = 20_000;

/** Connection settings of a test process (the defaults; through a pooler, transactionPooler). */
export const TEST_TIMEOUTS: DatabaseTimeouts = TEST_PGBOUNCER_URL
  ? { ...DEFAULT_DATABASE_TIMEOUTS, connectTimeoutMs: POOLED_CONNECT_TIMEOUT_MS, transactionPooler: true }
  : DEFAULT_DATABASE_TIMEOUTS;

async function direct<T>(fn: (client: pg.Client) => Promise<T>, url = TEST_DATABASE_URL): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Through a pooler: creates the test's database with its settings on it (idempotent). Without one,
 * nothing: the process creates its schema itself.
 */
export async function prepareTestDatabase(schema: string): Promise<void> {
  if (!TEST_PGBOUNCER_URL) return;
  const t = DEFAULT_DATABASE_TIMEOUTS;
  await direct(async (c) => {
    const found = await c.query('select 1 from pg_database where datname = $1', [schema]);
    if (!found.rowCount) await c.query(`CREATE DATABASE "${schema}"`);
    // The tier drops what a failed file left behind by this mark (scripts/pgbouncer-tier.mjs).
    const tag = process.env.TEST_PGBOUNCER_TAG;
    if (tag) await c.query(`COMMENT ON DATABASE "${schema}" IS '${tag.replace(/'/g, "''")}'`);
    await c.query(`ALTER DATABASE "${schema}" SET search_path = "${schema}", public`);
    await c.query(`ALTER DATABASE "${schema}" SET statement_timeout = '${statementTimeoutMs(t.queryTimeoutMs)}ms'`);
    await c.query(`ALTER DATABASE "${schema}" SET lock_timeout = '${t.lockTimeoutMs}ms'`);
    await c.query(`ALTER DATABASE "${schema}" SET idle_in_transaction_session_timeout = '${t.idleInTransactionTimeoutMs}ms'`);
  });
  await direct((c) => c.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`), withDatabase(TEST_DATABASE_URL, schema));
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

export async function createTestDb(prefix = 't'): Promise<TestDb> {
  const schema = uniqueName(prefix).toLowerCase();
  await prepareTestDatabase(schema);
  const env = testDatabaseEnv(schema);
  const orm = await initOrm({ databaseUrl: env.DATABASE_URL!, sessionUrl: env.DATABASE_SESSION_URL, schema, poolMax: 5, timeouts: TEST_TIMEOUTS });
  await migrate(orm);
  return {
    orm,
    schema,
    databaseUrl: env.DATABASE_URL!,
    sessionUrl: env.DATABASE_SESSION_URL,
    timeouts: TEST_TIMEOUTS,
    async close() {
      await orm.close(true);
      await dropSchema(schema);
    },
  };
}

/** Drops a test's schema and everything in it (through a pooler, its database). */
export async function dropSchema(schema: string): Promise<void> {
  // FORCE: the pooler keeps server connections to it open.
  await direct((c) => c.query(TEST_PGBOUNCER_URL ? `DROP DATABASE IF EXISTS "${schema}" WITH (FORCE)` : `DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
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
