/**
 * "Repositories own the SQL of a table" and "the operator writes no SQL" (docs/architecture.md, Data
 * access), checked on the text of src/: SQL naming `map_api_keys` lives only in its repository, the
 * choice between a map's id and its slug is written once, and src/operator/ runs no query.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return rel === path.join('src', 'db', 'migrations') || rel === path.join('src', 'api', 'generated') ? [] : sources(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

/** The files of src/ (migrations and generated code aside) whose text matches `re`. */
function filesMatching(re: RegExp): string[] {
  return sources('src').filter((f) => re.test(readFileSync(path.join(ROOT, f), 'utf8')));
}

describe('owners of SQL', () => {
  it('map_api_keys is named only by its repository (and its declared row type)', () => {
    expect(filesMatching(/\bmap_api_keys\b/)).toEqual(['src/auth/map-key.repository.ts', 'src/db/tables.ts']);
  });

  it('a map by id or slug is told apart in one place (mapReference)', () => {
    expect(filesMatching(/UUID_RE\.test\([^)]*\)\s*\?[^;]*\bslug\b/s)).toEqual(['src/maps/map.repository.ts']);
  });

  it('src/operator/ runs no SQL: no query text and no query call', () => {
    // Query text is a string that starts with a statement (a comment that mentions one does not count).
    const sql =
      /[`'"]\s*(select|insert into|update|delete from|with)\s[^`'"]*\b(from|set|where|values|as)\b|\b(db|tx)\.(one|all|run|oneBound|allBound|runBound|kysely|transaction)\(/i;
    expect(sources('src/operator').filter((f) => sql.test(readFileSync(path.join(ROOT, f), 'utf8')))).toEqual([]);
  });
});
