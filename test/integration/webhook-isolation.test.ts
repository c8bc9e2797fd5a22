/**
 * Fairness of the delivery worker: receivers that never answer hold one slot each while their
 * attempts run to the timeout, so a healthy receiver on the same worker keeps getting its events
 * at once, long before any of those slots frees up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem } from '../support/sse.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { apiRole } from '../../src/api/api.role.js';
import { workerRole } from '../../src/worker/worker.role.js';
import { subscribe, toggleWebhooks, WEBHOOKS_ON } from '../support/webhooks.js';

// Long enough that the healthy receiver's events arrive before it however slow the machine; the
// hanging receivers never answer.
const TIMEOUT_MS = 20_000;

describe('webhook worker isolation', () => {
  let s: TestServer;
  let hanging: Receiver;
  let healthy: Receiver;

  beforeAll(async () => {
    s = await startTestServer({
      roles: [apiRole, workerRole],
      env: {
        ...WEBHOOKS_ON,
        WEBHOOK_CONCURRENCY: '6',
        WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: '4',
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOK_RETRY_WAITS: '30s',
      },
    });
    await importFixture(s.platform);
    hanging = await startReceiver();
    hanging.reply = () => ({ status: 200, hold: new Promise(() => undefined) });
    healthy = await startReceiver();
  });
  afterAll(async () => {
    await hanging?.close();
    await healthy?.close();
    await s?.close();
  });

  it('gives receivers that hang one slot each; a healthy receiver gets every event before their attempts time out', async () => {
    const dead = await makeMap(s.platform);
    for (const path of ['h0', 'h1', 'h2']) await subscribe(s, dead.map.id, dead.key, hanging, `${hanging.url}/${path}`);
    await toggleWebhooks(s, dead.map.id, dead.key);
    const live = await makeMap(s.platform);
    await subscribe(s, live.map.id, live.key, healthy, `${healthy.url}/ok`);
    await toggleWebhooks(s, live.map.id, live.key);

    // Five events for each hanging subscription (15 deliveries, more than the worker's 6 slots)...
    for (let i = 0; i < 5; i++) await moveSystem(s, dead.map.slug, dead.key);
    await hanging.waitFor(3, 15_000, () => true);
    const hangStart = hanging.received[0]!.at;
    // ...then ten for the healthy one, while those attempts hang.
    for (let i = 0; i < 10; i++) await moveSystem(s, live.map.slug, live.key);
    const got = await healthy.waitFor(10, TIMEOUT_MS);
    const lastArrival = Math.max(...got.map((r) => r.at));
    expect(lastArrival - hangStart).toBeLessThan(TIMEOUT_MS);
    // Until the first timeout, the hanging receiver saw one request per subscription, no more.
    const beforeTimeout = hanging.received.filter((r) => r.at < hangStart + TIMEOUT_MS - 100);
    expect(beforeTimeout.map((r) => r.path).sort()).toEqual(['/hook/h0', '/hook/h1', '/hook/h2']);
  }, 60_000);
});
