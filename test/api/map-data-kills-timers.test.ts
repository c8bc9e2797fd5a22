/**
 * Map data endpoints (spec 4.1), GET /api/map/systems-kills and GET /api/map/structure-timers: kill and zkb fields, time windows, timer selection and order.
 * Fixture: test/support/map-data-fixture.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import { startMapData, type MapData } from '../support/map-data-fixture.js';
import { expectShape, getJson, type Json, KILL_SHAPE, MICRO, micro, seconds, STRUCTURE_SHAPE, ZKB_SHAPE } from '../support/map-data-shapes.js';

describe('map data endpoints (spec 4.1)', () => {
  let t: TestServer;
  let key: string;
  let mapId: string;
  let slug: string;
  let sys: MapData['sys'];
  let ch: MapData['ch'];
  let kills: MapData['kills'];
  let structures: MapData['structures'];
  let structureEnd: MapData['structureEnd'];

  beforeAll(async () => {
    ({ t, key, mapId, slug, sys, ch, kills, structures, structureEnd } = await startMapData());
  });
  afterAll(async () => t?.close());

  /** GET with the map A key by default; `null` sends no token. */
  const get = (path: string, token: string | null = key) => getJson(t, path, token);

  describe('GET /api/map/systems-kills', () => {
    type KillEntry = { solar_system_id: number; kills: Json[] };
    const killsOf = (data: KillEntry[], id: number) => data.find((e) => e.solar_system_id === id)!.kills.map((k) => k.killmail_id);

    it('answers one entry per visible system, with kills newest first, every kill and zkb field in its type', async () => {
      const { status, body } = await get(`/api/map/systems-kills?map_id=${mapId}&hours=48`);
      expect(status).toBe(200);
      const data = body.data as KillEntry[];
      for (const e of data) {
        expectShape(e, { solar_system_id: 'integer', kills: 'object' });
        expect(Array.isArray(e.kills)).toBe(true);
        for (const k of e.kills) {
          expectShape(k, KILL_SHAPE, `kill ${String(k.killmail_id)}`);
          expectShape(k.zkb, ZKB_SHAPE, `kill ${String(k.killmail_id)}.zkb`);
          expect(k.solar_system_id).toBe(e.solar_system_id);
        }
      }
      // Hidden Thera, the system not on the map and map B's kills are absent; J152820 has none.
      expect(data.map((e) => e.solar_system_id).sort()).toEqual([30000142, 31001880]);
      expect(killsOf(data, 31001880)).toEqual([]);
      expect(killsOf(data, 30000142)).toEqual([kills.recent!.killmailId, kills.older!.killmailId, kills.oldest!.killmailId]);
    });

    it('answers each kill with the stored values and kill_time in seconds precision UTC', async () => {
      const { body } = await get(`/api/map/systems-kills?slug=${slug}`);
      const jita = (body.data as KillEntry[]).find((e) => e.solar_system_id === 30000142)!;
      const k = kills.recent!;
      expect(jita.kills[0]).toEqual({
        killmail_id: k.killmailId,
        kill_time: seconds(new Date(k.killTime.getTime() - 123)),
        solar_system_id: 30000142,
        attacker_count: 3,
        npc: false,
        total_value: 150_000_000.5,
        final_blow_alliance_id: 99000001,
        final_blow_char_id: 2112000001,
        final_blow_corp_id: 98000001,
        final_blow_ship_type_id: 17715,
        final_blow_alliance_ticker: 'ALLY',
        final_blow_char_name: 'Killer',
        final_blow_corp_ticker: 'CORP',
        final_blow_ship_name: 'Gila',
        victim_alliance_id: 99000007,
        victim_char_id: 2112000002,
        victim_corp_id: 98000002,
        victim_ship_type_id: 11188,
        victim_char_name: 'Victim',
        victim_corp_ticker: 'VICT',
        victim_ship_name: 'Anathema',
        zkb: {
          awox: false,
          destroyedValue: 100_000_000,
          droppedValue: 50_000_000.5,
          fittedValue: 120_000_000,
          hash: 'abc123',
          labels: ['pvp', 'solo'],
          locationID: 40000001,
          npc: false,
          points: 12,
          solo: true,
          totalValue: 150_000_000.5,
        },
      });
      expect(jita.kills[1]!.victim_alliance_id).toBeNull();
      expect(jita.kills[1]!.kill_time).toBe(seconds(kills.older!.killTime));
    });

    it('limits kills to the last `hours` hours and still lists every visible system', async () => {
      const two = (await get(`/api/map/systems-kills?map_id=${mapId}&hours=2`)).body.data as KillEntry[];
      expect(two.map((e) => e.solar_system_id).sort()).toEqual([30000142, 31001880]);
      expect(killsOf(two, 30000142)).toEqual([kills.recent!.killmailId]);
      const day = (await get(`/api/map/systems-kills?map_id=${mapId}&hours=24`)).body.data as KillEntry[];
      expect(killsOf(day, 30000142)).toEqual([kills.recent!.killmailId, kills.older!.killmailId]);
      expect(killsOf(day, 31001880)).toEqual([]);
    });

    it('answers 400 validation_failed for a non-integer hours', async () => {
      for (const h of ['abc', '1.5']) {
        const { status, body } = await get(`/api/map/systems-kills?map_id=${mapId}&hours=${h}`);
        expect(status, h).toBe(400);
        expect(body.code, h).toBe('validation_failed');
      }
    });
  });

  describe('GET /api/map/structure-timers', () => {
    it('answers only Anchoring and Reinforced structures with an end_time, soonest first, with the decided fields', async () => {
      const { status, body } = await get(`/api/map/structure-timers?map_id=${mapId}`);
      expect(status).toBe(200);
      const data = body.data as Json[];
      for (const s of data) expectShape(s, STRUCTURE_SHAPE, `structure ${String(s.name)}`);
      expect(data.map((s) => s.id)).toEqual([structures.raitaru, structures.astrahus, structures.fortizar]);
      expect(data[2]).toEqual({
        id: structures.fortizar,
        system_id: sys.jita,
        solar_system_id: 30000142,
        solar_system_name: 'Jita',
        structure_type_id: '35833',
        structure_type: 'Fortizar',
        character_eve_id: ch.main.eve_id,
        name: 'Jita Fortizar',
        notes: 'armor timer',
        owner_name: 'Some Corp',
        owner_ticker: 'SC',
        owner_id: '98000123',
        status: 'Reinforced',
        end_time: micro(structureEnd.fortizar!),
        inserted_at: expect.stringMatching(MICRO),
        updated_at: expect.stringMatching(MICRO),
      });
      expect(data[0]).toMatchObject({
        system_id: sys.j152820,
        solar_system_name: 'J152820',
        status: 'Reinforced',
        character_eve_id: null,
        notes: null,
        owner_name: null,
        owner_ticker: null,
        owner_id: null,
      });
      expect(data[1]).toMatchObject({ status: 'Anchoring', end_time: micro(structureEnd.astrahus!) });
    });

    it('filters by system_id (map system record id)', async () => {
      const jita = await get(`/api/map/structure-timers?map_id=${mapId}&system_id=${sys.jita}`);
      expect((jita.body.data as Json[]).map((s) => s.id)).toEqual([structures.astrahus, structures.fortizar]);
      const wh = await get(`/api/map/structure-timers?map_id=${mapId}&system_id=${sys.j152820}`);
      expect((wh.body.data as Json[]).map((s) => s.id)).toEqual([structures.raitaru]);
      const unknown = await get(`/api/map/structure-timers?map_id=${mapId}&system_id=00000000-0000-4000-8000-000000000000`);
      expect(unknown.status).toBe(200);
      expect(unknown.body).toEqual({ data: [] });
      const otherMap = await get(`/api/map/structure-timers?map_id=${mapId}&system_id=${sys.jitaB}`);
      expect(otherMap.body).toEqual({ data: [] });
    });

    it('answers 400 validation_failed for a system_id that is not a UUID', async () => {
      const { status, body } = await get(`/api/map/structure-timers?map_id=${mapId}&system_id=30000142`);
      expect(status).toBe(400);
      expect(body.code).toBe('validation_failed');
    });
  });
});
