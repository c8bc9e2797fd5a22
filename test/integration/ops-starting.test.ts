/**
 * The ops port's /readyz while the process is still starting its roles: 503 `starting` until every
 * role has started (a worker whose consumer is not registered yet would miss the events committed
 * meanwhile), then by its checks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { dropSchema, prepareTestDatabase, testDatabaseEnv, uniqueName } from '../support/db.js';
import { TEST_ENCRYPTION_KEY } from '../support/app.js';
import { freePort } from '../support/redis-server.js';
import { waitFor } from '../support/wait.js';
import { loadConfig } from '../../src/common/config.js';
import { createLogger } from '../../src/common/log.js';
import { serve } from '../../src/cli/serve.js';
import type { Role } from '../../src/core/role.js';

const schema = uniqueName('opsstart').toLowerCase();
afterAll(async () => dropSchema(schema));

describe('the ops port while roles start', () => {
  it('answers /readyz 503 starting until every role has started, then 200', async () => {
    await prepareTestDatabase(schema);
    const port = await freePort();
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      OPS_PORT: String(port),
      OPS_HOST: '127.0.0.1',
      ...testDatabaseEnv(schema),
      SERVICE_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'silent',
    });
    let letStart!: () => void;
    const gate = new Promise<void>((r) => (letStart = r));
    const slow: Role = {
      name: 'slow',
      summary: 'a role whose start waits for the test',
      async start() {
        await gate;
        return { readiness: [], stopAccepting: async () => undefined, stop: async () => undefined };
      },
    };
    const serving = serve(config, { roles: [slow], logger: createLogger('silent') });
    const readyz = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      return { status: res.status, body: (await res.json()) as unknown };
    };
    let before: { status: number; body: unknown } | undefined;
    await waitFor(async () => {
      before = await readyz().catch(() => undefined);
      return before !== undefined;
    });
    // The database answers, but the role has not started.
    expect(before).toEqual({ status: 503, body: { ready: false, starting: true, checks: { database: true } } });
    letStart();
    const s = await serving;
    try {
      expect(await readyz()).toEqual({ status: 200, body: { ready: true, checks: { database: true } } });
    } finally {
      await s.shutdown();
    }
  });
});
