/**
 * Graceful shutdown: in-flight requests finish, new connections are refused, pools close; SIGTERM on
 * the real binary exits 0 after draining.
 */
import { describe, expect, it } from 'vitest';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startTestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';
import { TEST_DATABASE_URL, uniqueName } from '../support/db.js';

function slowPost(
  url: string,
  token: string,
  body: string,
): { started: Promise<void>; finish: () => void; response: Promise<{ status: number; body: string }> } {
  const u = new URL(url);
  let finish!: () => void;
  let started!: () => void;
  const startedP = new Promise<void>((r) => (started = r));
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half), () => started());
    finish = () => req.end(body.slice(half));
  });
  return { started: startedP, finish: () => finish(), response };
}

describe('graceful shutdown', () => {
  it('lets an in-flight request finish, then refuses new connections and closes the pools', async () => {
    const t = await startTestServer();
    const { map, key, ownerEveId } = await makeMap(t.platform);
    const body = JSON.stringify({ acl: { name: 'Drained', owner_eve_id: ownerEveId } });
    const inflight = slowPost(`${t.url}/api/map/acls?map_id=${map.id}`, key, body);
    await inflight.started;
    await new Promise((r) => setTimeout(r, 100));
    const stopping = t.server.shutdown();
    await new Promise((r) => setTimeout(r, 100));
    inflight.finish();
    const res = await inflight.response;
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as { data: { name: string } }).data.name).toBe('Drained');
    await stopping;
    await expect(fetch(`${t.url}/healthz`)).rejects.toThrow();
    expect(t.logs.some((l) => l.msg === 'stopped')).toBe(true);
    await t.close();
  });

  it('with SERVICE_SHUTDOWN_DELAY_MS serves on, not ready, closing each connection after its response; then stops accepting', async () => {
    const t = await startTestServer({ env: { SERVICE_SHUTDOWN_DELAY_MS: '1500' } });
    // A kept-alive connection made before SIGTERM, as a client or a Service's pooled connection has.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (p: string) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const u = new URL(p, t.url);
        http
          .get({ host: u.hostname, port: u.port, path: u.pathname, agent }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
          })
          .on('error', reject);
      });
    expect(await get('/healthz')).toEqual({ status: 200, connection: 'keep-alive' });
    const stopping = t.server.shutdown();
    await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(`${t.opsUrl}/readyz`)).status).toBe(503);
    // Within the delay: answered, on the same kept-alive connection, which the server then closes.
    expect(await get('/healthz')).toEqual({ status: 200, connection: 'close' });
    expect(await get('/healthz')).toEqual({ status: 200, connection: 'close' });
    expect(t.logs.some((l) => l.msg === 'stopped')).toBe(false);
    await stopping;
    await expect(fetch(`${t.url}/healthz`)).rejects.toThrow();
    agent.destroy();
    await t.close();
  });

  it('exits 0 on SIGTERM (the built binary)', async () => {
    const cli = path.resolve('dist/cli.js');
    expect(existsSync(cli), 'dist/cli.js is built by `make test` before the tests run').toBe(true);
    const schema = uniqueName('sig').toLowerCase();
    const child = spawn(process.execPath, [cli, 'serve'], {
      env: {
        PATH: process.env.PATH,
        PORT: '0',
        HOST: '127.0.0.1',
        OPS_PORT: '0',
        DATABASE_URL: TEST_DATABASE_URL,
        DATABASE_SCHEMA: schema,
        SERVICE_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const deadline = Date.now() + 30_000;
    while (!out.includes('"msg":"listening"') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain('"msg":"listening"');
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('"signal":"SIGTERM"');
    expect(out).toContain('"msg":"stopped"');
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }, 60_000);
});
