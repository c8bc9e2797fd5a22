/**
 * The expand/contract rule of docs/upgrading.md on the migrations that exist: every statement of a
 * migration's `up` that old code could trip on (a dropped or renamed table or column, a column made
 * NOT NULL or retyped, a NOT NULL column added without a default, a new constraint) is a contract step,
 * and each must be listed in the table between the `contract-steps` markers with the release that
 * stopped using what it removes. A listed step that no migration has is a stale line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = path.resolve('src/db/migrations');

/** The SQL texts of a migration's `up` (its string and template literals). */
function upStatements(source: string): string[] {
  const start = source.search(/override\s+(async\s+)?up\(/);
  const end = source.search(/override\s+(async\s+)?down\(/);
  // Comments out first: an apostrophe in one would open a string.
  const body = source
    .slice(start, end < 0 ? undefined : end)
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  return [...body.matchAll(/`([^`]*)`|'((?:[^'\\]|\\.)*)'/g)]
    .map((m) => (m[1] ?? m[2] ?? '').replace(/\s+/g, ' ').trim())
    .filter((s) => /^(alter|drop|create|insert|update|delete|select)\b/i.test(s));
}

/** Contract steps of one statement, as `<kind> <object>` keys (empty: an expand step). */
function contractSteps(sql: string): string[] {
  const s = sql.toLowerCase().replace(/"/g, '');
  const out: string[] = [];
  const table = /^alter table (?:if exists )?(?:only )?([\w.]+)/.exec(s)?.[1];
  let m: RegExpExecArray | null;
  if ((m = /^drop table (?:if exists )?([\w.]+)/.exec(s))) out.push(`drop table ${m[1]}`);
  if (table) {
    for (const d of s.matchAll(/drop column (?:if exists )?(\w+)/g)) out.push(`drop column ${table}.${d[1]}`);
    for (const r of s.matchAll(/rename column (\w+) to (\w+)/g)) out.push(`rename column ${table}.${r[1]}`);
    if (/ rename to /.test(s)) out.push(`rename table ${table}`);
    for (const c of s.matchAll(/alter column (\w+) (?:set not null|(?:set data )?type )/g)) out.push(`alter column ${table}.${c[1]}`);
    for (const a of s.matchAll(/add column (?:if not exists )?(\w+) ([^,;]*)/g)) {
      if (/not null/.test(a[2]!) && !/default/.test(a[2]!)) out.push(`add not null column ${table}.${a[1]}`);
    }
    for (const c of s.matchAll(/add constraint (\w+)/g)) out.push(`add constraint ${table}.${c[1]}`);
  }
  return out;
}

function documented(): Map<string, string> {
  const doc = readFileSync('docs/upgrading.md', 'utf8');
  const block = /<!-- contract-steps -->([\s\S]*?)<!-- \/contract-steps -->/.exec(doc)?.[1];
  if (!block) throw new Error('docs/upgrading.md has no <!-- contract-steps --> table');
  const rows = new Map<string, string>();
  for (const line of block.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || !cells[1]!.startsWith('`Migration')) continue;
    rows.set(`${cells[1]!.replace(/`/g, '')} ${cells[2]!.replace(/`/g, '')}`, cells[3]!);
  }
  return rows;
}

describe('migrations follow the expand/contract rule', () => {
  it('classifies statements: drops, renames, NOT NULL without default and constraints are contract steps', () => {
    expect(contractSteps('alter table "t" drop column if exists "c";')).toEqual(['drop column t.c']);
    expect(contractSteps('alter table t add column c int not null;')).toEqual(['add not null column t.c']);
    expect(contractSteps('alter table t add column c int not null default 0;')).toEqual([]);
    expect(contractSteps('alter table t add column c timestamptz(6) null;')).toEqual([]);
    expect(contractSteps('alter table t rename column a to b;')).toEqual(['rename column t.a']);
    expect(contractSteps('alter table t alter column a set not null;')).toEqual(['alter column t.a']);
    expect(contractSteps('drop table if exists "x";')).toEqual(['drop table x']);
    expect(contractSteps('create index "i" on "t" ("a");')).toEqual([]);
    expect(
      upStatements('override up(): void { this.addSql(`alter table "a" drop column "b";`); } override down(): void { this.addSql(`drop table "z";`); }'),
    ).toEqual(['alter table "a" drop column "b";']);
  });

  it('every contract step of a migration is listed in docs/upgrading.md, and every listed one exists', () => {
    const found = new Set<string>();
    for (const file of readdirSync(DIR).filter((f) => /^Migration\d+_\w+\.ts$/.test(f))) {
      const name = file.replace(/\.ts$/, '');
      const statements = upStatements(readFileSync(path.join(DIR, file), 'utf8'));
      // A table the same migration creates has no old code using it yet: its constraints are no contract.
      const created = new Set(statements.map((sql) => /^create table (?:if not exists )?"?([\w.]+)"?/i.exec(sql)?.[1]?.toLowerCase()).filter(Boolean));
      for (const sql of statements) {
        for (const step of contractSteps(sql)) if (!created.has(step.split(' ').at(-1)!.split('.')[0]!)) found.add(`${name} ${step}`);
      }
    }
    const listed = documented();
    expect(
      [...found].filter((k) => !listed.has(k)),
      'contract steps missing from docs/upgrading.md',
    ).toEqual([]);
    expect(
      [...listed.keys()].filter((k) => !found.has(k)),
      'listed contract steps no migration has',
    ).toEqual([]);
    for (const [key, release] of listed) expect(release, key).not.toBe('');
  });
});
