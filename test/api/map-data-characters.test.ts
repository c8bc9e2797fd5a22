/**
 * Map data endpoints (spec 4.1), GET /api/map/characters, GET /api/map/character-activity and GET /api/map/user_characters: character entries, activity sums per user and the main character.
 * Fixture: test/support/map-data-fixture.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import { startMapData, type MapData } from '../support/map-data-fixture.js';
import { CHARACTER_SHAPE, expectShape, getJson, type Json, pub, seconds } from '../support/map-data-shapes.js';

describe('map data endpoints (spec 4.1)', () => {
  let t: TestServer;
  let key: string;
  let mapId: string;
  let slug: string;
  let carolMapId: string;
  let carolKey: string;
  let ch: MapData['ch'];
  let at: MapData['at'];

  beforeAll(async () => {
    ({ t, key, mapId, slug, carolMapId, carolKey, ch, at } = await startMapData());
  });
  afterAll(async () => t?.close());

  /** GET with the map A key by default; `null` sends no token. */
  const get = (path: string, token: string | null = key) => getJson(t, path, token);

  describe('GET /api/map/characters', () => {
    it('answers the characters on the map as spec 2.5 entries with a nested spec 2.4 character', async () => {
      const { status, body } = await get(`/api/map/characters?map_id=${mapId}`);
      expect(status).toBe(200);
      const data = body.data as Json[];
      for (const e of data) {
        expectShape(e, { id: 'uuid', character: 'object', tracked: 'boolean', map_id: 'uuid' });
        expectShape(e.character, CHARACTER_SHAPE, 'character');
        expect(e.map_id).toBe(mapId);
      }
      const entries = data
        .map((e) => ({ character: e.character, tracked: e.tracked }))
        .sort((x, y) => String((x.character as Json).name).localeCompare(String((y.character as Json).name)));
      expect(entries).toEqual([
        { character: pub(ch.alt), tracked: true },
        { character: pub(ch.main), tracked: true },
        { character: pub(ch.bob), tracked: true },
        { character: pub(ch.loner), tracked: false },
      ]);
      expect((data.find((e) => (e.character as Json).eve_id === ch.alt.eve_id)!.character as Json).alliance_id).toBeNull();
    });
  });

  describe('GET /api/map/character-activity', () => {
    type Activity = { character: Json; passages: number; connections: number; signatures: number; timestamp: string };
    const byEveId = (data: Activity[]) => Object.fromEntries(data.map((a) => [a.character.eve_id as string, a]));

    it('sums the whole history per user, shows the main character and the latest activity in seconds precision', async () => {
      const { status, body } = await get(`/api/map/character-activity?map_id=${mapId}`);
      expect(status).toBe(200);
      const data = body.data as Activity[];
      for (const a of data) {
        expectShape(a, { character: 'object', passages: 'integer', connections: 'integer', signatures: 'integer', timestamp: 'seconds' });
        expectShape(a.character, CHARACTER_SHAPE, 'character');
      }
      expect(data).toHaveLength(3);
      expect(byEveId(data)).toEqual({
        // Alice: main 2/1/3 today (early), alt 5/0/1 today (late) and 10/0/0 three days ago.
        [ch.main.eve_id]: { character: pub(ch.main), passages: 17, connections: 1, signatures: 4, timestamp: seconds(at.late!) },
        [ch.bob.eve_id]: { character: pub(ch.bob), passages: 1, connections: 2, signatures: 0, timestamp: seconds(at.tenDaysAgo!) },
        [ch.loner.eve_id]: { character: pub(ch.loner), passages: 0, connections: 4, signatures: 0, timestamp: seconds(at.early!) },
      });
    });

    it('limits to the last `days` days, today counting as one, and sets timestamp from the counted rows', async () => {
      const one = byEveId((await get(`/api/map/character-activity?map_id=${mapId}&days=1`)).body.data as Activity[]);
      expect(Object.keys(one).sort()).toEqual([ch.main.eve_id, ch.loner.eve_id].sort());
      expect(one[ch.main.eve_id]).toMatchObject({ passages: 7, connections: 1, signatures: 4, timestamp: seconds(at.late!) });
      const three = byEveId((await get(`/api/map/character-activity?map_id=${mapId}&days=3`)).body.data as Activity[]);
      expect(three[ch.main.eve_id]!.passages).toBe(7);
      const four = byEveId((await get(`/api/map/character-activity?map_id=${mapId}&days=4`)).body.data as Activity[]);
      expect(Object.keys(four).sort()).toEqual([ch.main.eve_id, ch.loner.eve_id].sort());
      expect(four[ch.main.eve_id]).toMatchObject({ passages: 17, timestamp: seconds(at.late!) });
      const eleven = byEveId((await get(`/api/map/character-activity?map_id=${mapId}&days=11`)).body.data as Activity[]);
      expect(Object.keys(eleven)).toHaveLength(3);
    });

    it("shows the user's main character even when only another of the user's characters has activity in the window", async () => {
      const all = (await get(`/api/map/character-activity?map_id=${carolMapId}`, carolKey)).body.data as Activity[];
      expect(all).toEqual([{ character: pub(ch.carolMain), passages: 4, connections: 2, signatures: 1, timestamp: seconds(at.early!) }]);
      const today = (await get(`/api/map/character-activity?map_id=${carolMapId}&days=1`, carolKey)).body.data as Activity[];
      expect(today).toEqual([{ character: pub(ch.carolMain), passages: 3, connections: 2, signatures: 1, timestamp: seconds(at.early!) }]);
    });

    it('answers 400 validation_failed for a non-integer days', async () => {
      for (const d of ['abc', '2.5']) {
        const { status, body } = await get(`/api/map/character-activity?map_id=${mapId}&days=${d}`);
        expect(status, d).toBe(400);
        expect(body.code, d).toBe('validation_failed');
      }
    });
  });

  describe('GET /api/map/user_characters', () => {
    it('groups the map characters per user with the main eve_id, null when none is set or there is no user', async () => {
      const { status, body } = await get(`/api/map/user_characters?slug=${slug}`);
      expect(status).toBe(200);
      const data = body.data as { characters: Json[]; main_character_eve_id: string | null }[];
      for (const g of data) {
        expectShape(g, { characters: 'object', main_character_eve_id: 'string?' });
        for (const c of g.characters) expectShape(c, CHARACTER_SHAPE, 'character');
      }
      const groups = data
        .map((g) => ({ names: g.characters.map((c) => c.name as string).sort(), main: g.main_character_eve_id, characters: g.characters }))
        .sort((x, y) => x.names[0]!.localeCompare(y.names[0]!));
      expect(groups.map((g) => [g.names, g.main])).toEqual([
        [['Alice Alt', 'Alice Main'], ch.main.eve_id],
        [['Bob One'], null],
        [['Loner'], null],
      ]);
      expect(groups[0]!.characters).toEqual(expect.arrayContaining([pub(ch.main), pub(ch.alt)]));
      expect(groups[1]!.characters).toEqual([pub(ch.bob)]);
    });
  });
});
