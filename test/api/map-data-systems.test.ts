/**
 * Map data endpoints (spec 4.1), GET /api/map/systems, GET /api/map/system and GET /api/map/connections: exact fields and types, timestamps, visibility and filters.
 * Fixture: test/support/map-data-fixture.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import { makeSystem } from '../support/factories.js';
import { startMapData, type MapData } from '../support/map-data-fixture.js';
import { CONNECTION_SHAPE, expectShape, getJson, type Json, MICRO, SYSTEM_SHAPE } from '../support/map-data-shapes.js';

describe('map data endpoints (spec 4.1)', () => {
  let t: TestServer;
  let key: string;
  let keyB: string;
  let mapId: string;
  let slug: string;
  let mapIdB: string;
  let sys: MapData['sys'];
  let conn: MapData['conn'];

  beforeAll(async () => {
    ({ t, key, keyB, mapId, slug, mapIdB, sys, conn } = await startMapData());
  });
  afterAll(async () => t?.close());

  /** GET with the map A key by default; `null` sends no token. */
  const get = (path: string, token: string | null = key) => getJson(t, path, token);

  describe('GET /api/map/systems', () => {
    it('answers the visible systems, each with exactly the fields of spec 2.1 in their types', async () => {
      const { status, res, body } = await get(`/api/map/systems?map_id=${mapId}`);
      expect(status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(body)).toEqual(['data']);
      const data = body.data as Json[];
      expect(data.map((s) => s.solar_system_id).sort()).toEqual([30000142, 31001880]);
      for (const s of data) expectShape(s, SYSTEM_SHAPE, `system ${String(s.name)}`);
      const jita = data.find((s) => s.solar_system_id === 30000142);
      expect(jita).toEqual({
        id: sys.jita,
        name: 'Jita',
        status: 1,
        tag: 'HQ',
        visible: true,
        description: 'trade hub',
        labels: '["market"]',
        inserted_at: expect.stringMatching(MICRO),
        updated_at: expect.stringMatching(MICRO),
        locked: true,
        solar_system_id: 30000142,
        map_id: mapId,
        custom_name: 'Home',
        position_x: 10,
        position_y: -20,
      });
      const wh = data.find((s) => s.solar_system_id === 31001880);
      expect(wh).toMatchObject({
        id: sys.j152820,
        name: 'J152820',
        status: 0,
        tag: null,
        description: null,
        labels: null,
        custom_name: null,
        locked: false,
        position_x: 300,
        position_y: 40,
      });
    });

    it('stamps inserted_at and updated_at with the time of the write, in microseconds UTC', async () => {
      const before = Date.now();
      await makeSystem(t.platform, mapIdB, 31000008);
      const after = Date.now();
      const { body } = await get(`/api/map/system?map_id=${mapIdB}&id=31000008`, keyB);
      const s = body.data as { inserted_at: string; updated_at: string };
      for (const ts of [s.inserted_at, s.updated_at]) {
        expect(ts).toMatch(MICRO);
        const ms = Date.parse(ts);
        expect(ms).toBeGreaterThanOrEqual(before - 1000);
        expect(ms).toBeLessThanOrEqual(after + 1000);
      }
    });

    it('adds the hidden systems with all=true and only the visible ones with all=false', async () => {
      const all = await get(`/api/map/systems?slug=${slug}&all=true`);
      const data = all.body.data as Json[];
      expect(data.map((s) => [s.solar_system_id, s.visible]).sort()).toEqual([
        [30000142, true],
        [31000005, false],
        [31001880, true],
      ]);
      for (const s of data) expectShape(s, SYSTEM_SHAPE);
      const visible = await get(`/api/map/systems?slug=${slug}&all=false`);
      expect((visible.body.data as Json[]).map((s) => s.solar_system_id).sort()).toEqual([30000142, 31001880]);
    });

    it('answers 400 validation_failed for an all value that is not a boolean', async () => {
      const { status, body } = await get(`/api/map/systems?slug=${slug}&all=maybe`);
      expect(status).toBe(400);
      expect(body.code).toBe('validation_failed');
    });
  });

  describe('GET /api/map/system', () => {
    it('answers one system by solar_system_id with exactly the fields of spec 2.1', async () => {
      const { status, body } = await get(`/api/map/system?slug=${slug}&id=31001880`);
      expect(status).toBe(200);
      expectShape(body.data, SYSTEM_SHAPE);
      expect(body.data).toMatchObject({ id: sys.j152820, name: 'J152820', solar_system_id: 31001880, map_id: mapId, visible: true });
    });

    it('answers the system of the selected map, not the same solar system on another map', async () => {
      const a = await get(`/api/map/system?map_id=${mapId}&id=30000142`);
      const b = await get(`/api/map/system?map_id=${mapIdB}&id=30000142`, keyB);
      expect((a.body.data as Json).id).toBe(sys.jita);
      expect((b.body.data as Json).id).toBe(sys.jitaB);
      expect((b.body.data as Json).map_id).toBe(mapIdB);
    });

    it('answers 404 system_not_found "System not found" for a solar system not on the map', async () => {
      for (const id of ['31000008', '99999999']) {
        const { status, res, body } = await get(`/api/map/system?map_id=${mapId}&id=${id}`);
        expect(status).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(body).toEqual({ error: 'System not found', code: 'system_not_found' });
      }
    });

    it('answers 400 validation_failed for a non-integer or missing id', async () => {
      for (const q of ['id=abc', 'id=1.5', 'id=', '']) {
        const { status, body } = await get(`/api/map/system?map_id=${mapId}&${q}`);
        expect(status, q).toBe(400);
        expect(body, q).toMatchObject({ error: expect.any(String), code: 'validation_failed' });
        expect(
          (body.details as { field: string }[]).map((d) => d.field),
          q,
        ).toContain('id');
      }
    });
  });

  describe('GET /api/map/connections', () => {
    it('answers the connections of the map with exactly the fields of spec 2.3 in their types', async () => {
      const { status, body } = await get(`/api/map/connections?slug=${slug}`);
      expect(status).toBe(200);
      const data = body.data as Json[];
      expect(data).toHaveLength(2);
      for (const c of data) expectShape(c, CONNECTION_SHAPE);
      const byId = Object.fromEntries(data.map((c) => [c.id as string, c]));
      expect(byId[conn.wormhole]).toEqual({
        id: conn.wormhole,
        type: 0,
        mass_status: 1,
        ship_size_type: 3,
        time_status: 2,
        map_id: mapId,
        inserted_at: expect.stringMatching(MICRO),
        updated_at: expect.stringMatching(MICRO),
        solar_system_source: 30000142,
        solar_system_target: 31001880,
        wormhole_type: 'H296',
      });
      expect(byId[conn.stargate]).toMatchObject({
        type: 1,
        mass_status: 0,
        ship_size_type: 2,
        time_status: 0,
        solar_system_source: 31001880,
        solar_system_target: 31000005,
        wormhole_type: null,
      });
    });
  });
});
