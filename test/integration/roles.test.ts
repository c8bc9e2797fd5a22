/**
 * Roles as separate processes of the one binary: `serve --roles api` and `serve --roles worker`
 * against one database and Redis, each with its probes and metrics on its own ops port.
 */
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import net from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { deleteRedisPrefix, TEST_DATABASE_URL, TEST_REDIS_ENV, uniqueName } from '../support/db.js';
import { runCli, startCli, type CliProcess } from '../support/cli-process.js';
import { freePort } from '../support/redis-server.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { RENAMED_MIGRATIONS } from '../../src/db/orm.js';

const schema = uniqueName('roles').toLowerCase();
const prefix = `${uniqueName('roles')}:`;
const env = {
  DATABASE_URL: TEST_DATABASE_URL,
  DATABASE_SCHEMA: schema,
  ...TEST_REDIS_ENV,
  REDIS_KEY_PREFIX: prefix,
  SERVICE_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
  HOST: '127.0.0.1',
  OPS_HOST: '127.0.0.1',
  OPS_PORT: '0',
  LOG_LEVEL: 'info',
};
const started: CliProcess[] = [];
const recordings = mkdtempSync(path.join(os.tmpdir(), 'mapintel-roles-'));

/** Env that makes the process write the npm packages it loads to a file (test/support/record-packages.mjs). */
function recordPackages(name: string): { env: Record<string, string>; read: () => string[] } {
  const file = path.join(recordings, name);
  const hook = pathToFileURL(path.resolve('test/support/record-packages.mjs')).href;
  return {
    env: { NODE_OPTIONS: `--import=${hook}`, RECORD_PACKAGES_TO: file },
    read: () => readFileSync(file, 'utf8').split('\n').filter(Boolean),
  };
}

async function sql<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

async function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

afterAll(async () => {
  for (const p of started) await p.stop();
  await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await deleteRedisPrefix(prefix);
  rmSync(recordings, { recursive: true, force: true });
});

