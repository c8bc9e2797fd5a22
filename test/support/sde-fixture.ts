/** The shipped sample of the static data (assets/eve-static-sample) and scratch copies of it for the import tests. */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { dbOf } from '../../src/db/db.js';
import { StaticInfoService } from '../../src/static-data/static-info.service.js';
import { createTestDb, type TestDb } from './db.js';

export const FIXTURE = path.resolve(process.cwd(), 'assets/eve-static-sample');
export const FIXTURE_SYSTEMS = 54;
/** Stargate jumps of the fixture (both directions of 37 stargates). */
export const FIXTURE_JUMPS = 74;

/** A scratch copy of the fixture, edited by `edit(dir)`. */
export async function fixtureCopy(edit: (dir: string) => Promise<void>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'mapintel-sde-'));
  await cp(FIXTURE, dir, { recursive: true });
  await edit(dir);
  return dir;
}

export async function editFile(file: string, change: (text: string) => string): Promise<void> {
  const before = await readFile(file, 'utf8');
  const after = change(before);
  if (after === before) throw new Error(`edit of ${file} changed nothing`);
  await writeFile(file, after);
}

/**
 * The import tests' database (a schema of its own, emptied of static data before each test) and their
 * scratch copies of the sample (removed after the file); registers the hooks, call it inside a describe
 * or at the top level.
 */
export function useImportDb(name: string) {
  let db: TestDb | undefined;
  let service: StaticInfoService | undefined;
  const scratch: string[] = [];
  const h = {
    get db(): TestDb {
      return db!;
    },
    get service(): StaticInfoService {
      return service!;
    },
    execute: <T extends Record<string, unknown>[] = Record<string, unknown>[]>(sql: string, params: unknown[] = []) =>
      h.db.orm.em.getConnection().execute<T>(sql, params),
    scratchCopy: async (edit: (dir: string) => Promise<void>) => {
      const dir = await fixtureCopy(edit);
      scratch.push(dir);
      return dir;
    },
  };
  beforeAll(async () => {
    db = await createTestDb(name);
    service = new StaticInfoService(dbOf(db.orm));
  });
  afterAll(async () => {
    await Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true })));
    await db?.close();
  });
  beforeEach(async () => {
    await h.execute('truncate solar_systems, solar_system_jumps, static_data_imports');
  });
  return h;
}
