/**
 * Planning survives a failed statement: while another session holds a lock on the delivery queue, the
 * worker's planning insert runs into its lock timeout; the same events are planned again once the lock
 * goes, and an event planned after them cannot move the consumer's position past them.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem } from '../support/sse.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { apiRole } from '../../src/api/api.role.js';
import { workerRole } from '../../src/worker/worker.role.js';
import { subscribe, toggleWebhooks, WEBHOOKS_ON } from '../support/webhooks.js';

describe('webhook planning after a failed insert', () => {
  let s: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    s = await startTestServer({
      roles: [apiRole, workerRole],
      env: {
        ...WEBHOOKS_ON,
        DATABASE_LOCK_TIMEOUT_MS: '300',
      },
    });
    await importFixture(s.platform);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await s?.close();
  });

  it('plans the events of a failed insert again; none is skipped', async () => {
    const { map, key } = await makeMap(s.platform);
    await subscribe(s, map.id, key, receiver, `${receiver.url}/p`);
    await toggleWebhooks(s, map.id, key);

    // Another session locks the queue against inserts for 2.5 s: planning fails on its lock timeout.
    const locker = new pg.Client({ connectionString: s.config.databaseUrl, options: `-c search_path=${s.config.databaseSchema},public` });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table webhook_deliveries in share mode');
      await moveSystem(s, map.slug, key);
      await new Promise((r) => setTimeout(r, 1_200));
      await moveSystem(s, map.slug, key, 31000001);
      await new Promise((r) => setTimeout(r, 1_300));
      expect(receiver.received).toHaveLength(0);
      await locker.query('commit');
    } finally {
      await locker.end();
    }

    const log = ((await (await s.fetch(`/api/maps/${map.id}/events?limit=100`, { token: key })).json()) as { data: { id: string }[] }).data;
    const got = await receiver.waitFor(log.length, 10_000);
    expect(got.map((r) => r.headers['x-service-event-id']).sort()).toEqual(log.map((e) => e.id).sort());
  }, 30_000);
});
