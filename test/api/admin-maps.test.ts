/** Admin API (decisions §2): maps, their keys, and character tracking. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import {
  adminClient,
  type AdminMap,
  type ErrorBody,
  eveId,
  KEY_FIELDS,
  MAP_FIELDS,
  type MapKey,
  slugOf,
  startAdminServer,
  TS_MICRO,
  UUID,
} from '../support/admin.js';

describe('admin API (decisions §2)', () => {
  let t: TestServer;
  const { send, admin, data, newCharacter, createMap } = adminClient(() => t);

  beforeAll(async () => {
    ({ t } = await startAdminServer());
  });
  afterAll(async () => t?.close());

  describe('maps', () => {
    it('creates a map: 201 with the map and its first key, bound to the owner, working at once', async () => {
      const owner = await newCharacter();
      const slug = slugOf('fresh');
      const res = await admin('POST', '/api/admin/maps', { slug, name: 'Fresh', description: 'a new map', owner_eve_id: owner.eve_id });
      expect(res.status).toBe(201);
      const body = (await res.json()) as { data: { map: AdminMap; api_key: MapKey & { api_key: string } } };
      expect(Object.keys(body.data).sort()).toEqual(['api_key', 'map']);
      const { map, api_key } = body.data;
      expect(Object.keys(map).sort()).toEqual(MAP_FIELDS);
      expect(map.id).toMatch(UUID);
      expect(map).toMatchObject({ slug, name: 'Fresh', description: 'a new map', owner_eve_id: owner.eve_id, webhooks_enabled: false });
      expect(map.inserted_at).toMatch(TS_MICRO);
      expect(Object.keys(api_key).sort()).toEqual([...KEY_FIELDS, 'api_key'].sort());
      expect(api_key).toMatchObject({ map_id: map.id, character_eve_id: owner.eve_id, revoked_at: null });
      expect(api_key.api_key).toMatch(/^mik_[A-Za-z0-9_-]{43}$/);
      // The prefix shown is `mik_` and 6 of the 43 random characters; "less than half the key" let the
      // column's 16 characters (12 random ones, 72 bits of the key) through.
      expect(api_key.prefix).toBe(api_key.api_key.slice(0, 10));

      const systems = await send('GET', `/api/map/systems?slug=${slug}`, api_key.api_key);
      expect(systems.status).toBe(200);
      expect(await systems.json()).toEqual({ data: [] });
      const byId = await send('GET', `/api/map/systems?map_id=${map.id}`, api_key.api_key);
      expect(byId.status).toBe(200);
    });

    it('reads a map by id and by slug, and lists it', async () => {
      const owner = await newCharacter();
      const { map } = await createMap(owner.eve_id);
      for (const ref of [map.id, map.slug]) {
        const res = await admin('GET', `/api/admin/maps/${ref}`);
        expect(res.status).toBe(200);
        expect(await data<AdminMap>(res)).toEqual(map);
      }
      const list = await data<AdminMap[]>(await admin('GET', '/api/admin/maps'));
      expect(list.find((m) => m.id === map.id)).toEqual(map);
      expect(list.map((m) => m.slug)).toEqual([...list.map((m) => m.slug)].sort());
    });

    it('answers 409 slug_taken for a duplicate slug and creates nothing', async () => {
      const owner = await newCharacter();
      const { map } = await createMap(owner.eve_id);
      const before = await data<AdminMap[]>(await admin('GET', '/api/admin/maps'));
      const res = await admin('POST', '/api/admin/maps', { slug: map.slug, name: 'Copy', owner_eve_id: owner.eve_id });
      expect(res.status).toBe(409);
      expect(((await res.json()) as ErrorBody).code).toBe('slug_taken');
      expect(await data<AdminMap[]>(await admin('GET', '/api/admin/maps'))).toEqual(before);
    });

    it('answers 404 character_not_found for an unknown owner and 404 map_not_found for an unknown map', async () => {
      const r1 = await admin('POST', '/api/admin/maps', { slug: slugOf('orphan'), name: 'x', owner_eve_id: eveId() });
      expect(r1.status).toBe(404);
      expect(((await r1.json()) as ErrorBody).code).toBe('character_not_found');
      for (const ref of ['no-such-map', '00000000-0000-4000-8000-00000000f00d']) {
        const r2 = await admin('GET', `/api/admin/maps/${ref}`);
        expect(r2.status).toBe(404);
        expect(((await r2.json()) as ErrorBody).code).toBe('map_not_found');
      }
    });

    it.each([
      ['an upper-case slug', { slug: 'Bad', name: 'x', owner_eve_id: '1' }],
      ['a slug with a space', { slug: 'bad slug', name: 'x', owner_eve_id: '1' }],
      ['a missing name', { slug: 'ok-slug', owner_eve_id: '1' }],
      ['a blank name', { slug: 'ok-slug', name: '   ', owner_eve_id: 'OWNER' }],
      ['a non-numeric owner_eve_id', { slug: 'ok-slug', name: 'x', owner_eve_id: 'me' }],
      ['an unknown extra field', { slug: 'ok-slug', name: 'x', owner_eve_id: '1', public: true }],
    ])('answers 400 validation_failed for %s and creates no map', async (_what, raw) => {
      const owner = await newCharacter();
      const body = { ...raw, ...(raw.owner_eve_id === 'OWNER' ? { owner_eve_id: owner.eve_id } : {}) };
      const res = await admin('POST', '/api/admin/maps', body);
      expect(res.status).toBe(400);
      const err = (await res.json()) as ErrorBody;
      expect(err.code).toBe('validation_failed');
      expect(err.details!.length).toBeGreaterThanOrEqual(1);
      const maps = await data<AdminMap[]>(await admin('GET', '/api/admin/maps'));
      expect(maps.some((m) => m.slug === 'ok-slug')).toBe(false);
    });

    it('creates one map when the same slug is posted concurrently; the others get 409 slug_taken', async () => {
      const owner = await newCharacter();
      const slug = slugOf('race');
      const results = await Promise.all(
        Array.from({ length: 4 }, () =>
          admin('POST', '/api/admin/maps', { slug, name: 'Race', owner_eve_id: owner.eve_id }).then(async (r) => [
            r.status,
            ((await r.json()) as ErrorBody).code,
          ]),
        ),
      );
      expect(results.filter(([st]) => st === 201)).toHaveLength(1);
      expect(results.filter(([st]) => st !== 201)).toEqual([
        [409, 'slug_taken'],
        [409, 'slug_taken'],
        [409, 'slug_taken'],
      ]);
      const maps = await data<AdminMap[]>(await admin('GET', '/api/admin/maps'));
      expect(maps.filter((m) => m.slug === slug)).toHaveLength(1);
    });
  });

  describe('map keys', () => {
    it('issues a key bound to another character (201, shown once) that works on the map at once', async () => {
      const owner = await newCharacter();
      const scout = await newCharacter();
      const { map } = await createMap(owner.eve_id);
      const res = await admin('POST', `/api/admin/maps/${map.slug}/keys`, { character_eve_id: scout.eve_id, name: 'scout key' });
      expect(res.status).toBe(201);
      const key = await data<MapKey & { api_key: string }>(res);
      expect(Object.keys(key).sort()).toEqual([...KEY_FIELDS, 'api_key'].sort());
      expect(key).toMatchObject({ map_id: map.id, character_eve_id: scout.eve_id, name: 'scout key', revoked_at: null });
      expect(key.id).toMatch(UUID);
      expect(key.inserted_at).toMatch(TS_MICRO);
      expect(key.api_key.startsWith(key.prefix)).toBe(true);

      const systems = await send('GET', `/api/map/systems?map_id=${map.id}`, key.api_key);
      expect(systems.status).toBe(200);
      expect(await systems.json()).toEqual({ data: [] });
    });

    it('lists the keys of the map without the keys themselves', async () => {
      const owner = await newCharacter();
      const scout = await newCharacter();
      const created = await createMap(owner.eve_id);
      const issued = await data<MapKey & { api_key: string }>(
        await admin('POST', `/api/admin/maps/${created.map.id}/keys`, { character_eve_id: scout.eve_id }),
      );
      const res = await admin('GET', `/api/admin/maps/${created.map.slug}/keys`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toContain(created.api_key.api_key);
      expect(text).not.toContain(issued.api_key);
      const keys = (JSON.parse(text) as { data: MapKey[] }).data;
      expect(keys).toHaveLength(2);
      for (const k of keys) expect(Object.keys(k).sort()).toEqual(KEY_FIELDS);
      const { api_key: _a, ...first } = created.api_key;
      const { api_key: _b, ...second } = issued;
      expect(keys).toEqual([first, second]);
      expect(keys.map((k) => k.character_eve_id)).toEqual([owner.eve_id, scout.eve_id]);
    });

    it('revokes a key: it answers 401 within the token cache TTL, other keys keep working, revoking again changes nothing', async () => {
      const owner = await newCharacter();
      const scout = await newCharacter();
      const created = await createMap(owner.eve_id);
      const slug = created.map.slug;
      const issued = await data<MapKey & { api_key: string }>(await admin('POST', `/api/admin/maps/${slug}/keys`, { character_eve_id: scout.eve_id }));
      // Resolve it once so a cached resolution exists; it expires at the latest 3 s (the cache TTL) after this answer.
      expect((await send('GET', `/api/map/systems?slug=${slug}`, issued.api_key)).status).toBe(200);
      const cachedBy = Date.now();

      const res = await admin('DELETE', `/api/admin/maps/${slug}/keys/${issued.id}`);
      expect(res.status).toBe(200);
      const revoked = await data<MapKey>(res);
      expect(Object.keys(revoked).sort()).toEqual(KEY_FIELDS);
      expect(revoked.id).toBe(issued.id);
      expect(revoked.revoked_at).toMatch(TS_MICRO);

      await new Promise((r) => setTimeout(r, Math.max(0, cachedBy + 3_100 - Date.now())));
      expect((await send('GET', `/api/map/systems?slug=${slug}`, issued.api_key)).status).toBe(401);
      expect((await send('GET', `/api/map/systems?slug=${slug}`, created.api_key.api_key)).status).toBe(200);

      const again = await admin('DELETE', `/api/admin/maps/${created.map.id}/keys/${issued.id}`);
      expect(again.status).toBe(200);
      expect((await data<MapKey>(again)).revoked_at).toBe(revoked.revoked_at);
      const listed = await data<MapKey[]>(await admin('GET', `/api/admin/maps/${slug}/keys`));
      expect(listed.map((k) => [k.id, k.revoked_at])).toEqual([
        [created.api_key.id, null],
        [issued.id, revoked.revoked_at],
      ]);
    });

    it('answers 404 for an unknown key, a non-UUID key id, or a key of another map, revoking nothing', async () => {
      const owner = await newCharacter();
      const a = await createMap(owner.eve_id);
      const b = await createMap(owner.eve_id);
      for (const keyId of ['00000000-0000-4000-8000-00000000dead', 'not-a-uuid', b.api_key.id]) {
        const res = await admin('DELETE', `/api/admin/maps/${a.map.slug}/keys/${keyId}`);
        expect(res.status).toBe(404);
        expect(((await res.json()) as ErrorBody).code).toBe('key_not_found');
      }
      expect((await send('GET', `/api/map/systems?slug=${b.map.slug}`, b.api_key.api_key)).status).toBe(200);
    });

    it('answers 404 when issuing a key for an unknown character or an unknown map', async () => {
      const owner = await newCharacter();
      const { map } = await createMap(owner.eve_id);
      const r1 = await admin('POST', `/api/admin/maps/${map.slug}/keys`, { character_eve_id: eveId() });
      expect(r1.status).toBe(404);
      expect(((await r1.json()) as ErrorBody).code).toBe('character_not_found');
      const r2 = await admin('POST', '/api/admin/maps/no-such-map/keys', { character_eve_id: owner.eve_id });
      expect(r2.status).toBe(404);
      expect(((await r2.json()) as ErrorBody).code).toBe('map_not_found');
      expect(await data<MapKey[]>(await admin('GET', `/api/admin/maps/${map.slug}/keys`))).toHaveLength(1);
    });

    it('does not let a key of one map read another map (404)', async () => {
      const owner = await newCharacter();
      const a = await createMap(owner.eve_id);
      const b = await createMap(owner.eve_id);
      const res = await send('GET', `/api/map/systems?slug=${b.map.slug}`, a.api_key.api_key);
      expect(res.status).toBe(404);
      expect(((await res.json()) as ErrorBody).code).toBe('map_not_found');
    });
  });

  describe('character tracking', () => {
    it('tracks, untracks and removes a character; GET /api/map/characters follows', async () => {
      const owner = await newCharacter();
      const pilot = await newCharacter({ name: 'Tracked Pilot', alliance_id: '99000077', alliance_ticker: 'TRK' });
      const created = await createMap(owner.eve_id);
      const { slug, id: mapId } = created.map;
      const key = created.api_key.api_key;
      const listed = async () =>
        data<{ id: string; character: Record<string, unknown>; tracked: boolean; map_id: string }[]>(
          await send('GET', `/api/map/characters?slug=${slug}`, key),
        );
      expect(await listed()).toEqual([]);

      const res = await admin('PUT', `/api/admin/maps/${slug}/characters/${pilot.eve_id}`, { tracked: true });
      expect(res.status).toBe(200);
      const entry = await data<{ id: string; character: Record<string, unknown>; tracked: boolean; map_id: string }>(res);
      const publicForm = {
        eve_id: pilot.eve_id,
        name: 'Tracked Pilot',
        corporation_id: pilot.corporation_id,
        corporation_ticker: pilot.corporation_ticker,
        alliance_id: '99000077',
        alliance_ticker: 'TRK',
      };
      expect(Object.keys(entry).sort()).toEqual(['character', 'id', 'map_id', 'tracked']);
      expect(entry).toEqual({ id: entry.id, character: publicForm, tracked: true, map_id: mapId });
      expect(entry.id).toMatch(UUID);
      expect(await listed()).toEqual([entry]);

      const off = await admin('PUT', `/api/admin/maps/${mapId}/characters/${pilot.eve_id}`, { tracked: false });
      expect(off.status).toBe(200);
      expect(await data(off)).toEqual({ ...entry, tracked: false });
      expect(await listed()).toEqual([{ ...entry, tracked: false }]);

      const del = await admin('DELETE', `/api/admin/maps/${slug}/characters/${pilot.eve_id}`);
      expect(del.status).toBe(204);
      expect(await del.text()).toBe('');
      expect(await listed()).toEqual([]);
    });

    it('answers 404 for an unknown character or map, and 400 for a body without tracked', async () => {
      const owner = await newCharacter();
      const { map } = await createMap(owner.eve_id);
      const r1 = await admin('PUT', `/api/admin/maps/${map.slug}/characters/${eveId()}`, { tracked: true });
      expect(r1.status).toBe(404);
      expect(((await r1.json()) as ErrorBody).code).toBe('character_not_found');
      const r2 = await admin('PUT', `/api/admin/maps/no-such-map/characters/${owner.eve_id}`, { tracked: true });
      expect(r2.status).toBe(404);
      expect(((await r2.json()) as ErrorBody).code).toBe('map_not_found');
      const r3 = await admin('PUT', `/api/admin/maps/${map.slug}/characters/${owner.eve_id}`, {});
      expect(r3.status).toBe(400);
      expect(((await r3.json()) as ErrorBody).code).toBe('validation_failed');
      const r4 = await admin('DELETE', `/api/admin/maps/${map.slug}/characters/${eveId()}`);
      expect(r4.status).toBe(404);
      expect(((await r4.json()) as ErrorBody).code).toBe('character_not_found');
    });
  });
});
