/** Admin API (decisions §2): authentication on every admin endpoint, and users. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestServer } from '../support/app.js';
import { adminClient, type ErrorBody, startAdminServer, TS_MICRO, type User, USER_FIELDS, UUID } from '../support/admin.js';

describe('admin API (decisions §2)', () => {
  let t: TestServer;
  let mapKey: string;
  let aclKey: string;
  let fixtureMap: { id: string; slug: string };
  const { send, admin, data, createUser } = adminClient(() => t);

  beforeAll(async () => {
    ({ t, mapKey, aclKey, fixtureMap } = await startAdminServer());
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
});
