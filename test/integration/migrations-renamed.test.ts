/**
 * A migration renamed after a release applied it (RENAMED_MIGRATIONS): a database migrated by that
 * release is upgraded without running it again, and stays one that release's migrator finds complete
 * (a rollback), as does a database migrated from scratch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../support/db.js';
import { migrate, RENAMED_MIGRATIONS } from '../../src/db/orm.js';

const { was: OLD, now: NEW } = RENAMED_MIGRATIONS[0]!;

describe('renamed migrations', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb('migren');
  });
  afterAll(async () => db?.close());

  const recorded = async () =>
    (
      await db.orm.em
        .getConnection()
        .execute<{ name: string }[]>(`select name from "${db.schema}".mikro_orm_migrations where name in (?, ?) order by name`, [OLD, NEW])
    ).map((r) => r.name);

  it('records a renamed migration under its old name too when it runs', async () => {
    expect(await recorded()).toEqual([NEW, OLD].sort());
  });

  it('upgrades a database that applied it under its old name without running it again, and the old name stays', async () => {
    // As the release before the rename left it: the old name only, its tables there (with a row).
    await db.orm.em.getConnection().execute(`delete from "${db.schema}".mikro_orm_migrations where name = ?`, [NEW]);
    await db.orm.em.getConnection().execute(`insert into "${db.schema}".solar_system_jumps values (30000142, 30000144)`);
    expect(await migrate(db.orm)).toEqual([]);
    expect(await recorded()).toEqual([NEW, OLD].sort());
    expect(await db.orm.em.getConnection().execute(`select count(*)::int as n from "${db.schema}".solar_system_jumps`)).toEqual([{ n: 1 }]);
  });
});
