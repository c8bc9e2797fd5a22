/**
 * The README's first steps, run as written against a fresh server with the demo map (what `make run`
 * serves): its shell blocks in bash with curl (the key and address that `make run` prints put in for
 * the placeholders, the receiver on a free port instead of 9000), the webhook receiver as a process of
 * its own, and the typed client's example from inside the client package. The README stays true.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture } from '../support/factories.js';
import { seedDemo } from '../../src/cli/demo.js';
import { apiRole } from '../../src/api/api.role.js';
import { streamRole } from '../../src/stream/stream.role.js';
import { workerRole } from '../../src/worker/worker.role.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The fenced blocks of a README section (from its heading to the next heading of any level), in order. */
function blocks(heading: string, lang: string): string[] {
  const start = README.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(0);
  const rest = README.slice(start + heading.length + 2);
  const section = rest.slice(0, rest.search(/\n#{2,3} /) === -1 ? undefined : rest.search(/\n#{2,3} /));
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

let t: TestServer;
let key: string;
let port: number;
let receiver: ChildProcess | undefined;
let received = '';
const TRY = path.join(ROOT, 'clients/typescript/try.mts');

/** Runs a command to its end without blocking this process (the server under test lives in it). */
function run(cmd: string, args: string[], env: Record<string, string>, ms = 60_000): Promise<{ out: string; status: number | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill(), ms);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ out, status, err });
    });
  });
}

/** The script with the placeholders of the README filled in, run in bash; its output (stdout) and exit status. */
function bash(script: string, env: Record<string, string> = {}) {
  const filled = script
    .replace(/^KEY=mik_….*$/m, `KEY=${key}`)
    .replace(/^B=http:\/\/localhost:8080$/m, `B=${t.url}`)
    .replaceAll('127.0.0.1:9000', `127.0.0.1:${port}`);
  // Each answer on a line of its own, as a terminal shows them apart (curl adds no newline).
  return run('bash', ['-euo', 'pipefail', '-c', `curl() { command curl "$@"; echo; }\n${filled}`], env);
}

beforeAll(async () => {
  t = await startTestServer({
    roles: [apiRole, streamRole, workerRole],
    env: { SERVICE_SSE_ENABLED: 'true', SERVICE_WEBHOOKS_ENABLED: 'true', SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true' },
  });
  await importFixture(t.platform);
  key = (await seedDemo({ ...t.platform, orm: t.platform.orm })).apiKey;
  port = await freePort();
});

afterAll(async () => {
  receiver?.kill();
  rmSync(TRY, { force: true });
  await t?.close();
});

describe('README, first steps', () => {
  it('is a newcomer page of at most 200 lines that links to the docs for the rest', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(200);
    for (const doc of ['operations', 'configuration', 'api', 'kubernetes', 'architecture', 'development']) {
      expect(README).toContain(`(docs/${doc}.md)`);
      expect(existsSync(path.join(ROOT, 'docs', `${doc}.md`))).toBe(true);
    }
  });

  it('the curl block reads the demo map, its kills and Thera', async () => {
    const [first] = blocks('## First steps', 'sh');
    const r = await bash(first!);
    expect(r.status, r.err).toBe(0);
    const answers = r.out.trim().split('\n');
    expect(answers).toHaveLength(3);
    const systems = JSON.parse(answers[0]!) as { data: { solar_system_id: number }[] };
    expect(systems.data.map((s) => s.solar_system_id)).toContain(31000005);
    expect(systems.data.map((s) => s.solar_system_id)).not.toContain(32000001);
    expect(JSON.parse(answers[1]!)).toHaveProperty('data');
    expect(JSON.parse(answers[2]!)).toMatchObject({ data: { solar_system_id: 31000005, solar_system_name: 'Thera' } });
  });

  it('the webhook blocks subscribe, start the receiver, and every run of the last block delivers add_system and deleted_system, signed', async () => {
    const [vars] = blocks('## First steps', 'sh');
    const [subscribe, receive, act] = blocks('### Webhooks', 'sh');
    const sub = await bash(`${vars!.split('\n').slice(0, 2).join('\n')}\n${subscribe!}\necho "ID=$ID"`);
    expect(sub.status, sub.err).toBe(0);
    const secret = /^SECRET='([^']+)'$/m.exec(sub.out)![1]!;
    const id = /^ID=(\S+)$/m.exec(sub.out)![1]!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    // The receiver's block, with the secret the subscription answered in place of '…'.
    const script = receive!.replace("SECRET='…' ", '').replaceAll('127.0.0.1:9000', `127.0.0.1:${port}`).replaceAll('9000', String(port));
    receiver = spawn('bash', ['-c', script], { env: { ...process.env, SECRET: secret } });
    receiver.stdout!.on('data', (c: Buffer) => (received += c.toString()));
    await waitFor(() => received.includes('receiver listening'), 'the receiver to listen');

    const prelude = `${vars!.split('\n').slice(0, 2).join('\n')}\nID=${id}\n`;
    for (const round of [1, 2]) {
      const before = received.split('add_system signature ok').length;
      const r = await bash(prelude + act!);
      expect(r.status, r.err).toBe(0);
      await waitFor(
        () => received.split('add_system signature ok').length > before && received.split('deleted_system signature ok').length >= before + 1,
        `round ${round}'s deliveries`,
      );
    }
    expect(received).toContain('ping signature ok');
    expect(received).not.toContain('SIGNATURE WRONG');
    expect(received.split('add_system signature ok').length - 1).toBe(2);
  });

  it("the typed client's example runs as written from inside the client package", { timeout: 240_000 }, async () => {
    if (!existsSync(path.join(ROOT, 'clients/typescript/dist/index.js'))) {
      const built = spawnSync('npm', ['run', '--silent', '--prefix', 'clients/typescript', 'build'], { cwd: ROOT, encoding: 'utf8' });
      expect(built.status, built.stderr).toBe(0);
    }
    const [example] = blocks('### The typed client', 'ts');
    writeFileSync(TRY, example!);
    // What the example should count: the demo map as the API has it now (the first steps changed it).
    const shown = ((await (await t.fetch('/api/map/systems?slug=demo', { token: key })).json()) as { data: unknown[] }).data.length;
    const r = await run(process.execPath, [TRY], { KEY: key, B: t.url });
    expect(r.status, r.err).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toBe(`${shown} systems on the demo map`);
    expect(lines.slice(1).map((l) => l.split(' ')[1])).toEqual(['add_system', 'deleted_system']);
    for (const line of lines.slice(1)) expect(line).toMatch(/^[0-9A-HJKMNP-TV-Z]{26} [a-z_]+$/);
  });
});

async function waitFor(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; receiver printed:\n${received}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
