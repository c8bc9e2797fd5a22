/**
 * Server-side deadlines of the ORM's connections (src/db/pg-options.ts) against the real PostgreSQL:
 * the settings arrive on every connection, and a statement PostgreSQL cancels answers 503 while its
 * connection stays in the pool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { initOrm, migrate, type Orm } from '../../src/db/orm.js';
import { toAppError } from '../../src/errors.js';
import { TEST_DATABASE_URL, uniqueName } from '../support/db.js';

const schema = uniqueName('pgopt').toLowerCase();
let orm: Orm;

beforeAll(async () => {
  orm = await initOrm({
    databaseUrl: TEST_DATABASE_URL,
    schema,
    poolMax: 1,
    timeouts: { connectTimeoutMs: 2000, queryTimeoutMs: 1000, lockTimeoutMs: 300, idleInTransactionTimeoutMs: 9000 },
  });
  await migrate(orm);
});
afterAll(async () => {
  await orm?.close(true);
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

const execute = <T extends object[]>(sql: string) => orm.em.fork().getConnection().execute<T>(sql);

async function settings(): Promise<Record<string, string>> {
  const rows = await execute<{ name: string; setting: string }[]>(
    `select name, setting from pg_settings where name in
       ('statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout', 'tcp_keepalives_idle', 'search_path', 'jit')`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
}

async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('PostgreSQL connection deadlines', () => {
  it('gives ORM connections statement_timeout shortly below the query deadline, lock_timeout, idle_in_transaction_session_timeout, server keepalive and no JIT', async () => {
    expect(await settings()).toEqual({
      jit: 'off',
      statement_timeout: '900',
      lock_timeout: '300',
      idle_in_transaction_session_timeout: '9000',
      tcp_keepalives_idle: '10',
      search_path: `${schema},public`,
    });
  });

  it('answers a statement PostgreSQL cancels at statement_timeout with 503 dependency_unavailable and keeps its connection', async () => {
    const pid = (await execute<{ pid: number }[]>('select pg_backend_pid() as pid'))[0]!.pid;
    const started = Date.now();
    const err = await failureOf(() => execute<object[]>('select pg_sleep(5)'));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(toAppError(err)).toMatchObject({ status: 503, code: 'dependency_unavailable' });
    // The server cancelled the statement: the same connection (poolMax 1) answers the next query.
    expect((await execute<{ pid: number }[]>('select pg_backend_pid() as pid'))[0]!.pid).toBe(pid);
  });

  it('answers a statement waiting past lock_timeout with 503 dependency_unavailable', async () => {
    const holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`lock table "${schema}".maps in access exclusive mode`);
      const err = await failureOf(() => execute<object[]>('select count(*) from maps'));
      expect((err as { code?: string }).code).toBe('55P03');
      expect(toAppError(err)).toMatchObject({ status: 503, code: 'dependency_unavailable' });
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
  });
});
