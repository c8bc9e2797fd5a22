import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeCharacter, makeMap } from '../support/factories.js';

const TS_MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ID_FIELDS = ['eve_character_id', 'eve_corporation_id', 'eve_alliance_id'] as const;
type IdField = (typeof ID_FIELDS)[number];

interface Member {
  id: string;
  name: string;
  role: string;
  eve_character_id?: string;
  eve_corporation_id?: string;
  eve_alliance_id?: string;
  inserted_at: string;
  updated_at: string;
}

interface Acl {
  id: string;
  api_key: string;
  members: Member[];
}

interface ErrorBody {
  error: string;
  code: string;
  details?: { field: string; message: string }[];
}

interface EventRow {
  map_id: string;
  type: string;
  payload: Record<string, unknown>;
}

/** Exactly id, name, role, the one id field, inserted_at, updated_at (spec 2.10). */
function expectMemberShape(m: Record<string, unknown>, idField: IdField): void {
  expect(Object.keys(m).sort()).toEqual(['id', 'name', 'role', idField, 'inserted_at', 'updated_at'].sort());
  for (const other of ID_FIELDS.filter((f) => f !== idField)) expect(m).not.toHaveProperty(other);
  expect(m.id).toMatch(UUID);
  expect(typeof m[idField]).toBe('string');
  expect(m.inserted_at).toMatch(TS_MICRO);
  expect(m.updated_at).toMatch(TS_MICRO);
}

