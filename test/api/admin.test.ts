import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';

const TS_MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const USER_FIELDS = ['id', 'name', 'main_character_eve_id', 'characters', 'inserted_at', 'updated_at'].sort();
const CHARACTER_FIELDS = ['eve_id', 'name', 'corporation_id', 'corporation_ticker', 'alliance_id', 'alliance_ticker'].sort();
const ADMIN_CHARACTER_FIELDS = [...CHARACTER_FIELDS, 'id', 'user_id'].sort();
const MAP_FIELDS = ['id', 'slug', 'name', 'description', 'owner_eve_id', 'webhooks_enabled', 'inserted_at', 'updated_at'].sort();
const KEY_FIELDS = ['id', 'map_id', 'character_eve_id', 'name', 'prefix', 'revoked_at', 'inserted_at', 'profile', 'stream_profile'].sort();

interface ErrorBody {
  error: string;
  code: string;
  details?: { field: string; message: string }[];
}

interface User {
  id: string;
  name: string;
  main_character_eve_id: string | null;
  characters: Record<string, unknown>[];
  inserted_at: string;
  updated_at: string;
}

interface AdminCharacter {
  id: string;
  user_id: string | null;
  eve_id: string;
  name: string;
  corporation_id: string;
  corporation_ticker: string;
  alliance_id: string | null;
  alliance_ticker: string | null;
}

interface AdminMap {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  owner_eve_id: string;
  webhooks_enabled: boolean;
  inserted_at: string;
  updated_at: string;
}

interface MapKey {
  id: string;
  map_id: string;
  character_eve_id: string;
  name: string | null;
  prefix: string;
  revoked_at: string | null;
  inserted_at: string;
  api_key?: string;
}

let seq = 0;
const eveId = () => String(2_200_000_000 + ++seq * 13 + Math.floor(Math.random() * 100_000) * 1000);
const slugOf = (what: string) => `${what}-${Date.now().toString(36)}-${++seq}`;

