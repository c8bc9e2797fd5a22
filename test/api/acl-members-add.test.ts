/** ACL members API (spec 4.4, 2.10; decisions §3, §5): adding members: POST /api/acls/:acl_id/members. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aclMembersClient,
  type AclMembersFixture,
  type ErrorBody,
  expectMemberShape,
  ID_FIELDS,
  type Member,
  startAclMembers,
} from '../support/acl-members.js';

describe('ACL members API (spec 4.4, 2.10; decisions §3, §5)', () => {
  let fx: AclMembersFixture;
  let mapKey: string;
  let known: AclMembersFixture['known'];
  const { freshId, send, newAcl, addMember, addOk, events, memberRows, readMembers } = aclMembersClient(() => fx);

  beforeAll(async () => {
    fx = await startAclMembers();
    ({ mapKey, known } = fx);
  });
  afterAll(async () => fx?.t.close());

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
});
