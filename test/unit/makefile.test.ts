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
});
