/**
 * Map data endpoints (spec 4.1), GET /api/map/acls: the ACL list form, and an ACL created over HTTP listed there.
 * Fixture: test/support/map-data-fixture.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import { startMapData, type MapData } from '../support/map-data-fixture.js';
import { ACL_LIST_SHAPE, expectShape, getJson, type Json } from '../support/map-data-shapes.js';

describe('map data endpoints (spec 4.1)', () => {
  let t: TestServer;
  let key: string;
  let keyB: string;
  let mapId: string;
  let mapIdB: string;
  let slugB: string;
  let ch: MapData['ch'];
  let acl: MapData['acl'];

  beforeAll(async () => {
    ({ t, key, keyB, mapId, mapIdB, slugB, ch, acl } = await startMapData());
  });
  afterAll(async () => t?.close());

  /** GET with the map A key by default; `null` sends no token. */
  const get = (path: string, token: string | null = key) => getJson(t, path, token);

  describe('GET /api/map/acls', () => {
    it('answers the ACLs of the map in list form: owner_eve_id, no owner_id, members or api_key', async () => {
      const { status, body } = await get(`/api/map/acls?map_id=${mapId}`);
      expect(status).toBe(200);
      const data = body.data as Json[];
      for (const a of data) expectShape(a, ACL_LIST_SHAPE, `acl ${String(a.name)}`);
      const sorted = [...data].sort((x, y) => String(x.name).localeCompare(String(y.name)));
      expect(sorted).toEqual([
        {
          id: acl.corp!.id,
          name: 'Corp',
          description: null,
          owner_eve_id: ch.loner.eve_id,
          inserted_at: acl.corp!.inserted_at,
          updated_at: acl.corp!.updated_at,
        },
        {
          id: acl.friends!.id,
          name: 'Friends',
          description: 'blues',
          owner_eve_id: ch.main.eve_id,
          inserted_at: acl.friends!.inserted_at,
          updated_at: acl.friends!.updated_at,
        },
      ]);
    });

    it('lists an ACL created through POST /api/map/acls', async () => {
      const created = await t.fetch(`/api/map/acls?map_id=${mapIdB}`, {
        token: keyB,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ acl: { name: 'Created Over HTTP', owner_eve_id: ch.other.eve_id } }),
      });
      expect(created.status).toBe(200);
      const id = ((await created.json()) as { data: { id: string } }).data.id;
      const { body } = await get(`/api/map/acls?slug=${slugB}`, keyB);
      const data = body.data as Json[];
      expect(data.map((a) => a.name).sort()).toEqual(['Created Over HTTP', 'Other Map ACL']);
      for (const a of data) expectShape(a, ACL_LIST_SHAPE);
      expect(data.find((a) => a.id === id)).toMatchObject({ owner_eve_id: ch.other.eve_id, description: null });
    });
  });
});
