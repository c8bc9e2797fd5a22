/**
 * The folders of src/ in layer order (docs/architecture.md, "Layers"): a module imports only from its
 * own folder or from folders listed before it. Every import counts: static, dynamic, type-only and
 * re-exports. The few imports that run against the order are listed below with their reason; a listed
 * exception that no import uses any more fails too, so the list only shrinks.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

/** Lowest first. `cli.ts` is the one file at the top of src/: the binary's entry (dist/cli.js). */
export const LAYERS = [
  'common',
  'redis',
  'http',
  'db',
  'events',
  'core',
  'ops',
  'auth',
  'ratelimit',
  'static-data',
  'characters',
  'maps',
  'acls',
  'admin',
  'webhooks',
  'console',
  'stream',
  'worker',
  'operator',
  'api',
  'roles',
  'cli',
  'cli.ts',
] as const;

/** Imports against the order, each with its reason (at most 10). */
export const EXCEPTIONS: Record<string, string> = {};

/** The folder (layer) of a file of src/: its first path segment, or the file name for a file at the top. */
function layerOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0]!;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return p.endsWith(path.join('api', 'generated')) ? [] : sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative module a file imports, as a path of src/ (`.js` specifiers name the `.ts` source). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')));
}

/** `from -> to` of every import against the layer order. */
export function violations(): string[] {
  const rank = new Map<string, number>(LAYERS.map((l, i) => [l, i]));
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = layerOf(file);
    for (const target of importsOf(file)) {
      const to = layerOf(target);
      if (to !== from && (rank.get(to) ?? -1) > (rank.get(from) ?? -1)) {
        found.push(`${path.relative(ROOT, file)} -> ${path.relative(ROOT, target)}`);
      }
    }
  }
  return found.sort();
}

describe('layers of src/', () => {
  it('places every file of src/ in a folder of the layer order', () => {
    const unplaced = sourceFiles(SRC)
      .map(layerOf)
      .filter((l) => !(LAYERS as readonly string[]).includes(l));
    expect([...new Set(unplaced)]).toEqual([]);
  });

  it('has no import against the layer order but the listed exceptions', () => {
    const found = violations();
    expect(found.filter((v) => !(v in EXCEPTIONS))).toEqual([]);
  });

  it('lists at most 10 exceptions, each still used and with a reason', () => {
    const found = new Set(violations());
    expect(Object.keys(EXCEPTIONS).length).toBeLessThanOrEqual(10);
    for (const [edge, reason] of Object.entries(EXCEPTIONS)) {
      expect(found.has(edge), `${edge} is listed but no longer imported: remove it from EXCEPTIONS`).toBe(true);
      expect(reason.length).toBeGreaterThan(20);
    }
  });

  it('is the order docs/architecture.md writes down', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Layers'));
    const listed = [...section.slice(0, section.indexOf('\n## ', 3)).matchAll(/^\d+\. `([a-z.-]+)\/?`/gm)].map((m) => m[1]);
    expect(listed).toEqual([...LAYERS]);
  });

  it('keeps migrations apart from live code: they import only the migration API and node:', () => {
    const dir = path.join(SRC, 'db', 'migrations');
    const outside = sourceFiles(dir).flatMap((file) =>
      ts
        .preProcessFile(readFileSync(file, 'utf8'), true, true)
        .importedFiles.map((f) => f.fileName)
        .filter((spec) => !spec.startsWith('node:') && !spec.startsWith('@mikro-orm/') && !(spec.startsWith('./') && !spec.includes('/', 2)))
        .map((spec) => `${path.relative(ROOT, file)} -> ${spec}`),
    );
    expect(outside).toEqual([]);
  });
});
