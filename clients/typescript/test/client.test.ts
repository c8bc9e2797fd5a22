/**
 * The package against a real server (api, stream and worker roles): typed map reads, an edit that the
 * reads then show, and a real webhook delivery to a loopback receiver verified by verifyWebhook in both
 * header families (and by the `standardwebhooks` package, the same bytes), a tampered one refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestServer, type TestServer } from '../../../test/support/app.js';
import { importFixture, makeMap } from '../../../test/support/factories.js';
import { startReceiver, type Receiver } from '../../../test/support/receiver.js';
import { apiRole } from '../../../src/api/api.role.js';
import { streamRole } from '../../../src/stream/stream.role.js';
import { workerRole } from '../../../src/worker/worker.role.js';
import { createMapIntelClient, verifyWebhook, WebhookVerificationError, type MapIntelClient } from '../src/index.js';

let t: TestServer;
let receiver: Receiver;
let client: MapIntelClient;
let mapId: string;
let slug: string;

beforeAll(async () => {
  t = await startTestServer({
    roles: [apiRole, streamRole, workerRole],
    env: { SERVICE_WEBHOOKS_ENABLED: 'true', SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true', SERVICE_SSE_ENABLED: 'true' },
  });
  await importFixture(t.platform);
  receiver = await startReceiver();
  const made = await makeMap(t.platform);
  mapId = made.map.id;
  slug = made.map.slug;
  client = createMapIntelClient({ baseUrl: `${t.url}/`, token: made.key });
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

describe('the typed client', () => {
  it('reads the map, edits it, and reads the edit back', async () => {
    const empty = await client.GET('/api/map/systems', { params: { query: { slug } } });
    expect(empty.response.status).toBe(200);
    expect(empty.error).toBeUndefined();
    expect(empty.data?.data).toEqual([]);

    const added = await client.POST('/api/maps/{map_id}/systems', {
      params: { path: { map_id: slug } },
      body: { solar_system_id: 31000005, position_x: 10, position_y: 20 },
    });
    expect(added.response.status).toBe(201);
    expect(added.data?.data).toMatchObject({ solar_system_id: 31000005, position_x: 10, position_y: 20, map_id: mapId });

    const bySlug = await client.GET('/api/map/systems', { params: { query: { slug } } });
    expect(bySlug.data?.data.map((s) => s.solar_system_id)).toEqual([31000005]);
    const one = await client.GET('/api/maps/{map_id}/systems/{solar_system_id}', { params: { path: { map_id: mapId, solar_system_id: 31000005 } } });
    expect(one.data?.data).toMatchObject({ solar_system_id: 31000005, position_x: 10 });
  });

  it('answers errors as typed error bodies, not exceptions', async () => {
    const missing = await client.GET('/api/maps/{map_id}/systems/{solar_system_id}', { params: { path: { map_id: mapId, solar_system_id: 31000001 } } });
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
    expect(missing.error).toMatchObject({ code: 'system_not_found' });
    const unauthorized = await createMapIntelClient({ baseUrl: t.url, token: 'mik_not-a-real-key-at-all-000000000' }).GET('/api/map/systems', {
      params: { query: { slug } },
    });
    expect(unauthorized.response.status).toBe(401);
    expect(unauthorized.error).toMatchObject({ code: 'unauthorized' });
  });
});

describe('verifyWebhook on a real delivery', () => {
  it('verifies both header families of a delivery and refuses a tampered body, another secret and an old timestamp', async () => {
    const sub = await client.POST('/api/maps/{map_id}/webhooks', {
      params: { path: { map_id: mapId } },
      body: { url: receiver.url, events: ['add_system'] },
    });
    expect(sub.response.status).toBe(201);
    const secret = sub.data!.data.secret;
    receiver.secrets.push(secret);
    const toggled = await client.PUT('/api/maps/{map_id}/webhooks/toggle', { params: { path: { map_id: mapId } }, body: { enabled: true } });
    expect(toggled.response.status).toBe(200);
    await client.POST('/api/maps/{map_id}/systems', { params: { path: { map_id: mapId } }, body: { solar_system_id: 31000001, position_x: 1, position_y: 1 } });

    const [delivery] = await receiver.waitFor(1, 30_000);
    const { body, headers } = delivery!;
    const standard = verifyWebhook({ secret, body, headers, scheme: 'standard' });
    const service = verifyWebhook({ secret, body, headers, scheme: 'service' });
    const any = verifyWebhook({ secret, body, headers: new Headers(headers as Record<string, string>) });
    expect([standard.scheme, service.scheme, any.scheme]).toEqual(['standard', 'service', 'standard']);
    expect(standard.event).toMatchObject({ type: 'add_system', map_id: mapId, payload: expect.objectContaining({ solar_system_id: 31000001 }) });
    expect(standard.event.id).toBe(headers['webhook-id']);
    expect(service.timestamp).toBe(Number(headers['x-service-timestamp']));
    // The same delivery verifies with the Standard Webhooks package and the secret's whsec_ form.
    expect(new Webhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`).verify(body, headers as Record<string, string>)).toEqual(standard.event);

    const tampered = body.replace('"add_system"', '"deleted_system"');
    expect(tampered).not.toBe(body);
    for (const scheme of ['standard', 'service'] as const) {
      expect(() => verifyWebhook({ secret, body: tampered, headers, scheme })).toThrow(WebhookVerificationError);
      expect(() => verifyWebhook({ secret: `${secret}x`, body, headers, scheme })).toThrow(/No matching signature/);
      expect(() => verifyWebhook({ secret, body, headers, scheme, now: Date.now() + 600_000 })).toThrow(/tolerance/);
      expect(verifyWebhook({ secret, body, headers, scheme, now: Date.now() + 600_000, toleranceSeconds: 3600 }).scheme).toBe(scheme);
    }
    expect(() => verifyWebhook({ secret, body, headers: {} })).toThrow(/Missing x-service-signature/);
  });
});
