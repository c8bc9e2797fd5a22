/**
 * Server-side deadlines of the ORM's connections (src/db/pg-options.ts) against the real PostgreSQL:
 * the settings arrive on every connection, and a statement PostgreSQL cancels answers 503 while its
 * connection stays in the pool. And the registered statements (src/db/prepared.ts): named on every
 * connection when switched on, unnamed when off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { initOrm, migrate, type Orm } from '../../src/db/orm.js';
import { dbOf, type Db } from '../../src/db/db.js';
import { DEFAULT_DATABASE_TIMEOUTS, pgConnectionOptions, type DatabaseTimeouts } from '../../src/db/pg-options.js';
import { prepared, preparedName } from '../../src/db/prepared.js';
import { loadConfig } from '../../src/common/config.js';
import { toAppError } from '../../src/common/errors.js';
import { TEST_DATABASE_URL, uniqueName } from '../support/db.js';

const schema = uniqueName('pgopt').toLowerCase();
let orm: Orm;

/** An ORM on the test schema with one connection and these timeouts over the file's own. */
const ormWith = (timeouts: Partial<DatabaseTimeouts>) =>
  initOrm({
    databaseUrl: TEST_DATABASE_URL,
    schema,
    poolMax: 1,
    timeouts: { connectTimeoutMs: 2000, queryTimeoutMs: 1000, lockTimeoutMs: 300, idleInTransactionTimeoutMs: 9000, ...timeouts },
  });

beforeAll(async () => {
  orm = await ormWith({});
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
    // Cancelled by the server well before the sleep would end, however slow the machine.
    const started = Date.now();
    const err = await failureOf(() => execute<object[]>('select pg_sleep(30)'));
    expect(Date.now() - started).toBeLessThan(15_000);
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

describe('prepared statements (DATABASE_PREPARED_STATEMENTS)', () => {
  const statement = prepared('select $1::int + 1 as n, current_schema() as schema');
  const unregistered = 'select $1::int + 2 as n';
  let preparing: Orm;
  beforeAll(async () => {
    preparing = await ormWith({ queryTimeoutMs: 5000, preparedStatements: true });
  });
  afterAll(async () => {
    await preparing?.close(true);
  });

  /** The prepared statements of the pool's one connection. */
  const preparedOn = async (db: Db) => db.all<{ name: string; statement: string }>('select name, statement from pg_prepared_statements order by name');

  it('runs a registered text as a named statement on the connection, outside and inside transactions, with new values each time', async () => {
    const db = dbOf(preparing);
    expect(await db.allBound(statement, [41])).toEqual([{ n: 42, schema }]);
    expect(await db.allBound(statement, [1])).toEqual([{ n: 2, schema }]);
    expect(await db.transaction((tx) => tx.allBound(statement, [5]))).toEqual([{ n: 6, schema }]);
    expect(await preparedOn(db)).toEqual([{ name: preparedName(statement), statement }]);
    expect(preparedName(statement)).toMatch(/^mapintel_[0-9a-f]{32}$/);
  });

  it('registers what allBound and runBound run, and nothing else', async () => {
    const db = dbOf(preparing);
    expect(await db.all<{ n: number }>('select ?::int + 3 as n', [1])).toEqual([{ n: 4 }]);
    const text = `select $1::int * 2 as n -- ${schema}`;
    expect(preparedName(text)).toBeUndefined();
    expect(await db.allBound(text, [21])).toEqual([{ n: 42 }]);
    expect(preparedName(text)).toBeDefined();
    expect((await preparedOn(db)).map((r) => r.statement).sort()).toEqual([statement, text].sort());
  });

  it('runs pg.Pool queries of registered texts named too (the relay), and unregistered ones unnamed', async () => {
    const pool = new pg.Pool({
      connectionString: TEST_DATABASE_URL,
      max: 1,
      ...pgConnectionOptions({ ...DEFAULT_DATABASE_TIMEOUTS, preparedStatements: true }),
    });
    try {
      expect((await pool.query(statement, [9])).rows).toEqual([{ n: 10, schema: 'public' }]);
      expect((await pool.query(unregistered, [9])).rows).toEqual([{ n: 11 }]);
      expect((await pool.query('select name from pg_prepared_statements')).rows).toEqual([{ name: preparedName(statement) }]);
    } finally {
      await pool.end();
    }
  });

  it('runs everything unnamed when switched off (the default)', async () => {
    const db = dbOf(orm);
    expect(loadConfig({}).databasePreparedStatements).toBe(false);
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'true' }).databasePreparedStatements).toBe(true);
    expect(await db.allBound(statement, [1])).toEqual([{ n: 2, schema }]);
    expect(await db.transaction((tx) => tx.allBound(statement, [2]))).toEqual([{ n: 3, schema }]);
    expect(await preparedOn(db)).toEqual([]);
  });
});