describe('admin API (decisions §2)', () => {
  let t: TestServer;
  let mapKey: string;
  let aclKey: string;
  let fixtureMap: { id: string; slug: string };

  const send = (method: string, path: string, token: string | undefined, body?: unknown) =>
    t.fetch(path, {
      method,
      ...(token !== undefined ? { token } : {}),
      ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
  const admin = (method: string, path: string, body?: unknown) => send(method, path, ADMIN_TOKEN, body);
  const data = async <T>(res: Response): Promise<T> => ((await res.json()) as { data: T }).data;

  const createUser = async (name: string): Promise<User> => {
    const res = await admin('POST', '/api/admin/users', { name });
    expect(res.status).toBe(201);
    return data<User>(res);
  };

  const upsert = async (body: Record<string, unknown>): Promise<AdminCharacter> => {
    const res = await admin('PUT', '/api/admin/characters', body);
    expect(res.status).toBe(200);
    return data<AdminCharacter>(res);
  };

  const newCharacter = (extra: Record<string, unknown> = {}) =>
    upsert({ eve_id: eveId(), name: `Pilot ${seq}`, corporation_id: '98000001', corporation_ticker: 'CORP', ...extra });

  const createMap = async (ownerEveId: string, extra: Record<string, unknown> = {}) => {
    const res = await admin('POST', '/api/admin/maps', { slug: slugOf('map'), name: 'Admin Map', owner_eve_id: ownerEveId, ...extra });
    expect(res.status).toBe(201);
    return data<{ map: AdminMap; api_key: MapKey & { api_key: string } }>(res);
  };

  beforeAll(async () => {
    // Many requests per key here; rate limits (100/min per key) are not what this file tests.
    t = await startTestServer({ env: { SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
    const m = await makeMap(t.platform);
    mapKey = m.key;
    fixtureMap = { id: m.map.id, slug: m.map.slug };
    const res = await send('POST', `/api/map/acls?slug=${m.map.slug}`, mapKey, { acl: { name: 'acl', owner_eve_id: m.ownerEveId } });
    expect(res.status).toBe(200);
    aclKey = (await data<{ api_key: string }>(res)).api_key;
  });
  afterAll(async () => t?.close());

  describe('authentication', () => {
    const endpoints = (): [string, string, unknown?][] => {
      const uid = '00000000-0000-4000-8000-000000000001';
      const kid = '00000000-0000-4000-8000-000000000002';
      return [
        ['POST', '/api/admin/users', { name: 'x' }],
        ['GET', '/api/admin/users'],
        ['GET', `/api/admin/users/${uid}`],
        ['PUT', `/api/admin/users/${uid}/main-character`, { eve_id: null }],
        ['PUT', '/api/admin/characters', { eve_id: '1', name: 'x', corporation_id: '1', corporation_ticker: 'X' }],
        ['GET', '/api/admin/characters'],
        ['POST', '/api/admin/maps', { slug: 'never-created', name: 'x', owner_eve_id: '1' }],
        ['GET', '/api/admin/maps'],
        ['GET', `/api/admin/maps/${fixtureMap.slug}`],
        ['POST', `/api/admin/maps/${fixtureMap.slug}/keys`, { character_eve_id: '1' }],
        ['GET', `/api/admin/maps/${fixtureMap.slug}/keys`],
        ['DELETE', `/api/admin/maps/${fixtureMap.slug}/keys/${kid}`],
        ['PUT', `/api/admin/maps/${fixtureMap.slug}/characters/1`, { tracked: true }],
        ['DELETE', `/api/admin/maps/${fixtureMap.slug}/characters/1`],
      ];
    };

    it('answers 401 with WWW-Authenticate on every admin endpoint without a token, with a map key, an ACL key or a wrong admin token', async () => {
      const usersBefore = await t.platform.orm.em.fork().getConnection().execute<{ n: number }[]>('select count(*)::int as n from users');
      const keysBefore = await t.platform.orm.em.fork().getConnection().execute<{ n: number }[]>('select count(*)::int as n from map_api_keys');
      for (const [method, path, body] of endpoints()) {
        for (const [token, why] of [
          [undefined, ', and none was given'],
          [mapKey, ', not a map API key'],
          [aclKey, ', not an ACL API key'],
          [`${ADMIN_TOKEN}x`, '; the token given is not valid'],
          [ADMIN_TOKEN.slice(0, -1), '; the token given is not valid'],
        ] as const) {
          const res = await send(method, path, token, body);
          expect([method, path, res.status]).toEqual([method, path, 401]);
          expect(res.headers.get('www-authenticate')).toBe('Bearer');
          expect(await res.json()).toEqual({ error: `Missing or invalid 'Bearer' token: this endpoint takes the admin token${why}`, code: 'unauthorized' });
        }
      }
      const conn = t.platform.orm.em.fork().getConnection();
      expect(await conn.execute('select count(*)::int as n from users')).toEqual(usersBefore);
      expect(await conn.execute('select count(*)::int as n from map_api_keys')).toEqual(keysBefore);
      expect(await conn.execute(`select 1 from maps where slug = 'never-created'`)).toEqual([]);
    });

    it('does not accept the admin token on map or ACL endpoints, and says so', async () => {
      const r1 = await send('GET', `/api/map/systems?slug=${fixtureMap.slug}`, ADMIN_TOKEN);
      expect(r1.status).toBe(401);
      expect(((await r1.json()) as ErrorBody).error).toBe("Missing or invalid 'Bearer' token: this endpoint takes a map API key, not the admin token");
      const r2 = await send('GET', '/api/acls/00000000-0000-4000-8000-000000000000', ADMIN_TOKEN);
      expect(r2.status).toBe(401);
      expect(((await r2.json()) as ErrorBody).error).toBe("Missing or invalid 'Bearer' token: this endpoint takes an ACL API key, not the admin token");
    });
  });

  describe('users', () => {
    it('creates a user: 201 with exactly the user fields, no main character and no characters', async () => {
      const res = await admin('POST', '/api/admin/users', { name: '  Alice  ' });
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const user = await data<User>(res);
      expect(Object.keys(user).sort()).toEqual(USER_FIELDS);
      expect(user.id).toMatch(UUID);
      expect(user).toMatchObject({ name: 'Alice', main_character_eve_id: null, characters: [] });
      expect(user.inserted_at).toMatch(TS_MICRO);
      expect(user.updated_at).toMatch(TS_MICRO);
    });

    it('reads a user by id and lists users', async () => {
      const user = await createUser('Bob');
      const one = await admin('GET', `/api/admin/users/${user.id}`);
      expect(one.status).toBe(200);
      expect(await data<User>(one)).toEqual(user);
      const list = await admin('GET', '/api/admin/users');
      expect(list.status).toBe(200);
      const users = await data<User[]>(list);
      expect(users.find((u) => u.id === user.id)).toEqual(user);
    });

    it('answers 404 user_not_found for an unknown or non-UUID user id', async () => {
      for (const id of ['00000000-0000-4000-8000-00000000abcd', 'nope']) {
        const res = await admin('GET', `/api/admin/users/${id}`);
        expect(res.status).toBe(404);
        expect(((await res.json()) as ErrorBody).code).toBe('user_not_found');
      }
    });

    it.each([
      ['a missing name', {}],
      ['an empty name', { name: '' }],
      ['a blank name', { name: '   ' }],
      ['a name of the wrong type', { name: 3 }],
      ['an unknown extra field', { name: 'x', admin: true }],
    ])('answers 400 validation_failed for %s', async (_what, body) => {
      const res = await admin('POST', '/api/admin/users', body);
      expect(res.status).toBe(400);
      const err = (await res.json()) as ErrorBody;
      expect(err.code).toBe('validation_failed');
      expect(err.details!.length).toBeGreaterThanOrEqual(1);
    });
  });

  describe('characters', () => {
    it('creates a character by eve_id with exactly the admin character fields', async () => {
      const id = eveId();
      const ch = await upsert({
        eve_id: id,
        name: 'Cara',
        corporation_id: '98000010',
        corporation_ticker: 'CRP',
        alliance_id: '99000010',
        alliance_ticker: 'ALY',
      });
      expect(Object.keys(ch).sort()).toEqual(ADMIN_CHARACTER_FIELDS);
      expect(ch.id).toMatch(UUID);
      expect(ch).toMatchObject({
        eve_id: id,
        name: 'Cara',
        corporation_id: '98000010',
        corporation_ticker: 'CRP',
        alliance_id: '99000010',
        alliance_ticker: 'ALY',
        user_id: null,
      });
    });

    it('updates the character on a second PUT with the same eve_id, keeping its record id', async () => {
      const id = eveId();
      const user = await createUser('Owner of Dana');
      const first = await upsert({ eve_id: id, name: 'Dana', corporation_id: '98000011', corporation_ticker: 'OLD', user_id: user.id });
      const second = await upsert({
        eve_id: id,
        name: 'Dana Renamed',
        corporation_id: '98000012',
        corporation_ticker: 'NEW',
        alliance_id: '99000012',
        alliance_ticker: 'AL',
      });
      expect(second.id).toBe(first.id);
      expect(second).toEqual({
        id: first.id,
        user_id: user.id,
        eve_id: id,
        name: 'Dana Renamed',
        corporation_id: '98000012',
        corporation_ticker: 'NEW',
        alliance_id: '99000012',
        alliance_ticker: 'AL',
      });
      const list = await data<AdminCharacter[]>(await admin('GET', '/api/admin/characters'));
      expect(list.filter((c) => c.eve_id === id)).toEqual([second]);
      const pub = await data<Record<string, unknown>[]>(await send('GET', '/api/characters', mapKey));
      expect(pub.filter((c) => c.eve_id === id)).toEqual([
        { eve_id: id, name: 'Dana Renamed', corporation_id: '98000012', corporation_ticker: 'NEW', alliance_id: '99000012', alliance_ticker: 'AL' },
      ]);
    });

    it('detaches the character from its user with user_id null', async () => {
      const user = await createUser('Detacher');
      const ch = await newCharacter({ user_id: user.id });
      expect(ch.user_id).toBe(user.id);
      const again = await upsert({
        eve_id: ch.eve_id,
        name: ch.name,
        corporation_id: ch.corporation_id,
        corporation_ticker: ch.corporation_ticker,
        user_id: null,
      });
      expect(again.user_id).toBeNull();
      expect((await data<User>(await admin('GET', `/api/admin/users/${user.id}`))).characters).toEqual([]);
    });

    it('lists the user characters in the user record in public form', async () => {
      const user = await createUser('Multi');
      const a = await newCharacter({ user_id: user.id, name: 'Multi A' });
      const b = await newCharacter({ user_id: user.id, name: 'Multi B' });
      const read = await data<User>(await admin('GET', `/api/admin/users/${user.id}`));
      expect(read.characters).toEqual(
        [a, b].map((c) => ({
          eve_id: c.eve_id,
          name: c.name,
          corporation_id: c.corporation_id,
          corporation_ticker: c.corporation_ticker,
          alliance_id: null,
          alliance_ticker: null,
        })),
      );
      for (const c of read.characters) expect(Object.keys(c).sort()).toEqual(CHARACTER_FIELDS);
    });

    it('answers 404 user_not_found for an unknown user_id and creates nothing', async () => {
      const id = eveId();
      const res = await admin('PUT', '/api/admin/characters', {
        eve_id: id,
        name: 'Nobody',
        corporation_id: '1',
        corporation_ticker: 'X',
        user_id: '00000000-0000-4000-8000-00000000beef',
      });
      expect(res.status).toBe(404);
      expect(((await res.json()) as ErrorBody).code).toBe('user_not_found');
      const list = await data<AdminCharacter[]>(await admin('GET', '/api/admin/characters'));
      expect(list.some((c) => c.eve_id === id)).toBe(false);
    });

    it.each([
      ['a non-numeric eve_id', { eve_id: 'abc', name: 'x', corporation_id: '1', corporation_ticker: 'X' }],
      ['a missing name', { eve_id: '1', corporation_id: '1', corporation_ticker: 'X' }],
      ['a missing corporation_ticker', { eve_id: '1', name: 'x', corporation_id: '1' }],
      ['a blank name', { eve_id: '1', name: '  ', corporation_id: '1', corporation_ticker: 'X' }],
      ['a blank corporation_ticker', { eve_id: '1', name: 'x', corporation_id: '1', corporation_ticker: ' ' }],
      ['an unknown extra field', { eve_id: '1', name: 'x', corporation_id: '1', corporation_ticker: 'X', ship: 'Gila' }],
    ])('answers 400 validation_failed for %s', async (_what, body) => {
      const res = await admin('PUT', '/api/admin/characters', body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).code).toBe('validation_failed');
    });
  });

  describe('main character', () => {
    it("sets the user's main character to one of the user's characters, and clears it with null", async () => {
      const user = await createUser('Mainer');
      const ch = await newCharacter({ user_id: user.id });
      const res = await admin('PUT', `/api/admin/users/${user.id}/main-character`, { eve_id: ch.eve_id });
      expect(res.status).toBe(200);
      const updated = await data<User>(res);
      expect(Object.keys(updated).sort()).toEqual(USER_FIELDS);
      expect(updated.main_character_eve_id).toBe(ch.eve_id);
      expect((await data<User>(await admin('GET', `/api/admin/users/${user.id}`))).main_character_eve_id).toBe(ch.eve_id);

      const cleared = await admin('PUT', `/api/admin/users/${user.id}/main-character`, { eve_id: null });
      expect(cleared.status).toBe(200);
      expect((await data<User>(cleared)).main_character_eve_id).toBeNull();
    });

    it("answers 400 when the character is not the user's, keeping the previous main", async () => {
      const user = await createUser('Loyal');
      const own = await newCharacter({ user_id: user.id });
      expect((await admin('PUT', `/api/admin/users/${user.id}/main-character`, { eve_id: own.eve_id })).status).toBe(200);
      const other = await createUser('Other');
      const foreign = await newCharacter({ user_id: other.id });
      const unowned = await newCharacter();
      for (const eve of [foreign.eve_id, unowned.eve_id]) {
        const res = await admin('PUT', `/api/admin/users/${user.id}/main-character`, { eve_id: eve });
        expect(res.status).toBe(400);
        expect(((await res.json()) as ErrorBody).code).toBe('not_users_character');
      }
      expect((await data<User>(await admin('GET', `/api/admin/users/${user.id}`))).main_character_eve_id).toBe(own.eve_id);
    });

    it('answers 404 for an unknown character and for an unknown user', async () => {
      const user = await createUser('Seeker');
      const r1 = await admin('PUT', `/api/admin/users/${user.id}/main-character`, { eve_id: eveId() });
      expect(r1.status).toBe(404);
      expect(((await r1.json()) as ErrorBody).code).toBe('character_not_found');
      const ch = await newCharacter();
      const r2 = await admin('PUT', '/api/admin/users/00000000-0000-4000-8000-00000000cafe/main-character', { eve_id: ch.eve_id });
      expect(r2.status).toBe(404);
      expect(((await r2.json()) as ErrorBody).code).toBe('user_not_found');
    });

    it('shows the main character in GET /api/map/user_characters', async () => {
      const user = await createUser('Grouped');
      const owner = await newCharacter({ user_id: user.id, name: 'Grouped Main' });
      const alt = await newCharacter({ user_id: user.id, name: 'Grouped Alt' });
      expect((await admin('PUT', `/api/admin/users/${user.id}/main-character`, { eve_id: owner.eve_id })).status).toBe(200);
      const created = await createMap(owner.eve_id);
      for (const c of [owner, alt]) {
        expect((await admin('PUT', `/api/admin/maps/${created.map.slug}/characters/${c.eve_id}`, { tracked: true })).status).toBe(200);
      }
      const res = await send('GET', `/api/map/user_characters?slug=${created.map.slug}`, created.api_key.api_key);
      expect(res.status).toBe(200);
      const groups = await data<{ characters: { eve_id: string }[]; main_character_eve_id: string | null }[]>(res);
      expect(groups).toHaveLength(1);
      expect(groups[0]!.main_character_eve_id).toBe(owner.eve_id);
      expect(groups[0]!.characters.map((c) => c.eve_id).sort()).toEqual([owner.eve_id, alt.eve_id].sort());
    });
  });

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
      expect(typeof api_key.api_key).toBe('string');
      expect(api_key.prefix).toBe(api_key.api_key.slice(0, api_key.prefix.length));
      expect(api_key.prefix.length).toBeLessThan(api_key.api_key.length / 2);

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
