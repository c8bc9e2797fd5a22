import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

describe('module graph of src/', () => {
  it('has no import circle (type-only imports included)', () => {
    const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('dpdm/package.json')), 'lib/bin/dpdm.js');
    const run = spawnSync(process.execPath, [bin, '--no-warning', '--no-tree', '--exit-code', 'circular:1', 'src/**/*.ts'], {
      encoding: 'utf8',
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    expect(run.stdout).toContain('Circular Dependencies');
    expect(run.stdout.slice(run.stdout.indexOf('Circular Dependencies'))).not.toMatch(/\d+\) src\//);
    expect(run.status).toBe(0);
  });
});
