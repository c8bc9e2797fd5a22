/**
 * Events committed while the service's webhooks are off (SERVICE_WEBHOOKS_ENABLED not true) are never
 * delivered, even after the service is started again with them on: the worker role passes over them.
 * Real PostgreSQL, the in-process transport, a loopback receiver; one schema shared by three servers
 * started one after another.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { dropSchema, uniqueName } from '../support/db.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem } from '../support/sse.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { subscribe, toggleWebhooks, WEBHOOKS_ON } from '../support/webhooks.js';
import { apiRole } from '../../src/api/api.role.js';
import { workerRole } from '../../src/worker/worker.role.js';

const schema = uniqueName('whoff').toLowerCase();
let server: TestServer | undefined;
let receiver: Receiver | undefined;

const start = (env: Record<string, string>) =>
  startTestServer({ schema, roles: [apiRole, workerRole], env: { SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true', ...env } });

afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await dropSchema(schema);
});

describe('webhooks switched off for the service', () => {
  it('never delivers the events committed while they were off, and delivers those after', async () => {
    // On: subscribed, switched on for the map, one event delivered.
    server = await start(WEBHOOKS_ON);
    await importFixture(server.platform);
    const { map, key } = await makeMap(server.platform);
    receiver = await startReceiver();
    await subscribe(server, map.id, key, receiver, `${receiver.url}/hook`);
    await toggleWebhooks(server, map.id, key, true);
    await moveSystem(server, map.slug, key, 31000005);
    await receiver.waitFor(1);
    await server.close();
    server = undefined;

    // Off: two events written; the worker role moves the consumer past them and sends nothing.
    server = await start({ SERVICE_WEBHOOKS_ENABLED: 'false' });
    expect((await server.fetch(`/api/maps/${map.id}/webhooks`, { token: key })).status).toBe(403);
    await moveSystem(server, map.slug, key, 31000001);
    await moveSystem(server, map.slug, key, 31000008);
    // The relay gives each written event its id; then the newest of the three is the one written last.
    const written = async () =>
      (
        await server!.platform.orm.em
          .fork()
          .getConnection()
          .execute<{ n: string; id: string | null }[]>('select count(event_id)::text as n, max(event_id) as id from map_events where map_id = ?', [map.id])
      )[0]!;
    const position = async () =>
      (
        await server!.platform.orm.em
          .fork()
          .getConnection()
          .execute<{ id: string }[]>(`select last_event_id as id from event_consumer_positions where consumer = 'webhooks' and map_id = ?`, [map.id])
      )[0]?.id;
    await expect.poll(async () => (await written()).n, { timeout: 20_000, interval: 20 }).toBe('3');
    const lastOff = (await written()).id!;
    await expect.poll(position, { timeout: 10_000, interval: 50 }).toBe(lastOff);
    expect(receiver.received).toHaveLength(1);
    await server.close();
    server = undefined;

    // On again: only what is written from now on arrives.
    server = await start(WEBHOOKS_ON);
    await moveSystem(server, map.slug, key, 31000005);
    const got = await receiver.waitFor(2);
    await new Promise((r) => setTimeout(r, 1_000)); // a late delivery of the older events would show here
    const ids = receiver.received.map((r) => (JSON.parse(r.body) as { id: string }).id);
    expect(ids).toHaveLength(2);
    expect(got.every((r) => r.verified)).toBe(true);
    expect(ids[1]! > lastOff).toBe(true);
    const types = receiver.received.map((r) => (JSON.parse(r.body) as { type: string }).type);
    expect(types).toEqual(['add_system', 'system_metadata_changed']);
  });
});
