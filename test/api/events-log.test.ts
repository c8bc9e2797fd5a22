import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeKill, makeMap, makeSystem } from '../support/factories.js';
import type { EventEnvelope } from '../../src/events/envelope.js';
import { pruneEvents } from '../../src/events/relay.js';
import pg from 'pg';
import { waitFor } from '../support/wait.js';

describe('GET /api/maps/{map_id}/events', () => {
  let t: TestServer;
  let key: string;
  let mapId: string;
  let slug: string;
  let otherKey: string;

  beforeAll(async () => {
    t = await startTestServer();
    await importFixture(t.platform);
    const m = await makeMap(t.platform);
    ({ key } = m);
    mapId = m.map.id;
    slug = m.map.slug;
    otherKey = (await makeMap(t.platform)).key;
    await makeSystem(t.platform, mapId, 30000142);
    await makeSystem(t.platform, mapId, 31000005);
    await makeKill(t.platform, mapId, 30000142, { killmailId: 555 });
    await waitFor(async () => {
      const res = await t.fetch(`/api/maps/${mapId}/events`, { token: key });
      return ((await res.json()) as { data: unknown[] }).data.length === 3;
    });
  });
  afterAll(async () => t?.close());

  it('answers the map events as envelopes, oldest first, with strictly increasing ids', async () => {
    const res = await t.fetch(`/api/maps/${slug}/events`, { token: key });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: EventEnvelope[]; next_after: string | null };
    expect(body.next_after).toBeNull();
    expect(body.data.map((e) => e.type)).toEqual(['add_system', 'add_system', 'map_kill']);
    for (const e of body.data) {
      expect(Object.keys(e).sort()).toEqual(['id', 'map_id', 'payload', 'ts', 'type']);
      expect(e.map_id).toBe(mapId);
      expect(e.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(body.data[0]!.id < body.data[1]!.id && body.data[1]!.id < body.data[2]!.id).toBe(true);
    expect(body.data[0]!.payload).toMatchObject({ solar_system_id: 30000142, name: 'Jita', statics: [] });
    expect(body.data[2]!.payload).toMatchObject({ killmail_id: 555, system_name: 'Jita', solar_system_id: 30000142 });
  });

  it('pages with after and limit', async () => {
    const all = ((await (await t.fetch(`/api/maps/${mapId}/events`, { token: key })).json()) as { data: EventEnvelope[] }).data;
    const first = (await (await t.fetch(`/api/maps/${mapId}/events?limit=2`, { token: key })).json()) as { data: EventEnvelope[]; next_after: string };
    expect(first.data.map((e) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
    expect(first.next_after).toBe(all[1]!.id);
    const rest = (await (await t.fetch(`/api/maps/${mapId}/events?after=${first.next_after.toLowerCase()}`, { token: key })).json()) as {
      data: EventEnvelope[];
    };
    expect(rest.data.map((e) => e.id)).toEqual([all[2]!.id]);
  });

  it('answers 400 invalid_event_id for a malformed after, 400 for a bad limit', async () => {
    const res = await t.fetch(`/api/maps/${mapId}/events?after=not-a-ulid`, { token: key });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('invalid_event_id');
    expect((await t.fetch(`/api/maps/${mapId}/events?limit=0`, { token: key })).status).toBe(400);
    expect((await t.fetch(`/api/maps/${mapId}/events?limit=5000`, { token: key })).status).toBe(400);
  });

  it('answers 404 for a key of another map and 401 without a key', async () => {
    expect((await t.fetch(`/api/maps/${mapId}/events`, { token: otherKey })).status).toBe(404);
    expect((await t.fetch(`/api/maps/${mapId}/events`)).status).toBe(401);
  });

  it('prunes published events older than the retention window, in batches', async () => {
    // A session of its own (options): straight to PostgreSQL when the server's URL goes through a pooler.
    const pool = new pg.Pool({ connectionString: t.config.databaseSessionUrl ?? t.platform.databaseUrl, options: `-c search_path=${t.config.databaseSchema}` });
    try {
      // Only events behind the map's publication cursor are pruned, and the relay moves cursors at most
      // every 100 ms: wait until it covers all three.
      await waitFor(
        async () =>
          (
            await pool.query(
              `select 1 from map_event_cursors c where c.map_id = $1 and c.published_event_id >= (select max(event_id) from map_events where map_id = $1)`,
              [mapId],
            )
          ).rowCount === 1,
        5_000,
        'the publication cursor to cover the events',
      );
      await pool.query(`update map_events set created_at = now() - interval '8 days' where map_id = $1 and type = 'add_system'`, [mapId]);
      const removed = await pruneEvents(pool, 7 * 86_400_000, 1);
      expect(removed).toBe(2);
      const left = await pool.query<{ type: string }>('select type from map_events where map_id = $1', [mapId]);
      expect(left.rows.map((r) => r.type)).toEqual(['map_kill']);
    } finally {
      await pool.end();
    }
  });
});