describe('ACL members API (spec 4.4, 2.10; decisions §3, §5)', () => {
  let t: TestServer;
  let mapKey: string;
  let slug: string;
  let mapIds: string[];
  /** The map the ACLs are created on (the first linked map). */
  let homeMapId: string;
  let secondMapId: string;
  let ownerEveId: string;
  let known: { eve_id: string; name: string; corporation_id: string; corporation_ticker: string; alliance_id: string | null; alliance_ticker: string | null };
  let eveSeq = 0;
  const freshId = () => String(3_000_000_000 + ++eveSeq * 7 + Math.floor(Math.random() * 1_000_000) * 1000);

  const send = (method: string, path: string, token: string | undefined, body?: unknown) =>
    t.fetch(path, {
      method,
      ...(token !== undefined ? { token } : {}),
      ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });

  const sql = async <T>(query: string, params: unknown[] = []) => t.platform.orm.em.fork().getConnection().execute<T[]>(query, params);

  /** A fresh ACL linked to the test map (and, with `linkSecondMap`, to a second map too). */
  const newAcl = async (linkSecondMap = false): Promise<Acl> => {
    const res = await send('POST', `/api/map/acls?slug=${slug}`, mapKey, { acl: { name: `acl ${freshId()}`, owner_eve_id: ownerEveId } });
    expect(res.status).toBe(200);
    const acl = ((await res.json()) as { data: Acl }).data;
    if (linkSecondMap) await sql('insert into map_acls (map_id, acl_id) values (?, ?)', [secondMapId, acl.id]);
    return acl;
  };

  const addMember = (acl: Acl, member: Record<string, unknown>) => send('POST', `/api/acls/${acl.id}/members`, acl.api_key, { member });

  const addOk = async (acl: Acl, member: Record<string, unknown>): Promise<Member> => {
    const res = await addMember(acl, member);
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: Member }).data;
  };

  const events = (aclId: string) => sql<EventRow>(`select map_id, type, payload from map_events where payload->>'acl_id' = ? order by seq`, [aclId]);

  const memberRows = (aclId: string) => sql<{ id: string; role: string }>('select id, role from acl_members where acl_id = ? order by inserted_at', [aclId]);

  const readMembers = async (acl: Acl): Promise<Member[]> => {
    const res = await send('GET', `/api/acls/${acl.id}`, acl.api_key);
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: Acl }).data.members;
  };

  beforeAll(async () => {
    // Many requests per key here; rate limits (100/min per key) are not what this file tests.
    t = await startTestServer({ env: { SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
    const m1 = await makeMap(t.platform);
    const m2 = await makeMap(t.platform);
    mapKey = m1.key;
    slug = m1.map.slug;
    ownerEveId = m1.ownerEveId;
    homeMapId = m1.map.id;
    secondMapId = m2.map.id;
    mapIds = [m1.map.id, m2.map.id].sort();
    known = await makeCharacter(t.platform, {
      name: 'Known Pilot',
      corporation_id: '98111111',
      corporation_ticker: 'KNOWN',
      alliance_id: '99111111',
      alliance_ticker: 'KALLY',
    });
  });
  afterAll(async () => t?.close());

  describe('POST /api/acls/:acl_id/members', () => {
    it('adds a character member: 200, exactly the member fields with only eve_character_id, name from the known character', async () => {
      const acl = await newAcl();
      const res = await addMember(acl, { eve_character_id: known.eve_id, role: 'admin' });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: Record<string, unknown> };
      expect(Object.keys(body)).toEqual(['data']);
      expectMemberShape(body.data, 'eve_character_id');
      expect(body.data).toMatchObject({ name: 'Known Pilot', role: 'admin', eve_character_id: known.eve_id });
      expect(await readMembers(acl)).toEqual([body.data]);
    });

    it('adds a corporation member named by the corporation ticker of a known character', async () => {
      const acl = await newAcl();
      const m = await addOk(acl, { eve_corporation_id: known.corporation_id, role: 'member' });
      expectMemberShape(m as unknown as Record<string, unknown>, 'eve_corporation_id');
      expect(m).toMatchObject({ name: 'KNOWN', role: 'member', eve_corporation_id: known.corporation_id });
    });

    it('adds an alliance member named by the alliance ticker of a known character', async () => {
      const acl = await newAcl();
      const m = await addOk(acl, { eve_alliance_id: known.alliance_id, role: 'viewer' });
      expectMemberShape(m as unknown as Record<string, unknown>, 'eve_alliance_id');
      expect(m).toMatchObject({ name: 'KALLY', role: 'viewer', eve_alliance_id: known.alliance_id });
    });

    it.each(ID_FIELDS)('names a %s member nobody knows by its id', async (field) => {
      const acl = await newAcl();
      const id = freshId();
      const m = await addOk(acl, { [field]: id, role: 'viewer' });
      expectMemberShape(m as unknown as Record<string, unknown>, field);
      expect(m.name).toBe(id);
      expect(m[field]).toBe(id);
    });

    it('accepts every role for a character member', async () => {
      const acl = await newAcl();
      for (const role of ['admin', 'manager', 'member', 'viewer', 'blocked']) {
        const m = await addOk(acl, { eve_character_id: freshId(), role });
        expect(m.role).toBe(role);
      }
      expect((await readMembers(acl)).map((m) => m.role)).toEqual(['admin', 'manager', 'member', 'viewer', 'blocked']);
    });

    it.each(['eve_corporation_id', 'eve_alliance_id'] as const)('accepts member, viewer and blocked for a %s member', async (field) => {
      const acl = await newAcl();
      for (const role of ['member', 'viewer', 'blocked']) {
        const m = await addOk(acl, { [field]: freshId(), role });
        expect(m.role).toBe(role);
      }
    });

    it.each([
      ['a corporation as admin', { eve_corporation_id: 'ID', role: 'admin' }],
      ['a corporation as manager', { eve_corporation_id: 'ID', role: 'manager' }],
      ['an alliance as admin', { eve_alliance_id: 'ID', role: 'admin' }],
      ['an alliance as manager', { eve_alliance_id: 'ID', role: 'manager' }],
      ['an unknown role', { eve_character_id: 'ID', role: 'owner' }],
      ['an upper-case role', { eve_character_id: 'ID', role: 'ADMIN' }],
      ['no role', { eve_character_id: 'ID' }],
      ['a role of the wrong type', { eve_character_id: 'ID', role: 1 }],
      ['no id', { role: 'viewer' }],
      ['two ids', { eve_character_id: 'ID', eve_corporation_id: 'ID', role: 'viewer' }],
      ['three ids', { eve_character_id: 'ID', eve_corporation_id: 'ID', eve_alliance_id: 'ID', role: 'viewer' }],
      ['a non-numeric id', { eve_character_id: 'abc', role: 'viewer' }],
      ['a numeric (not string) id', { eve_character_id: 12345, role: 'viewer' }],
      ['an unknown extra field', { eve_character_id: 'ID', role: 'viewer', corp: 'x' }],
    ])('answers 400 validation_failed for %s, adding no member and writing no event', async (_what, raw) => {
      const acl = await newAcl(true);
      const id = freshId();
      const member = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, v === 'ID' ? id : v]));
      const res = await addMember(acl, member);
      expect(res.status).toBe(400);
      const err = (await res.json()) as ErrorBody;
      expect(Object.keys(err).sort()).toEqual(['code', 'details', 'error']);
      expect(err.code).toBe('validation_failed');
      expect(err.details!.length).toBeGreaterThanOrEqual(1);
      for (const d of err.details!) expect(Object.keys(d).sort()).toEqual(['field', 'message']);
      expect(await memberRows(acl.id)).toEqual([]);
      expect(await events(acl.id)).toEqual([]);
    });

    it('answers 400 validation_failed without the member wrapper', async () => {
      const acl = await newAcl();
      const res = await send('POST', `/api/acls/${acl.id}/members`, acl.api_key, { eve_character_id: freshId(), role: 'viewer' });
      expect(res.status).toBe(400);
      const err = (await res.json()) as ErrorBody;
      expect(err.code).toBe('validation_failed');
      expect(err.details!.map((d) => d.field)).toContain('member');
    });

    it('answers 409 for a duplicate member, keeping the first and writing no second event', async () => {
      const acl = await newAcl(true);
      const id = freshId();
      const first = await addOk(acl, { eve_character_id: id, role: 'viewer' });
      const before = await events(acl.id);
      expect(before).toHaveLength(2);
      const res = await addMember(acl, { eve_character_id: id, role: 'admin' });
      expect(res.status).toBe(409);
      const err = (await res.json()) as ErrorBody;
      expect(err.code).toBe('member_exists');
      expect(typeof err.error).toBe('string');
      expect(await readMembers(acl)).toEqual([first]);
      expect(await events(acl.id)).toEqual(before);
    });

    it('adds a member once when the same member is posted concurrently; the others get 409 member_exists', async () => {
      const acl = await newAcl(true);
      const id = freshId();
      const results = await Promise.all(
        Array.from({ length: 4 }, () =>
          addMember(acl, { eve_character_id: id, role: 'viewer' }).then(async (r) => [r.status, ((await r.json()) as ErrorBody).code]),
        ),
      );
      expect(results.filter(([s]) => s === 200)).toHaveLength(1);
      expect(results.filter(([s]) => s !== 200)).toEqual([
        [409, 'member_exists'],
        [409, 'member_exists'],
        [409, 'member_exists'],
      ]);
      expect(await memberRows(acl.id)).toHaveLength(1);
      expect(await events(acl.id)).toHaveLength(2);
    });

    it('refuses the same id as a second kind with 409 member_id_taken, so the member paths name one member', async () => {
      const acl = await newAcl(true);
      const id = freshId();
      const first = await addOk(acl, { eve_character_id: id, role: 'viewer' });
      const before = await events(acl.id);
      for (const field of ['eve_corporation_id', 'eve_alliance_id']) {
        const res = await addMember(acl, { [field]: id, role: 'member' });
        expect(res.status).toBe(409);
        const err = (await res.json()) as ErrorBody;
        expect(err.code).toBe('member_id_taken');
        expect(err.error).toContain('character member');
      }
      expect(await readMembers(acl)).toEqual([first]);
      expect(await events(acl.id)).toEqual(before);
      // PUT and DELETE by that id act on the one member there is.
      const put = await send('PUT', `/api/acls/${acl.id}/members/${id}`, acl.api_key, { member: { role: 'member' } });
      expect(put.status).toBe(200);
      expect(((await put.json()) as { data: Member }).data).toMatchObject({ id: first.id, eve_character_id: id, role: 'member' });
      expect((await send('DELETE', `/api/acls/${acl.id}/members/${id}`, acl.api_key)).status).toBe(200);
      expect(await readMembers(acl)).toEqual([]);
    });

    it('adds an id once when it is posted as different kinds at once; the others get 409', async () => {
      const acl = await newAcl();
      const id = freshId();
      const kinds = ['eve_character_id', 'eve_corporation_id', 'eve_alliance_id', 'eve_corporation_id'];
      const results = await Promise.all(
        kinds.map((field) => addMember(acl, { [field]: id, role: 'viewer' }).then(async (r) => [r.status, ((await r.json()) as ErrorBody).code])),
      );
      expect(results.filter(([s]) => s === 200)).toHaveLength(1);
      for (const [status, code] of results.filter(([s]) => s !== 200)) {
        expect(status).toBe(409);
        expect(['member_exists', 'member_id_taken']).toContain(code);
      }
      expect(await memberRows(acl.id)).toHaveLength(1);
    });

    it('allows the same external id as a character in one ACL and in another ACL', async () => {
      const a = await newAcl();
      const b = await newAcl();
      const id = freshId();
      await addOk(a, { eve_character_id: id, role: 'viewer' });
      await addOk(b, { eve_character_id: id, role: 'viewer' });
    });

    it("answers 404 `ACL not found` with another ACL's key and 401 with a map key, adding nothing", async () => {
      const a = await newAcl();
      const b = await newAcl();
      const r1 = await send('POST', `/api/acls/${a.id}/members`, b.api_key, { member: { eve_character_id: freshId(), role: 'viewer' } });
      expect(r1.status).toBe(404);
      expect(await r1.json()).toEqual({ error: 'ACL not found', code: 'acl_not_found' });
      const r2 = await send('POST', `/api/acls/${a.id}/members`, mapKey, { member: { eve_character_id: freshId(), role: 'viewer' } });
      expect(r2.status).toBe(401);
      expect(r2.headers.get('www-authenticate')).toBe('Bearer');
      const r3 = await send('POST', `/api/acls/${a.id}/members`, undefined, { member: { eve_character_id: freshId(), role: 'viewer' } });
      expect(r3.status).toBe(401);
      expect(await memberRows(a.id)).toEqual([]);
      expect(await events(a.id)).toEqual([]);
    });

    it('answers 404 for a non-UUID acl_id', async () => {
      const a = await newAcl();
      const res = await send('POST', '/api/acls/xyz/members', a.api_key, { member: { eve_character_id: freshId(), role: 'viewer' } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'ACL not found', code: 'acl_not_found' });
    });
  });

  describe('PUT /api/acls/:acl_id/members/:member_id', () => {
    it('changes the role of the member named by its external id; updated_at moves, the rest stays', async () => {
      const acl = await newAcl();
      const added = await addOk(acl, { eve_character_id: known.eve_id, role: 'viewer' });
      await new Promise((r) => setTimeout(r, 5));
      const res = await send('PUT', `/api/acls/${acl.id}/members/${known.eve_id}`, acl.api_key, { member: { role: 'manager' } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: Member };
      expect(Object.keys(body)).toEqual(['data']);
      expectMemberShape(body.data as unknown as Record<string, unknown>, 'eve_character_id');
      expect(body.data).toMatchObject({ id: added.id, name: 'Known Pilot', role: 'manager', eve_character_id: known.eve_id, inserted_at: added.inserted_at });
      expect(body.data.updated_at > added.updated_at).toBe(true);
      expect(await readMembers(acl)).toEqual([body.data]);
    });

    it.each(['eve_corporation_id', 'eve_alliance_id'] as const)('changes a %s member role, keeping only its id field', async (field) => {
      const acl = await newAcl();
      const id = freshId();
      await addOk(acl, { [field]: id, role: 'viewer' });
      const res = await send('PUT', `/api/acls/${acl.id}/members/${id}`, acl.api_key, { member: { role: 'blocked' } });
      expect(res.status).toBe(200);
      const m = ((await res.json()) as { data: Record<string, unknown> }).data;
      expectMemberShape(m, field);
      expect(m.role).toBe('blocked');
    });

    it.each([
      ['a corporation to admin', 'eve_corporation_id', 'admin'],
      ['an alliance to manager', 'eve_alliance_id', 'manager'],
      ['a character to an unknown role', 'eve_character_id', 'superuser'],
    ] as const)('answers 400 validation_failed when changing %s, keeping the role and writing no event', async (_what, field, role) => {
      const acl = await newAcl(true);
      const id = freshId();
      await addOk(acl, { [field]: id, role: 'viewer' });
      const before = await events(acl.id);
      const res = await send('PUT', `/api/acls/${acl.id}/members/${id}`, acl.api_key, { member: { role } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).code).toBe('validation_failed');
      expect((await memberRows(acl.id)).map((r) => r.role)).toEqual(['viewer']);
      expect(await events(acl.id)).toEqual(before);
    });

    it('answers 400 validation_failed for a body without a role or with extra fields', async () => {
      const acl = await newAcl();
      const id = freshId();
      await addOk(acl, { eve_character_id: id, role: 'viewer' });
      for (const member of [{}, { role: 'admin', name: 'x' }, { role: 7 }]) {
        const res = await send('PUT', `/api/acls/${acl.id}/members/${id}`, acl.api_key, { member });
        expect(res.status).toBe(400);
        expect(((await res.json()) as ErrorBody).code).toBe('validation_failed');
      }
      expect((await memberRows(acl.id)).map((r) => r.role)).toEqual(['viewer']);
    });

    it('answers 404 with the reference message for an unknown member, writing no event', async () => {
      const acl = await newAcl(true);
      const res = await send('PUT', `/api/acls/${acl.id}/members/${freshId()}`, acl.api_key, { member: { role: 'viewer' } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'Membership not found for given ACL and external id', code: 'member_not_found' });
      expect(await events(acl.id)).toEqual([]);
    });

    it('does not find a member by its membership record id (member_id is the external id): 400, an id is digits', async () => {
      const acl = await newAcl();
      const m = await addOk(acl, { eve_character_id: freshId(), role: 'viewer' });
      const res = await send('PUT', `/api/acls/${acl.id}/members/${m.id}`, acl.api_key, { member: { role: 'admin' } });
      expect(res.status).toBe(400);
      const body = (await res.json()) as ErrorBody;
      expect(body.code).toBe('validation_failed');
      expect(body.details?.map((d) => d.field)).toEqual(['member_id']);
    });

    it("answers 404 `ACL not found` with another ACL's key, changing nothing", async () => {
      const a = await newAcl();
      const b = await newAcl();
      const id = freshId();
      await addOk(a, { eve_character_id: id, role: 'viewer' });
      const res = await send('PUT', `/api/acls/${a.id}/members/${id}`, b.api_key, { member: { role: 'admin' } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'ACL not found', code: 'acl_not_found' });
      expect((await memberRows(a.id)).map((r) => r.role)).toEqual(['viewer']);
    });
  });

  describe('DELETE /api/acls/:acl_id/members/:member_id', () => {
    it('answers exactly {"ok":true}, not wrapped in data, and removes the member', async () => {
      const acl = await newAcl();
      const keep = await addOk(acl, { eve_character_id: freshId(), role: 'viewer' });
      const id = freshId();
      await addOk(acl, { eve_corporation_id: id, role: 'member' });
      const res = await send('DELETE', `/api/acls/${acl.id}/members/${id}`, acl.api_key);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(await res.text())).toStrictEqual({ ok: true });
      expect(await readMembers(acl)).toEqual([keep]);
    });

    it('accepts a bodiless DELETE carrying Content-Type: application/json', async () => {
      const acl = await newAcl();
      const id = freshId();
      await addOk(acl, { eve_alliance_id: id, role: 'viewer' });
      const res = await t.fetch(`/api/acls/${acl.id}/members/${id}`, { method: 'DELETE', token: acl.api_key, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(200);
      expect(await res.json()).toStrictEqual({ ok: true });
    });

    it('answers 404 with the reference message for an unknown or already removed member', async () => {
      const acl = await newAcl(true);
      const id = freshId();
      await addOk(acl, { eve_character_id: id, role: 'viewer' });
      expect((await send('DELETE', `/api/acls/${acl.id}/members/${id}`, acl.api_key)).status).toBe(200);
      const before = await events(acl.id);
      for (const missing of [id, freshId()]) {
        const res = await send('DELETE', `/api/acls/${acl.id}/members/${missing}`, acl.api_key);
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ error: 'Membership not found for given ACL and external id', code: 'member_not_found' });
      }
      expect(await events(acl.id)).toEqual(before);
    });

    it("answers 404 `ACL not found` with another ACL's key and 401 without a token, removing nothing", async () => {
      const a = await newAcl();
      const b = await newAcl();
      const id = freshId();
      await addOk(a, { eve_character_id: id, role: 'viewer' });
      const r1 = await send('DELETE', `/api/acls/${a.id}/members/${id}`, b.api_key);
      expect(r1.status).toBe(404);
      expect(await r1.json()).toEqual({ error: 'ACL not found', code: 'acl_not_found' });
      const r2 = await send('DELETE', `/api/acls/${a.id}/members/${id}`, undefined);
      expect(r2.status).toBe(401);
      const r3 = await send('DELETE', `/api/acls/${a.id}/members/${id}`, mapKey);
      expect(r3.status).toBe(401);
      expect(await memberRows(a.id)).toHaveLength(1);
    });
  });

  describe('events (decisions §5)', () => {
    it('writes acl_member_added, _updated and _removed once per linked map with the full payload', async () => {
      const acl = await newAcl(true);
      const added = await addOk(acl, { eve_character_id: known.eve_id, role: 'viewer' });
      let rows = await events(acl.id);
      expect(rows).toHaveLength(2);
      const addPayload = {
        acl_id: acl.id,
        member_id: added.id,
        member_name: 'Known Pilot',
        member_type: 'character',
        eve_id: known.eve_id,
        role: 'viewer',
      };
      expect(rows.map((r) => r.map_id).sort()).toEqual(mapIds);
      for (const r of rows) {
        expect(r.type).toBe('acl_member_added');
        expect(r.payload).toStrictEqual(addPayload);
      }

      expect((await send('PUT', `/api/acls/${acl.id}/members/${known.eve_id}`, acl.api_key, { member: { role: 'admin' } })).status).toBe(200);
      rows = await events(acl.id);
      expect(rows).toHaveLength(4);
      const updates = rows.slice(2);
      expect(updates.map((r) => r.map_id).sort()).toEqual(mapIds);
      for (const r of updates) {
        expect(r.type).toBe('acl_member_updated');
        expect(r.payload).toStrictEqual({ ...addPayload, role: 'admin' });
      }

      expect((await send('DELETE', `/api/acls/${acl.id}/members/${known.eve_id}`, acl.api_key)).status).toBe(200);
      rows = await events(acl.id);
      expect(rows).toHaveLength(6);
      const removals = rows.slice(4);
      expect(removals.map((r) => r.map_id).sort()).toEqual(mapIds);
      for (const r of removals) {
        expect(r.type).toBe('acl_member_removed');
        expect(r.payload).toStrictEqual({ ...addPayload, role: 'admin' });
      }
    });

    it.each([
      ['eve_corporation_id', 'corporation'],
      ['eve_alliance_id', 'alliance'],
    ] as const)('gives a %s member the member_type %s and its id as eve_id', async (field, type) => {
      const acl = await newAcl();
      const id = freshId();
      const m = await addOk(acl, { [field]: id, role: 'member' });
      const rows = await events(acl.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toStrictEqual({
        map_id: homeMapId,
        type: 'acl_member_added',
        payload: { acl_id: acl.id, member_id: m.id, member_name: id, member_type: type, eve_id: id, role: 'member' },
      });
    });

    it('writes events only for the maps the ACL is linked to', async () => {
      const acl = await newAcl();
      await addOk(acl, { eve_character_id: freshId(), role: 'viewer' });
      const rows = await events(acl.id);
      expect(rows.map((r) => [r.map_id, r.type])).toEqual([[homeMapId, 'acl_member_added']]);
    });
  });
});
