/**
 * The Makefile as a newcomer meets it: `make help` lists every described target, and a build with
 * nothing changed does nothing (a second `make run` or `make test` starts at once).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const make = (...args: string[]) => spawnSync('make', ['--no-print-directory', ...args], { encoding: 'utf8', timeout: 300_000 });

describe('Makefile', () => {
  it('make help lists every target that has a description, with it', () => {
    const described = [...readFileSync('Makefile', 'utf8').matchAll(/^([A-Za-z0-9_.-]+):[^\n]*## (.+)$/gm)].map((m) => [m[1]!, m[2]!.trim()]);
    expect(described.map(([name]) => name)).toEqual(expect.arrayContaining(['run', 'test', 'test-cluster', 'test-all', 'k8s', 'help']));
    const help = make('help');
    expect(help.status).toBe(0);
    const lines = help.stdout.trim().split('\n');
    expect(lines.map((l) => l.split('\t')[0])).toEqual(described.map(([name]) => name));
    for (const [name, text] of described) expect(lines).toContain(`${name}\t${text}`);
  });

  it('builds nothing when no source changed since the last build', () => {
    const first = make('build');
    expect(first.status, first.stderr).toBe(0);
    // `make -q` exits 0 only when the target is up to date, without running anything.
    expect(make('-q', 'build').status).toBe(0);
    expect(make('build').stdout).toContain("Nothing to be done for 'build'");
  }, 300_000);

  it('declares as .PHONY only targets it has', () => {
    const text = readFileSync('Makefile', 'utf8');
    const targets = new Set([...text.matchAll(/^([A-Za-z0-9_.-]+):/gm)].map((m) => m[1]));
    const phony = /^\.PHONY:(.*)$/m.exec(text)![1]!.trim().split(/\s+/);
    expect(phony.filter((name) => !targets.has(name))).toEqual([]);
  });

  it('make check runs the static checks only: formatting, lint, types, import circles, layers; no test tier', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(/^check: install\b/m.test(readFileSync('Makefile', 'utf8'))).toBe(true);
    const steps = pkg.scripts.check!.split('&&').map((s) => s.trim());
    expect(steps).toEqual(['npm run format:check', 'npm run lint', 'npm run typecheck', 'npm run cycles', 'npm run layers']);
    expect(pkg.scripts.layers).toBe('vitest run --project static');
  });
});
