/**
 * The benchmarks load the build's modules by path (`dist('common/config.js')`, `join(DIST, 'cli.js')`):
 * a module moved in src/ must be moved in bench/ too, or `make bench-*` fails at start where no test
 * would notice. Every such path names a module of src/.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.mjs') ? [p] : [];
  });
}

const PATTERNS = [/\bdist\('([^']+\.js)'\)/g, /'dist\/([^']+\.js)'/g, /join\((?:dist|DIST), '([^']+\.js)'\)/g, /join\(ROOT, 'dist', '([^']+\.js)'\)/g];

describe('the benchmarks’ paths into the build', () => {
  it('each names a module of src/', () => {
    const named: string[] = [];
    const missing: string[] = [];
    for (const file of files('bench')) {
      const text = readFileSync(file, 'utf8');
      for (const re of PATTERNS) {
        for (const m of text.matchAll(re)) {
          const module = m[1]!;
          named.push(module);
          if (!existsSync(path.join('src', module.replace(/\.js$/, '.ts')))) missing.push(`${file}: ${module}`);
        }
      }
    }
    // The scan finds the paths the benchmarks use (the entry point and the modules they seed with).
    expect(named).toContain('cli.js');
    expect(named).toContain('common/config.js');
    expect(missing).toEqual([]);
  });
});
