/**
 * The Dockerfile, checked without a container engine: its stages, base images, user and command, every
 * path it copies against the repository, and its runtime stage reproduced in a temporary folder
 * (production dependencies only, the built dist/, the static data sample) running `mapintel`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../support/cli-process.js';

interface Instruction {
  op: string;
  args: string;
  stage: string;
}

function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = '';
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    const [, op, args] = m as unknown as [string, string, string];
    if (op === 'FROM') stage = / AS (\S+)/i.exec(args)?.[1] ?? '';
    out.push({ op, args: args.trim(), stage });
  }
  return out;
}

describe('Dockerfile', () => {
  const steps = parseDockerfile(readFileSync('Dockerfile', 'utf8'));
  const runtime = steps.filter((s) => s.stage === 'runtime');

  it('has build, deps and runtime stages, all on the BASE argument, Node 24 slim by default', () => {
    const froms = steps.filter((s) => s.op === 'FROM');
    expect(froms.map((s) => s.args)).toEqual(['${BASE} AS build', '${BASE} AS deps', '${BASE} AS runtime']);
    // ARG before the first FROM: the one value every stage's FROM reads.
    expect(steps[0]).toMatchObject({ op: 'ARG', args: 'BASE=node:24-slim', stage: '' });
  });

  it('installs only production dependencies into the runtime image and copies no dev tooling', () => {
    expect(steps.find((s) => s.stage === 'deps' && s.op === 'RUN')!.args).toMatch(/npm ci --omit=dev/);
    const copies = runtime.filter((s) => s.op === 'COPY').map((s) => s.args);
    expect(copies).toEqual(['--from=deps /app/node_modules ./node_modules', '--from=build /app/dist ./dist', 'package.json ./', 'assets ./assets']);
  });

  it('runs as a numeric non-root user and starts `mapintel serve`', () => {
    expect(runtime.find((s) => s.op === 'USER')!.args).toBe('10001:10001');
    expect(runtime.find((s) => s.op === 'ENTRYPOINT')!.args).toBe('["mapintel"]');
    expect(runtime.find((s) => s.op === 'CMD')!.args).toBe('["serve"]');
    expect(runtime.find((s) => s.op === 'RUN')!.args).toContain('ln -s /app/dist/cli.js /usr/local/bin/mapintel');
  });

  it('copies from the build context only paths that exist and that .dockerignore keeps', () => {
    const ignored = readFileSync('.dockerignore', 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const fromContext = steps.filter((s) => s.op === 'COPY' && !s.args.startsWith('--from')).flatMap((s) => s.args.split(/\s+/).slice(0, -1));
    expect([...new Set(fromContext)].sort()).toEqual(['assets', 'package-lock.json', 'package.json', 'src', 'tsconfig.json', 'tsoa.json']);
    for (const p of fromContext) {
      expect(existsSync(p), p).toBe(true);
      expect(ignored, p).not.toContain(p);
    }
    for (const p of ['node_modules', '.git', 'dist', 'data', '.cache']) expect(ignored).toContain(p);
  });
});

describe('the runtime stage, reproduced in a temporary folder', () => {
  let dir: string;
  beforeAll(() => {
    assertBuilt();
    dir = mkdtempSync(path.join(os.tmpdir(), 'mapintel-image-'));
    for (const f of ['package.json', 'package-lock.json']) cpSync(f, path.join(dir, f));
    execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline'], { cwd: dir, stdio: 'pipe', timeout: 170_000 });
    cpSync('dist', path.join(dir, 'dist'), { recursive: true });
    cpSync('assets', path.join(dir, 'assets'), { recursive: true });
  }, 180_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has no package that only development needs', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const devOnly = Object.entries(lock.packages).filter(([p, info]) => p.startsWith('node_modules/') && info.dev);
    expect(devOnly.map(([p]) => p)).toEqual(expect.arrayContaining(['node_modules/typescript', 'node_modules/vitest', 'node_modules/eslint']));
    for (const [p] of devOnly) expect(existsSync(path.join(dir, p)), p).toBe(false);
    expect(existsSync(path.join(dir, 'node_modules', '@kubernetes', 'client-node'))).toBe(true);
  });

  it('runs `mapintel serve --help` from production dependencies alone, listing every role', () => {
    const r = spawnSync(process.execPath, [path.join(dir, 'dist/cli.js'), 'serve', '--help'], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    });
    expect(r.status, r.stderr).toBe(0);
    for (const role of ['api', 'stream', 'worker', 'operator']) expect(r.stdout).toContain(role);
  });
});
