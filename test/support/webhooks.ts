/**
 * Webhook set-up through the public API, as an integrator does it: subscribe a receiver (its secret
 * goes to the receiver, which verifies with it) and switch the map's webhooks on.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestServer, type TestServer, type TestServerOptions } from './app.js';
import { importFixture } from './factories.js';
import { startReceiver, type Receiver } from './receiver.js';

type Fetcher = { fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response> };

/** What a server needs to manage webhooks and deliver them to the tests' loopback receivers. */
export const WEBHOOKS_ON = { SERVICE_WEBHOOKS_ENABLED: 'true', SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true' } as const;

/** POST /api/maps/{map_id}/webhooks for `url` (201 expected); the secret is given to `receiver`. */
export async function subscribe(
  s: Fetcher,
  mapId: string,
  key: string,
  receiver: Receiver,
  url: string,
  events: string[] = ['*'],
): Promise<{ id: string; secret: string }> {
  const res = await s.fetch(`/api/maps/${mapId}/webhooks`, {
    method: 'POST',
    token: key,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url, events }),
  });
  expect(res.status).toBe(201);
  const sub = ((await res.json()) as { data: { id: string; secret: string } }).data;
  receiver.secrets.push(sub.secret);
  return sub;
}

/** PUT /api/maps/{map_id}/webhooks/toggle (200 expected). */
export async function toggleWebhooks(s: Fetcher, mapId: string, key: string, enabled = true): Promise<void> {
  const res = await s.fetch(`/api/maps/${mapId}/webhooks/toggle`, {
    method: 'PUT',
    token: key,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ enabled }),
  });
  expect(res.status).toBe(200);
}

/**
 * For the describe block it is called in: a test server with `opts` and webhooks on (`WEBHOOKS_ON`
 * under `opts.env`), the static data fixture imported, and a loopback receiver, both closed after the
 * block. Their fields are set once the block's beforeAll ran: read them inside the tests.
 */
export function webhookServer(opts: TestServerOptions): { s: TestServer; receiver: Receiver } {
  const ctx = {} as { s: TestServer; receiver: Receiver };
  beforeAll(async () => {
    ctx.s = await startTestServer({ ...opts, env: { ...WEBHOOKS_ON, ...opts.env } });
    await importFixture(ctx.s.platform);
    ctx.receiver = await startReceiver();
  });
  afterAll(async () => {
    await ctx.receiver?.close();
    await ctx.s?.close();
  });
  return ctx;
}
