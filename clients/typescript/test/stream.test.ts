/**
 * streamEvents against real servers: it reads live events, survives a server restart by reconnecting
 * with Last-Event-ID (events written while it was away are replayed, none lost, none twice), surfaces
 * `event: reset`, and stops on a refusal it cannot get past.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/app.js';
import { importFixture, makeMap } from '../../../test/support/factories.js';
import { gate } from '../../../test/support/receiver.js';
import { dropSchema } from '../../../test/support/db.js';
import { createMapIntelClient, streamEvents, StreamError, type StreamItem } from '../src/index.js';

const SSE = { SERVICE_SSE_ENABLED: 'true' };
const servers: TestServer[] = [];
let schema: string | undefined;
afterAll(async () => {
  for (const s of servers.reverse()) await s.close().catch(() => undefined);
  if (schema) await dropSchema(schema);
});

const SYSTEMS = [31000005, 31000001, 31000008, 31000356, 31000881, 31001361];

async function addSystem(baseUrl: string, token: string, mapId: string, solarSystemId: number): Promise<void> {
  const res = await createMapIntelClient({ baseUrl, token }).POST('/api/maps/{map_id}/systems', {
    params: { path: { map_id: mapId } },
    body: { solar_system_id: solarSystemId, position_x: 1, position_y: 1 },
  });
  expect(res.response.status).toBe(201);
}

/** The next item that is not a `connected` frame. */
async function nextEvent(it: AsyncGenerator<StreamItem>): Promise<StreamItem> {
  for (;;) {
    const r = await it.next();
    if (r.done) throw new Error('the stream ended');
    if (r.value.type !== 'connected') return r.value;
  }
}

describe('streamEvents', () => {
  it('loses nothing across a server restart: it resumes with Last-Event-ID and gets what was written meanwhile', async () => {
    const first = await startTestServer({ env: SSE, keepSchema: true });
    servers.push(first);
    schema = first.config.databaseSchema;
    await importFixture(first.platform);
    const { map, key } = await makeMap(first.platform);
    const port = new URL(first.url).port;

    // Every connection after the first waits for the gate: the test decides when the client comes back.
    const back = gate();
    const connections: { lastEventId: string | null }[] = [];
    const gatedFetch: typeof fetch = async (input, init) => {
      connections.push({ lastEventId: new Headers(init?.headers).get('last-event-id') });
      if (connections.length > 1) await back.hold;
      return fetch(input, init);
    };
    const reconnects: string[] = [];
    const stop = new AbortController();
    const it = streamEvents({
      baseUrl: first.url,
      token: key,
      map: map.slug,
      fetch: gatedFetch,
      minBackoffMs: 20,
      maxBackoffMs: 200,
      signal: stop.signal,
      onReconnect: (i) => reconnects.push(i.reason),
    });
    const connected = await it.next();
    expect(connected.value).toMatchObject({ type: 'connected', map_id: map.id, last_event_id: null });

    const seen: string[] = [];
    for (const sid of SYSTEMS.slice(0, 3)) {
      await addSystem(first.url, key, map.id, sid);
      const item = await nextEvent(it);
      expect(item).toMatchObject({ type: 'event', event: { type: 'add_system', payload: expect.objectContaining({ solar_system_id: sid }) } });
      seen.push((item as Extract<StreamItem, { type: 'event' }>).id);
    }

    // The server goes away; the client's next read drives its reconnection, held at the gate.
    await first.server.shutdown();
    const resumed = it.next();
    const second = await startTestServer({ env: { ...SSE, PORT: port }, schema });
    servers.push(second);
    expect(second.url).toBe(first.url);
    for (const sid of SYSTEMS.slice(3, 5)) await addSystem(second.url, key, map.id, sid);
    back.open();

    const again = await resumed;
    expect(again.value).toMatchObject({ type: 'connected', map_id: map.id });
    for (const sid of SYSTEMS.slice(3, 5)) {
      const item = await nextEvent(it);
      expect(item).toMatchObject({ type: 'event', event: { payload: expect.objectContaining({ solar_system_id: sid }) } });
      seen.push((item as Extract<StreamItem, { type: 'event' }>).id);
    }
    // And live again.
    await addSystem(second.url, key, map.id, SYSTEMS[5]!);
    const live = await nextEvent(it);
    seen.push((live as Extract<StreamItem, { type: 'event' }>).id);
    stop.abort();
    expect((await it.next()).done).toBe(true);

    expect(connections[0]!.lastEventId).toBeNull();
    expect(connections.slice(1).map((c) => c.lastEventId)).toContain(seen[2]);
    expect(reconnects.length).toBeGreaterThan(0);
    // Exactly the map's event log: every event once, in order.
    const log = await createMapIntelClient({ baseUrl: second.url, token: key }).GET('/api/maps/{map_id}/events', {
      params: { path: { map_id: map.id }, query: { limit: 100 } },
    });
    expect(seen).toEqual(log.data!.data.map((e) => e.id));
    expect(seen.length).toBe(6);
  });

  it('surfaces event: reset when the id to resume from is past the newest event, then goes on live', async () => {
    const s = await startTestServer({ env: SSE });
    servers.push(s);
    await importFixture(s.platform);
    const { map, key } = await makeMap(s.platform);
    const it = streamEvents({ baseUrl: s.url, token: key, map: map.id, lastEventId: '7ZZZZZZZZZZZZZZZZZZZZZZZZZ' });
    const items: StreamItem[] = [(await it.next()).value as StreamItem, (await it.next()).value as StreamItem];
    expect(items.map((i) => i.type)).toEqual(['connected', 'reset']);
    expect(items[1]).toMatchObject({ type: 'reset', reason: expect.any(String) });
    await addSystem(s.url, key, map.id, 31000005);
    expect(await nextEvent(it)).toMatchObject({ type: 'event', event: { type: 'add_system' } });
    await it.return();
  });

  it('stops with a StreamError on a refusal reconnecting cannot fix (a bad key)', async () => {
    const s = await startTestServer({ env: SSE });
    servers.push(s);
    const { map } = await makeMap(s.platform);
    const it = streamEvents({ baseUrl: s.url, token: 'mik_not-a-real-key-at-all-000000000', map: map.slug });
    const refused = await it.next().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StreamError);
    expect(refused).toMatchObject({ status: 401, code: 'unauthorized' });
  });
});
