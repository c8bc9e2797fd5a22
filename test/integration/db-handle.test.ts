import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../support/db.js';
import { dbOf, EscapedTransactionError, type Db } from '../../src/db/db.js';

describe('the SQL handle (Db)', () => {
  let t: TestDb;
  let db: Db;
  beforeAll(async () => {
    t = await createTestDb('dbh');
    db = dbOf(t.orm);
    await db.run('create table probe (n int primary key)');
  });
  afterAll(async () => t?.close());

  it('runs queries with positional parameters and reports affected rows', async () => {
    expect(await db.run('insert into probe (n) values (?), (?)', [1, 2])).toBe(2);
    expect(await db.all<{ n: number }>('select n from probe order by n')).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await db.one<{ n: number }>('select n from probe where n = ?', [2])).toEqual({ n: 2 });
    expect(await db.one('select n from probe where n = ?', [99])).toBeUndefined();
    expect(await db.run('delete from probe where n > ?', [0])).toBe(2);
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    await db.transaction(async (tx) => {
      expect(tx.inTransaction).toBe(true);
      await tx.run('insert into probe (n) values (?)', [10]);
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.run('insert into probe (n) values (?)', [11]);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await db.all<{ n: number }>('select n from probe where n >= 10 order by n')).toEqual([{ n: 10 }]);
  });

  it('refuses SQL through the outer handle while a transaction is open, instead of running it outside', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.run('insert into probe (n) values (?)', [20]);
        await db.all('select 1');
      }),
    ).rejects.toBeInstanceOf(EscapedTransactionError);
    // The transaction rolled back: nothing escaped and nothing was half-written.
    expect(await db.one('select n from probe where n = 20')).toBeUndefined();
  });

  it('joins the open transaction when a transactional step calls transaction() again', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.transaction(async (inner) => {
          expect(inner).toBe(tx);
          await inner.run('insert into probe (n) values (?)', [30]);
        });
        throw new Error('outer fails');
      }),
    ).rejects.toThrow('outer fails');
    expect(await db.one('select n from probe where n = 30')).toBeUndefined();
  });

  it('sends bind parameters as they are: quotes, backslashes, unicode and a megabyte come back byte for byte; an array is one array', async () => {
    const text = `it's a \\ back\\slash, a "quote", ? and $1, ünï ✓ 🚀 ${'x'.repeat(1_000_000)}`;
    const [row] = await db.allBound<{ t: string; len: number; ns: number[] }>('select $1::text as t, length($1::text) as len, $2::int[] as ns', [
      text,
      [3, 1, 2],
    ]);
    expect(row!.t).toBe(text);
    expect(row!.len).toBe([...text].length);
    expect(row!.ns).toEqual([3, 1, 2]);
    expect(await db.runBound('insert into probe (n) select unnest($1::int[])', [[50, 51, 52]])).toBe(3);
    expect(await db.runBound('delete from probe where n = any($1::int[])', [[50, 52, 99]])).toBe(2);
    expect(await db.allBound<{ n: number }>('select n from probe where n >= $1::int order by n', [50])).toEqual([{ n: 51 }]);
  });

  it('runs bound queries inside the transaction (rolled back with it) and refuses them through the outer handle', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.runBound('insert into probe (n) values ($1::int)', [60]);
        expect(await tx.allBound<{ n: number }>('select n from probe where n = $1::int', [60])).toEqual([{ n: 60 }]);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await db.allBound('select n from probe where n = $1::int', [60])).toEqual([]);
    await expect(db.transaction(async () => db.allBound('select 1', []))).rejects.toBeInstanceOf(EscapedTransactionError);
  });

  it('lets the outer handle run again once the transaction has ended', async () => {
    await db.transaction(async (tx) => tx.run('insert into probe (n) values (?)', [40]));
    expect(await db.one<{ n: number }>('select n from probe where n = 40')).toEqual({ n: 40 });
  });
});