describe('mapintel serve --roles', () => {
  it('runs api and worker as separate processes over one database and Redis, each with probes and metrics on its ops port', async () => {
    const apiPort = await freePort();
    const apiPackages = recordPackages('api');
    const api = startCli(['serve', '--roles', 'api'], { ...env, ...apiPackages.env, PORT: String(apiPort) });
    started.push(api);
    const apiOps = String((await api.waitForLog('ops port listening')).url);
    await api.waitForLog('listening');

    const workerPort = await freePort();
    const workerPackages = recordPackages('worker');
    const worker = startCli(['serve', '--roles', 'worker'], { ...env, ...workerPackages.env, PORT: String(workerPort) });
    started.push(worker);
    const workerOps = String((await worker.waitForLog('ops port listening')).url);
    await worker.waitForLog('worker role started; SERVICE_WEBHOOKS_ENABLED is off: events are passed over and no webhooks are delivered');
    expect(workerOps).not.toBe(apiOps);

    // The worker has no public API: nothing listens on its PORT.
    expect(await refused(workerPort)).toBe(true);
    const pub = await fetch(`http://127.0.0.1:${apiPort}/api/common/system-static-info?id=30000142`);
    expect([200, 404]).toContain(pub.status);

    for (const [ops, role] of [
      [apiOps, 'api'],
      [workerOps, 'worker'],
    ] as const) {
      const health = await fetch(`${ops}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', roles: [role] });
      const ready = await fetch(`${ops}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ ready: true, checks: { database: true, redis: true } });
      const metrics = await fetch(`${ops}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toContain('text/plain');
      const text = await metrics.text();
      expect(text).toContain('mapintel_process_cpu_user_seconds_total');
      expect(text).toContain('mapintel_db_pool_connections');
      expect(await (await fetch(`${ops}/nothing`)).json()).toEqual({ error: 'Not found', code: 'not_found' });
    }
    const apiMetrics = await (await fetch(`${apiOps}/metrics`)).text();
    expect(apiMetrics).toMatch(/mapintel_http_requests_total\{method="GET",route="\/api\/common\/system-static-info"/);

    // Both applied their migrations against one schema without tripping over each other: each once (more
    // than none let a migration recorded twice, or one left out, through), and a renamed migration under
    // its earlier name too, so that a rollback to a release that knows only that name finds it applied.
    const applied = await sql<{ name: string }>(`select name from "${schema}".mikro_orm_migrations order by name`);
    expect(applied.map((m) => m.name)).toEqual([...MIGRATIONS.map((m) => m.name), ...RENAMED_MIGRATIONS.map((m) => m.was)].sort());

    // Each process loads the modules of its own roles only: the worker neither the HTTP API's (express,
    // tsoa, Swagger UI) nor the operator's Kubernetes client.
    const httpApi = ['express', '@tsoa/runtime', 'swagger-ui-express'];
    expect(apiPackages.read()).toEqual(expect.arrayContaining([...httpApi, 'pg', 'redis']));
    expect(apiPackages.read()).not.toContain('@kubernetes/client-node');
    expect(workerPackages.read()).toEqual(expect.arrayContaining(['axios', 'pg', 'redis', 'prom-client']));
    for (const name of [...httpApi, '@kubernetes/client-node']) expect(workerPackages.read()).not.toContain(name);

    expect(await worker.stop()).toBe(0);
    expect(worker.logs().map((l) => l.msg)).toContain('stopped');
    expect(await api.stop()).toBe(0);
  }, 90_000);

  it('says in its start-up line what each role does, and which setting leaves a role with nothing to do', async () => {
    const startLines = (p: CliProcess) =>
      p
        .logs()
        .map((l) => String(l.msg))
        .filter((m) => / role started/.test(m));
    const offPort = await freePort();
    const off = startCli(['serve', '--roles', 'api,stream,worker'], { ...env, PORT: String(offPort), EVENTS_RELAY_ENABLED: 'false' });
    started.push(off);
    await off.waitForLog(
      'stream role started; SERVICE_SSE_ENABLED is off: no event streams are served, GET /api/maps/{map_id}/events/stream answers 403 sse_disabled',
    );
    await off.waitForLog('worker role started; SERVICE_WEBHOOKS_ENABLED is off: events are passed over and no webhooks are delivered');
    expect(startLines(off)).toEqual([
      `api role started: public API on http://127.0.0.1:${offPort}; EVENTS_RELAY_ENABLED is off: this process relays no events (they wait in PostgreSQL for a process that runs the relay); SERVICE_WEBHOOKS_ENABLED is off: /api/maps/{map_id}/webhooks answers 403 webhooks_disabled`,
      'stream role started; SERVICE_SSE_ENABLED is off: no event streams are served, GET /api/maps/{map_id}/events/stream answers 403 sse_disabled',
      'worker role started; SERVICE_WEBHOOKS_ENABLED is off: events are passed over and no webhooks are delivered',
    ]);
    // What the line says is what the stream answers.
    const stream = await fetch(`http://127.0.0.1:${offPort}/api/maps/demo/events/stream`);
    expect(stream.status).toBe(403);
    expect(await stream.json()).toMatchObject({ code: 'sse_disabled' });
    expect(await off.stop()).toBe(0);

    const onPort = await freePort();
    const on = startCli(['serve', '--roles', 'api,stream,worker'], {
      ...env,
      PORT: String(onPort),
      SERVICE_SSE_ENABLED: 'true',
      SERVICE_WEBHOOKS_ENABLED: 'true',
    });
    started.push(on);
    await on.waitForLog('worker role started: delivering webhooks');
    expect(startLines(on)).toEqual([
      `api role started: public API on http://127.0.0.1:${onPort} and the event relay`,
      `stream role started: serving event streams on http://127.0.0.1:${onPort}/api/maps/{map_id}/events/stream`,
      'worker role started: delivering webhooks',
    ]);
    expect(await on.stop()).toBe(0);
  }, 90_000);

  it('refuses a role this build does not have, in one line, before touching anything', () => {
    for (const role of ['operators', 'bogus']) {
      const r = runCli(['serve', '--roles', `api,${role}`], { ...env, PORT: '0' });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(new RegExp(`role "${role}".*available: api, stream, worker, operator`));
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('names every role and the ops port in serve --help', () => {
    const r = runCli(['serve', '--help'], {});
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/--roles <roles>/);
    expect(r.stdout).toMatch(/\n\s+api\s+public REST API/);
    expect(r.stdout).toMatch(/\n\s+stream\s+event stream \(SSE\)/);
    expect(r.stdout).toMatch(/\n\s+worker\s+webhook delivery/);
    expect(r.stdout).toMatch(/\n\s+operator\s+Kubernetes operator/);
    expect(r.stdout).toContain('OPS_PORT');
  });
});

describe('commands that build only what they need', () => {
  const fresh = () => ({ ...env, DATABASE_SCHEMA: uniqueName('cmd').toLowerCase() });

  it('migrate on an empty schema lists what it applied; a second run says the database is up to date', async () => {
    const e = fresh();
    try {
      const first = runCli(['migrate'], e);
      expect(first.status).toBe(0);
      expect(first.stdout).toMatch(/^applied: Migration\d+_initial, /);
      expect(first.stdout).not.toContain('up to date');
      const second = runCli(['migrate'], e);
      expect(second.status).toBe(0);
      expect(second.stdout).toBe('database is up to date\n');
    } finally {
      await sql(`DROP SCHEMA IF EXISTS "${e.DATABASE_SCHEMA}" CASCADE`);
    }
  });

  it('admin commands refuse a database with pending migrations, with a clear line, and change nothing', async () => {
    const e = fresh();
    try {
      const r = runCli(['admin', 'list-users'], e);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/pending migrations?: Migration\d+_initial/);
      expect(r.stderr).toContain('run `mapintel migrate` (`node dist/cli.js migrate` in a clone) first');
      expect(r.stderr).not.toMatch(/\n\s+at /);
      const tables = await sql<{ n: number }>(`select count(*)::int as n from information_schema.tables where table_schema = $1`, [e.DATABASE_SCHEMA]);
      expect(tables[0]!.n).toBe(0);
      expect(runCli(['migrate'], e).status).toBe(0);
      const ok = runCli(['admin', 'list-users'], e);
      expect(ok.status).toBe(0);
      expect(JSON.parse(ok.stdout)).toEqual([]);
    } finally {
      await sql(`DROP SCHEMA IF EXISTS "${e.DATABASE_SCHEMA}" CASCADE`);
    }
  });
});
