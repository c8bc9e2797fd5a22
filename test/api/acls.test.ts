import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeCharacter, makeMap } from '../support/factories.js';

const TS_MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ACL_FIELDS = ['id', 'name', 'description', 'owner_id', 'api_key', 'inserted_at', 'updated_at', 'members'].sort();
const LIST_FIELDS = ['id', 'name', 'description', 'owner_eve_id', 'inserted_at', 'updated_at'].sort();

interface Acl {
  id: string;
  name: string;
  description: string | null;
  owner_id: string;
  api_key: string;
  inserted_at: string;
  updated_at: string;
  members: unknown[];
}

interface ErrorBody {
  error: string;
  code: string;
  details?: { field: string; message: string }[];
}

describe('ACL API (spec 4.4, 2.9)', () => {
  let t: TestServer;
  let mapKey: string;
  let slug: string;
  let mapId: string;
  let owner: { id: string; eve_id: string };
  let otherMapKey: string;

  const send = (method: string, path: string, token: string | undefined, body?: unknown) =>
    t.fetch(path, {
      method,
      ...(token !== undefined ? { token } : {}),
      ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });

  const createAcl = async (fields: Record<string, unknown>): Promise<Acl> => {
    const res = await send('POST', `/api/map/acls?slug=${slug}`, mapKey, { acl: { owner_eve_id: owner.eve_id, ...fields } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: Acl }).data;
  };

  const listAcls = async () => {
    const res = await send('GET', `/api/map/acls?map_id=${mapId}`, mapKey);
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: Record<string, unknown>[] }).data;
  };

  const aclCount = async () => {
    const rows = await t.platform.orm.em.fork().getConnection().execute<{ n: number }[]>('select count(*)::int as n from acls');
    return rows[0]!.n;
  };

  beforeAll(async () => {
    // Many requests per key here; rate limits (100/min per key) are not what this file tests.
    t = await startTestServer({ env: { SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
    owner = await makeCharacter(t.platform, { name: 'Acl Owner' });
    const m = await makeMap(t.platform);
    mapKey = m.key;
    slug = m.map.slug;
    mapId = m.map.id;
    otherMapKey = (await makeMap(t.platform)).key;
  });
  afterAll(async () => t?.close());

  describe('POST /api/map/acls', () => {
    it('answers 200 with the new ACL: exactly the spec fields, owner_id the owner character record id, an api_key and no members', async () => {
      const res = await send('POST', `/api/map/acls?slug=${slug}`, mapKey, {
        acl: { name: 'Friends', description: 'people we like', owner_eve_id: owner.eve_id },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as { data: Acl };
      expect(Object.keys(body)).toEqual(['data']);
      const acl = body.data;
      expect(Object.keys(acl).sort()).toEqual(ACL_FIELDS);
      expect(acl.id).toMatch(UUID);
      expect(acl.name).toBe('Friends');
      expect(acl.description).toBe('people we like');
      expect(acl.owner_id).toBe(owner.id);
      expect(acl.owner_id).not.toBe(owner.eve_id);
      // `acl_` (how a refusal tells the key's kind) and 32 random bytes in base64url: a shorter or
      // unprefixed key fails here, as a length of at least 16 let both through.
      expect(acl.api_key).toMatch(/^acl_[A-Za-z0-9_-]{43}$/);
      expect(acl.members).toEqual([]);
      expect(acl.inserted_at).toMatch(TS_MICRO);
      expect(acl.updated_at).toMatch(TS_MICRO);
    });

    it('sets description to null when it is omitted and gives every ACL its own api_key', async () => {
      const a = await createAcl({ name: 'No description A' });
      const b = await createAcl({ name: 'No description B' });
      expect(a.description).toBeNull();
      expect(b.description).toBeNull();
      expect(a.api_key).not.toBe(b.api_key);
      expect(a.id).not.toBe(b.id);
    });

    it('lists the created ACL in GET /api/map/acls in list form (owner_eve_id, no api_key, no members)', async () => {
      const created = await createAcl({ name: 'Listed', description: 'in the list' });
      const list = await listAcls();
      const item = list.find((a) => a.id === created.id);
      expect(item).toBeDefined();
      expect(Object.keys(item!).sort()).toEqual(LIST_FIELDS);
      expect(item).toEqual({
        id: created.id,
        name: 'Listed',
        description: 'in the list',
        owner_eve_id: owner.eve_id,
        inserted_at: created.inserted_at,
        updated_at: created.updated_at,
      });
    });

    it('does not list an ACL of this map to a key of another map (404)', async () => {
      const res = await send('GET', `/api/map/acls?slug=${slug}`, otherMapKey);
      expect(res.status).toBe(404);
      expect(((await res.json()) as ErrorBody).code).toBe('map_not_found');
    });

    it('answers 400 with the reference message for an unknown owner_eve_id and creates nothing', async () => {
      const before = await aclCount();
      const res = await send('POST', `/api/map/acls?slug=${slug}`, mapKey, { acl: { name: 'Orphan', owner_eve_id: '1' } });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as ErrorBody;
      expect(body.error).toBe('Character not found: The provided owner_eve_id does not match any existing character');
      expect(body.code).toBe('owner_not_found');
      expect(await aclCount()).toBe(before);
    });

    it.each([
      ['a missing name', { acl: { owner_eve_id: 'OWNER' } }, 'acl.name'],
      ['a missing owner_eve_id', { acl: { name: 'x' } }, 'acl.owner_eve_id'],
      ['an unknown extra field', { acl: { name: 'x', owner_eve_id: 'OWNER', color: 'red' } }, 'acl.color'],
      ['an unknown top-level field', { acl: { name: 'x', owner_eve_id: 'OWNER' }, extra: 1 }, 'extra'],
      ['a name of the wrong type', { acl: { name: 123, owner_eve_id: 'OWNER' } }, 'acl.name'],
      ['a description of the wrong type', { acl: { name: 'x', description: 5, owner_eve_id: 'OWNER' } }, 'acl.description'],
      ['an empty name', { acl: { name: '', owner_eve_id: 'OWNER' } }, 'acl.name'],
      ['a blank name', { acl: { name: '   ', owner_eve_id: 'OWNER' } }, 'acl.name'],
      ['no acl wrapper', { name: 'x', owner_eve_id: 'OWNER' }, 'acl'],
    ])('answers 400 validation_failed with details for %s and creates nothing', async (_what, raw, field) => {
      const body = JSON.parse(JSON.stringify(raw).replace('OWNER', owner.eve_id)) as unknown;
      const before = await aclCount();
      const res = await send('POST', `/api/map/acls?slug=${slug}`, mapKey, body);
      expect(res.status).toBe(400);
      const err = (await res.json()) as ErrorBody;
      expect(Object.keys(err).sort()).toEqual(['code', 'details', 'error']);
      expect(err.code).toBe('validation_failed');
      expect(typeof err.error).toBe('string');
      expect(err.details!.length).toBeGreaterThanOrEqual(1);
      for (const d of err.details!) {
        expect(Object.keys(d).sort()).toEqual(['field', 'message']);
        expect(typeof d.message).toBe('string');
      }
      expect(err.details!.map((d) => d.field)).toContain(field);
      expect(await aclCount()).toBe(before);
    });

    it('answers 400 invalid_json for a malformed body', async () => {
      const res = await send('POST', `/api/map/acls?slug=${slug}`, mapKey, '{"acl": ');
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).code).toBe('invalid_json');
    });

    it('answers 400 map_identifier_required without a map selector', async () => {
      const res = await send('POST', '/api/map/acls', mapKey, { acl: { name: 'x', owner_eve_id: owner.eve_id } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).code).toBe('map_identifier_required');
    });

    it('answers 401 with WWW-Authenticate without a token, and with an ACL key instead of a map key', async () => {
      const acl = await createAcl({ name: 'Key holder' });
      const before = await aclCount();
      for (const token of [undefined, acl.api_key, 'not-a-real-key-0123456789']) {
        const res = await send('POST', `/api/map/acls?slug=${slug}`, token, { acl: { name: 'x', owner_eve_id: owner.eve_id } });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(((await res.json()) as ErrorBody).code).toBe('unauthorized');
      }
      expect(await aclCount()).toBe(before);
    });

    it('answers 404 when the key belongs to another map and creates nothing', async () => {
      const before = await aclCount();
      const res = await send('POST', `/api/map/acls?slug=${slug}`, otherMapKey, { acl: { name: 'x', owner_eve_id: owner.eve_id } });
      expect(res.status).toBe(404);
      expect(((await res.json()) as ErrorBody).code).toBe('map_not_found');
      expect(await aclCount()).toBe(before);
    });
  });

  describe('GET /api/acls/:id', () => {
    it('answers the ACL with its members, as created, with its own api_key', async () => {
      const created = await createAcl({ name: 'Readable', description: 'd' });
      const res = await send('GET', `/api/acls/${created.id}`, created.api_key);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: Acl };
      expect(Object.keys(body)).toEqual(['data']);
      expect(Object.keys(body.data).sort()).toEqual(ACL_FIELDS);
      expect(body.data).toEqual(created);
    });

    it('accepts the id in upper case', async () => {
      const created = await createAcl({ name: 'Upper' });
      const res = await send('GET', `/api/acls/${created.id.toUpperCase()}`, created.api_key);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: Acl }).data.id).toBe(created.id);
    });

    it('answers 401 with a map key, without a token, and with an unknown key', async () => {
      const created = await createAcl({ name: 'Guarded' });
      for (const [token, why] of [
        [mapKey, ', not a map API key'],
        [undefined, ', and none was given'],
        ['acl_unknownunknownunknown', '; the token given is not valid'],
      ] as const) {
        const res = await send('GET', `/api/acls/${created.id}`, token);
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(await res.json()).toEqual({ error: `Missing or invalid 'Bearer' token: this endpoint takes an ACL API key${why}`, code: 'unauthorized' });
      }
    });

    it("answers 404 `ACL not found` with another ACL's valid key", async () => {
      const a = await createAcl({ name: 'Mine' });
      const b = await createAcl({ name: 'Theirs' });
      const res = await send('GET', `/api/acls/${a.id}`, b.api_key);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'ACL not found', code: 'acl_not_found' });
    });

    it('answers 404 `ACL not found` for a non-UUID id and for an unknown UUID', async () => {
      const a = await createAcl({ name: 'Any' });
      for (const id of ['not-a-uuid', '123', '00000000-0000-4000-8000-000000000000']) {
        const res = await send('GET', `/api/acls/${id}`, a.api_key);
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ error: 'ACL not found', code: 'acl_not_found' });
      }
    });
  });

  describe('PUT /api/acls/:id', () => {
    it('updates name and description; updated_at moves, api_key, owner and inserted_at stay', async () => {
      const created = await createAcl({ name: 'Before', description: 'old' });
      await new Promise((r) => setTimeout(r, 5));
      const res = await send('PUT', `/api/acls/${created.id}`, created.api_key, { acl: { name: 'After', description: 'new' } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: Acl };
      expect(Object.keys(body.data).sort()).toEqual(ACL_FIELDS);
      expect(body.data).toMatchObject({
        id: created.id,
        name: 'After',
        description: 'new',
        owner_id: created.owner_id,
        api_key: created.api_key,
        inserted_at: created.inserted_at,
        members: [],
      });
      expect(body.data.updated_at).toMatch(TS_MICRO);
      expect(body.data.updated_at > created.updated_at).toBe(true);

      const read = await send('GET', `/api/acls/${created.id}`, created.api_key);
      expect(((await read.json()) as { data: Acl }).data).toEqual(body.data);
      const item = (await listAcls()).find((a) => a.id === created.id);
      expect(item).toMatchObject({ name: 'After', description: 'new', updated_at: body.data.updated_at });
    });

    it('changes only the fields given: name alone keeps the description, description null clears it', async () => {
      const created = await createAcl({ name: 'Partial', description: 'keep me' });
      const r1 = await send('PUT', `/api/acls/${created.id}`, created.api_key, { acl: { name: 'Partial 2' } });
      expect(r1.status).toBe(200);
      expect(((await r1.json()) as { data: Acl }).data).toMatchObject({ name: 'Partial 2', description: 'keep me' });
      const r2 = await send('PUT', `/api/acls/${created.id}`, created.api_key, { acl: { description: null } });
      expect(r2.status).toBe(200);
      expect(((await r2.json()) as { data: Acl }).data).toMatchObject({ name: 'Partial 2', description: null });
    });

    it.each([
      ['an empty name', { acl: { name: '' } }],
      ['a blank name', { acl: { name: '  ' } }],
      ['a name of the wrong type', { acl: { name: 42 } }],
      ['an unknown extra field', { acl: { name: 'x', owner_eve_id: '1' } }],
      ['no acl wrapper', { name: 'x' }],
    ])('answers 400 validation_failed for %s and changes nothing', async (_what, body) => {
      const created = await createAcl({ name: 'Stable', description: 'same' });
      const res = await send('PUT', `/api/acls/${created.id}`, created.api_key, body);
      expect(res.status).toBe(400);
      const err = (await res.json()) as ErrorBody;
      expect(err.code).toBe('validation_failed');
      expect(Array.isArray(err.details)).toBe(true);
      const read = await send('GET', `/api/acls/${created.id}`, created.api_key);
      expect(((await read.json()) as { data: Acl }).data).toEqual(created);
    });

    it("answers 404 with another ACL's key and 401 with a map key, changing nothing", async () => {
      const a = await createAcl({ name: 'Target' });
      const b = await createAcl({ name: 'Intruder' });
      const r1 = await send('PUT', `/api/acls/${a.id}`, b.api_key, { acl: { name: 'Hijacked' } });
      expect(r1.status).toBe(404);
      expect(await r1.json()).toEqual({ error: 'ACL not found', code: 'acl_not_found' });
      const r2 = await send('PUT', `/api/acls/${a.id}`, mapKey, { acl: { name: 'Hijacked' } });
      expect(r2.status).toBe(401);
      const read = await send('GET', `/api/acls/${a.id}`, a.api_key);
      expect(((await read.json()) as { data: Acl }).data.name).toBe('Target');
    });

    it('answers 404 for a non-UUID id', async () => {
      const a = await createAcl({ name: 'Some' });
      const res = await send('PUT', '/api/acls/nope', a.api_key, { acl: { name: 'x' } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'ACL not found', code: 'acl_not_found' });
    });

    it('answers 415 for a non-JSON body', async () => {
      const a = await createAcl({ name: 'Typed' });
      const res = await t.fetch(`/api/acls/${a.id}`, { method: 'PUT', token: a.api_key, headers: { 'content-type': 'text/plain' }, body: 'name=x' });
      expect(res.status).toBe(415);
      expect(((await res.json()) as ErrorBody).code).toBe('unsupported_media_type');
    });
  });
});
