/**
 * The ORM's connection pool against the real PostgreSQL: connections above DATABASE_POOL_MIN close
 * after their idle timeout, and DATABASE_POOL_MIN of them stay open (the same backends, still usable),
 * so the first statement after a quiet spell needs no new connection.
 */
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { initOrm, type Orm } from '../../src/db/orm.js';
import { TEST_DATABASE_URL, uniqueName } from '../support/db.js';

interface PoolCounts {
  totalCount: number;
  idleCount: number;
}

let orm: Orm | undefined;
afterEach(async () => {
  await orm?.close(true);
  orm = undefined;
});

async function open(poolMin: number): Promise<Orm> {
  orm = await initOrm({ databaseUrl: TEST_DATABASE_URL, schema: 'public', poolMax: 4, poolMin, idleTimeoutMs: 200 });
  return orm;
}

const pool = async (o: Orm) => (o.em.getConnection() as unknown as { getNativeClient(): Promise<PoolCounts> }).getNativeClient();

/** Backend pids of `n` statements run at once (each holds its connection for 100 ms, so they take `n` connections). */
async function busyPids(o: Orm, n: number): Promise<number[]> {
  const rows = await Promise.all(
    Array.from({ length: n }, () => o.em.fork().getConnection().execute<{ pid: number }[]>('select pg_backend_pid() as pid from pg_sleep(0.1)')),
  );
  return rows.map((r) => r[0]!.pid);
}

/** Which of `pids` are backends still connected to the server. */
async function alive(pids: number[]): Promise<number[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, application_name: uniqueName('poolcheck') });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where pid = any($1::int[]) order by pid', [pids]);
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the connection pool while idle', () => {
  it('keeps DATABASE_POOL_MIN connections open past the idle timeout and uses them next', async () => {
    const o = await open(2);
    const pids = await busyPids(o, 4);
    expect(new Set(pids).size).toBe(4);
    expect((await pool(o)).totalCount).toBe(4);

    await sleep(800);
    const p = await pool(o);
    expect(p.totalCount).toBe(2);
    expect(p.idleCount).toBe(2);
    const kept = await alive(pids);
    expect(kept).toHaveLength(2);

    // The next statement runs on a kept backend: no connection opened for it.
    const [next] = await busyPids(o, 1);
    expect(kept).toContain(next);
    expect((await pool(o)).totalCount).toBe(2);
  });

  it('closes every idle connection with DATABASE_POOL_MIN=0', async () => {
    const o = await open(0);
    const pids = await busyPids(o, 3);
    expect(new Set(pids).size).toBe(3);
    await sleep(800);
    expect((await pool(o)).totalCount).toBe(0);
    expect(await alive(pids)).toEqual([]);
  });
});
