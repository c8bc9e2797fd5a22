/**
 * syncMap against a real server: it loads the map and follows it (the state equals the REST answers
 * after edits), loses and repeats nothing of edits made while it loads (a writer edits as fast as it
 * can meanwhile; every event after the loaded id applied once, in the log's order), resumes from the
 * last applied event after the stream drops mid-way, and reads the map again on `event: reset`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/support/app.js';
import { importFixture, makeMap } from '../../../test/support/factories.js';
import { gate } from '../../../test/support/receiver.js';
import { createMapIntelClient, syncMap, type MapChange, type MapState } from '../src/index.js';

const SYSTEMS = [31000005, 31000001, 31000008, 31000356, 31000881, 31001361];

describe('syncMap', () => {
  let t: TestServer;
  /** A server with a small backfill limit: a resume more than three events behind gets `event: reset`. */
  let small: TestServer;

  beforeAll(async () => {
    const env = { SERVICE_SSE_ENABLED: 'true', SERVICE_RATE_LIMIT_PER_MINUTE: '100000' };
    [t, small] = await Promise.all([startTestServer({ env }), startTestServer({ env: { ...env, STREAM_BACKFILL_MAX: '3' } })]);
    await importFixture(t.platform);
    await importFixture(small.platform);
  }, 900_000);
  afterAll(async () => {
    await t?.close();
    await small?.close();
  });

  /** A map with the six systems and a chain of connections between them, and an editor of it. */
  async function chain(srv = t) {
    const { map, key } = await makeMap(srv.platform);
    const api = createMapIntelClient({ baseUrl: srv.url, token: key });
    const ok = async (p: Promise<{ response: Response }>) => expect((await p).response.status).toBeLessThan(300);
    for (const [i, sid] of SYSTEMS.entries())
      await ok(
        api.POST('/api/maps/{map_id}/systems', { params: { path: { map_id: map.id } }, body: { solar_system_id: sid, position_x: i * 100, position_y: 0 } }),
      );
    for (let i = 0; i + 1 < SYSTEMS.length; i++)
      await ok(
        api.POST('/api/maps/{map_id}/connections', {
          params: { path: { map_id: map.id } },
          body: { solar_system_source: SYSTEMS[i]!, solar_system_target: SYSTEMS[i + 1]! },
        }),
      );
    return { map, key, api, ok };
  }

  /** What the REST API answers now, in the fields the events carry. */
  async function restState(key: string, mapId: string, srv = t) {
    const api = createMapIntelClient({ baseUrl: srv.url, token: key });
    const systems = (await api.GET('/api/map/systems', { params: { query: { map_id: mapId } } })).data!.data;
    const connections = (await api.GET('/api/map/connections', { params: { query: { map_id: mapId } } })).data!.data;
    return project({ systems: new Map(systems.map((s) => [s.solar_system_id, s])), connections: new Map(connections.map((c) => [c.id, c])), lastEventId: '' });
  }
  function project(s: MapState) {
    return {
      systems: [...s.systems.values()]
        .map((x) => ({ ssid: x.solar_system_id, name: x.name, custom_name: x.custom_name, tag: x.tag, status: x.status, x: x.position_x, y: x.position_y }))
        .sort((a, b) => a.ssid - b.ssid),
      connections: [...s.connections.values()]
        .map((c) => ({
          id: c.id,
          a: c.solar_system_source,
          b: c.solar_system_target,
          mass: c.mass_status,
          time: c.time_status,
          size: c.ship_size_type,
          wh: c.wormhole_type,
        }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    };
  }
  async function logIds(key: string, mapId: string, afterId: string, srv = t): Promise<string[]> {
    const api = createMapIntelClient({ baseUrl: srv.url, token: key });
    const ids: string[] = [];
    let cursor: string | null = afterId === '0' ? '00000000000000000000000000' : afterId;
    while (cursor) {
      const page: { data: { id: string }[]; next_after?: string | null } = (
        await api.GET('/api/maps/{map_id}/events', { params: { path: { map_id: mapId }, query: { after: cursor, limit: 1000 } } })
      ).data!;
      ids.push(...page.data.map((e) => e.id));
      cursor = page.next_after ?? null;
    }
    return ids;
  }

  it('loads the map and follows it: the state is the REST answer after each kind of edit', async () => {
    const { map, key, api, ok } = await chain();
    const changes: MapChange[] = [];
    const synced = await syncMap({ baseUrl: t.url, token: key, map: map.slug, onChange: (_s, c) => changes.push(c) });
    try {
      expect(changes).toEqual([{ type: 'load', reason: 'start', eventId: expect.stringMatching(/^[0-9A-Z]{26}$/) }]);
      expect(project(synced.state)).toEqual(await restState(key, map.id));
      const [c0] = [...synced.state.connections.keys()];
      await ok(
        api.PATCH('/api/maps/{map_id}/systems/{solar_system_id}', {
          params: { path: { map_id: map.id, solar_system_id: SYSTEMS[0]! } },
          body: { custom_name: 'Home', tag: 'H', status: 1, position_x: 5, position_y: 7 },
        }),
      );
      await ok(
        api.PATCH('/api/maps/{map_id}/connections/{id}', {
          params: { path: { map_id: map.id, id: c0! } },
          body: { mass_status: 2, time_status: 1, wormhole_type: 'K162' },
        }),
      );
      await ok(api.DELETE('/api/maps/{map_id}/systems/{solar_system_id}', { params: { path: { map_id: map.id, solar_system_id: SYSTEMS[5]! } } }));
      const final = await restState(key, map.id);
      await expect.poll(async () => (await synced.settled(), project(synced.state)), { timeout: 15_000 }).toEqual(final);
      expect(synced.state.systems.get(SYSTEMS[0]!)).toMatchObject({ custom_name: 'Home', tag: 'H', status: 1 });
      expect(changes.filter((c) => c.type === 'event').map((c) => (c as { id: string }).id)).toEqual(
        await logIds(key, map.id, changes[0]!.type === 'load' ? changes[0]!.eventId : ''),
      );
    } finally {
      synced.close();
    }
  }, 120_000);

  it('loses and repeats nothing of the edits made while it loads', async () => {
    const { map, key, api, ok } = await chain();
    const ids = [...(await restState(key, map.id)).connections.map((c) => c.id)];
    // A writer edits as fast as it can from before the load until after it.
    let writing = true;
    let edits = 0;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const sid = SYSTEMS[i % SYSTEMS.length]!;
        if (i % 3 === 2)
          await ok(
            api.PATCH('/api/maps/{map_id}/connections/{id}', { params: { path: { map_id: map.id, id: ids[i % ids.length]! } }, body: { mass_status: i % 3 } }),
          );
        else
          await ok(
            api.PATCH('/api/maps/{map_id}/systems/{solar_system_id}', {
              params: { path: { map_id: map.id, solar_system_id: sid } },
              body: { position_x: i, position_y: -i },
            }),
          );
        edits++;
      }
    })();
    while (edits < 5) await new Promise((r) => setTimeout(r, 10));
    // The reads are slowed down a little, so that edits land between them and before the stream opens.
    const slow: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input).includes('/events/stream')) await new Promise((r) => setTimeout(r, 150));
      return res;
    };
    const applied: string[] = [];
    let loadedAt = '';
    const synced = await syncMap({
      baseUrl: t.url,
      token: key,
      map: map.id,
      fetch: slow,
      onChange: (_s, c) => (c.type === 'event' ? applied.push(c.id) : (loadedAt = c.eventId)),
    });
    try {
      const atLoad = edits;
      while (edits < atLoad + 10) await new Promise((r) => setTimeout(r, 10));
      writing = false;
      await writer;
      // The state reaches the final one (the last edit's event can be published a moment after its answer).
      const final = await restState(key, map.id);
      await expect.poll(() => project(synced.state), { timeout: 20_000 }).toEqual(final);
      // Every event after the loaded state's id, once, in order.
      const expected = await logIds(key, map.id, loadedAt);
      expect(applied).toEqual(expected);
      expect(new Set(applied).size).toBe(applied.length);
      expect(synced.loads).toBe(1);
    } finally {
      writing = false;
      synced.close();
    }
  }, 120_000);

  it('resumes from the last applied event after the stream drops mid-way, and reads again on `event: reset`', async () => {
    const { map, key, api, ok } = await chain(small);
    // Each stream connection can be cut by the test; a reconnection waits at the gate while it is shut.
    let cut: AbortController | null = null;
    let back = gate();
    let shut = false;
    const streams: (string | null)[] = [];
    const cuttable: typeof fetch = async (input, init) => {
      if (!String(input).includes('/events/stream')) return fetch(input, init);
      streams.push(new Headers(init?.headers).get('last-event-id'));
      if (shut) await back.hold;
      const mine = new AbortController();
      cut = mine;
      init?.signal?.addEventListener('abort', () => mine.abort(), { once: true });
      return fetch(input, { ...init, signal: mine.signal });
    };
    const changes: MapChange[] = [];
    const synced = await syncMap({
      baseUrl: small.url,
      token: key,
      map: map.slug,
      fetch: cuttable,
      minBackoffMs: 20,
      maxBackoffMs: 100,
      onChange: (_s, c) => changes.push(c),
    });
    const applied = () => changes.filter((c) => c.type === 'event').map((c) => (c as { id: string }).id);
    const move = (sid: number, x: number) =>
      ok(
        api.PATCH('/api/maps/{map_id}/systems/{solar_system_id}', {
          params: { path: { map_id: map.id, solar_system_id: sid } },
          body: { position_x: x, position_y: 0 },
        }),
      );
    try {
      await move(SYSTEMS[0]!, 1000);
      await expect.poll(() => applied().length, { timeout: 15_000 }).toBe(1);
      // Cut mid-stream; two edits while away (within the backfill limit): replayed once each.
      shut = true;
      cut!.abort();
      await move(SYSTEMS[1]!, 1001);
      await move(SYSTEMS[2]!, 1002);
      back.open();
      await expect.poll(() => applied().length, { timeout: 15_000 }).toBe(3);
      expect(streams.at(-1)).toBe(applied()[0]);
      expect(applied()).toEqual(await logIds(key, map.id, (changes[0] as { eventId: string }).eventId, small));
      expect(synced.loads).toBe(1);

      // Cut again; five edits while away, more than STREAM_BACKFILL_MAX (3): the resume gets a reset.
      back = gate();
      cut!.abort();
      for (let i = 0; i < 5; i++) await move(SYSTEMS[3]!, 2000 + i);
      back.open();
      await expect.poll(() => synced.loads, { timeout: 15_000 }).toBe(2);
      expect(changes.filter((c) => c.type === 'load').map((c) => (c as { reason: string }).reason)).toEqual(['start', 'reset']);
      expect(project(synced.state)).toEqual(await restState(key, map.id, small));
      // And live again after the reset, from the new read's id.
      await move(SYSTEMS[4]!, 3000);
      await expect.poll(() => synced.state.systems.get(SYSTEMS[4]!)?.position_x, { timeout: 15_000 }).toBe(3000);
      expect(project(synced.state)).toEqual(await restState(key, map.id, small));
    } finally {
      shut = false;
      back.open();
      synced.close();
    }
  }, 120_000);
});
