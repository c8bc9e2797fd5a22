/**
 * Helpers of the delivery-queue tests (test/integration/webhook-queue-*.test.ts): a server with webhook
 * management on, subscriptions made through the API and planned deliveries.
 */
import { startTestServer, type TestServer } from './app.js';
import { makeMap } from './factories.js';
import type { PlannedDelivery } from '../../src/webhooks/delivery.repository.js';

/** Webhook management on, plain-http loopback URLs allowed (the subscriptions point at a closed port). */
export function startQueueServer(): Promise<TestServer> {
  return startTestServer({ env: { SERVICE_WEBHOOKS_ENABLED: 'true', SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true' } });
}

let n = 0;
/** `count` webhook subscriptions on a new map (its webhooks switched on unless `toggle` is false). */
export async function subscriptions(t: TestServer, count: number, toggle = true) {
  const { map, key } = await makeMap(t.platform);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await t.fetch(`/api/maps/${map.id}/webhooks`, {
      method: 'POST',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:9/q${++n}`, events: ['*'] }),
    });
    ids.push(((await res.json()) as { data: { id: string } }).data.id);
  }
  if (toggle) {
    await t.fetch(`/api/maps/${map.id}/webhooks/toggle`, {
      method: 'PUT',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true }),
    });
  }
  return { mapId: map.id, key, ids };
}

/** `count` planned deliveries of distinct events to one subscription. */
export function planned(mapId: string, subscriptionId: string, count: number): PlannedDelivery[] {
  return Array.from({ length: count }, (_, i) => ({
    subscriptionId,
    mapId,
    eventId: `01JQ${String(++n).padStart(8, '0')}${String(i).padStart(14, '0')}`,
    eventType: 'add_system',
    eventAtMs: Date.now(),
    body: '{}',
  }));
}
