/**
 * Map data endpoints (spec 4.1), the map selector (map_id, slug) and token rules of every GET /api/map/… endpoint, and revoked map keys.
 * Fixture: test/support/map-data-fixture.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import { startMapData, type MapData } from '../support/map-data-fixture.js';
import { getJson, type Json } from '../support/map-data-shapes.js';

describe('map data endpoints (spec 4.1)', () => {
  let t: TestServer;
  let key: string;
  let mapId: string;
  let slug: string;
  let mapIdB: string;
  let slugB: string;
  let aclKey: string;
  let ch: MapData['ch'];

  beforeAll(async () => {
    ({ t, key, mapId, slug, mapIdB, slugB, aclKey, ch } = await startMapData());
  });
  afterAll(async () => t?.close());

  /** GET with the map A key by default; `null` sends no token. */
  const get = (path: string, token: string | null = key) => getJson(t, path, token);

  describe.each([
    ['/api/map/systems', ''],
    ['/api/map/system', 'id=30000142&'],
    ['/api/map/connections', ''],
    ['/api/map/characters', ''],
    ['/api/map/systems-kills', ''],
    ['/api/map/character-activity', ''],
    ['/api/map/user_characters', ''],
    ['/api/map/structure-timers', ''],
    ['/api/map/acls', ''],
  ])('map selector and token rules of GET %s', (path, extra) => {
    const url = (selector: string) => `${path}?${extra}${selector}`;
    const expectError = (r: { status: number; res: Response; body: Json }, status: number, code: string) => {
      expect(r.status).toBe(status);
      expect(r.res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(
        Object.keys(r.body)
          .filter((k) => k !== 'details')
          .sort(),
      ).toEqual(['code', 'error']);
      expect(r.body.error).toBeTypeOf('string');
      expect(r.body.code).toBe(code);
    };

    it('answers the same data for map_id only, slug only, and both naming the same map', async () => {
      const byId = await get(url(`map_id=${mapId}`));
      const bySlug = await get(url(`slug=${slug}`));
      const both = await get(url(`map_id=${mapId}&slug=${slug}`));
      const upper = await get(url(`map_id=${mapId.toUpperCase()}`));
      expect([byId.status, bySlug.status, both.status, upper.status]).toEqual([200, 200, 200, 200]);
      expect(Object.keys(byId.body)).toEqual(['data']);
      expect(bySlug.body).toEqual(byId.body);
      expect(both.body).toEqual(byId.body);
      expect(upper.body).toEqual(byId.body);
    });

    it('answers 400 map_identifier_required without map_id and slug', async () => {
      const r = await get(url(''));
      expectError(r, 400, 'map_identifier_required');
      expect(r.body.error).toBe('Map identifier required. Provide `map_id` or `slug`.');
    });

    it('answers 400 when map_id and slug name different maps', async () => {
      expectError(await get(url(`map_id=${mapId}&slug=${slugB}`)), 400, 'map_selector_conflict');
      expectError(await get(url(`map_id=${mapIdB}&slug=${slug}`)), 400, 'map_selector_conflict');
    });

    it('answers 400 when map_id is not a UUID', async () => {
      expectError(await get(url('map_id=not-a-uuid')), 400, 'invalid_map_id');
      expectError(await get(url(`map_id=${slug}`)), 400, 'invalid_map_id');
    });

    it('answers 404 map_not_found for an unknown map_id or slug', async () => {
      expectError(await get(url('map_id=00000000-0000-4000-8000-000000000000')), 404, 'map_not_found');
      expectError(await get(url('slug=no-such-map')), 404, 'map_not_found');
    });

    it("answers 404 map_not_found, never the other map's data, when the key belongs to another map", async () => {
      for (const sel of [`map_id=${mapIdB}`, `slug=${slugB}`, `map_id=${mapIdB}&slug=${slugB}`]) {
        const r = await get(url(sel), key);
        expectError(r, 404, 'map_not_found');
        expect(r.body).not.toHaveProperty('data');
      }
    });

    it('answers 401 with WWW-Authenticate: Bearer and the JSON error for a missing token, even for an unknown or malformed map', async () => {
      for (const sel of [`map_id=${mapId}`, 'map_id=00000000-0000-4000-8000-000000000000', 'map_id=bad', '']) {
        const r = await get(url(sel), null);
        expect(r.status, sel).toBe(401);
        expect(r.res.headers.get('www-authenticate')).toBe('Bearer');
        expect(r.res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(r.body).toEqual({ error: "Missing or invalid 'Bearer' token: this endpoint takes a map API key, and none was given", code: 'unauthorized' });
      }
    });

    it('answers 401 for a malformed Authorization header, a wrong token and an ACL key', async () => {
      const headers: Record<string, string>[] = [
        { authorization: `Basic ${key}` },
        { authorization: 'Bearer' },
        { authorization: 'Bearer short' },
        { authorization: 'Bearer has spaces in it 0123456789' },
        { authorization: `Bearer mik_${'x'.repeat(40)}` },
        { authorization: `Bearer ${aclKey}` },
      ];
      for (const h of headers) {
        const res = await t.fetch(url(`map_id=${mapId}`), { headers: h });
        expect(res.status, h.authorization).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        const body = (await res.json()) as Json;
        expect(Object.keys(body).sort()).toEqual(['code', 'error']);
        expect(body.code).toBe('unauthorized');
      }
    });
  });

  describe('revoked map keys', () => {
    it("answers 401 to a key once it is revoked, while the map's other key keeps working", async () => {
      const issued = await t.platform.admin.issueKey(mapId, { character_eve_id: ch.bob.eve_id, name: 'bob key' });
      expect((await get(`/api/map/systems?map_id=${mapId}`, issued.api_key)).status).toBe(200);
      await t.platform.admin.revokeKey(mapId, issued.id);
      for (const path of ['/api/map/systems', '/api/map/system?id=30000142&', '/api/map/acls']) {
        const sep = path.includes('?') ? '' : '?';
        const r = await get(`${path}${sep}map_id=${mapId}`, issued.api_key);
        expect(r.status, path).toBe(401);
        expect(r.res.headers.get('www-authenticate')).toBe('Bearer');
        expect(r.body).toEqual({
          error: "Missing or invalid 'Bearer' token: this endpoint takes a map API key; the map API key given has been revoked",
          code: 'unauthorized',
        });
      }
      expect((await get(`/api/map/systems?map_id=${mapId}`, key)).status).toBe(200);
    });
  });
});
