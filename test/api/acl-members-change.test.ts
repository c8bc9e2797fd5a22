/** ACL members API (spec 4.4, 2.10; decisions §3, §5): changing and removing members (PUT, DELETE /api/acls/:acl_id/members/:member_id) and the events they write. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import { aclMembersClient, type AclMembersFixture, type ErrorBody, expectMemberShape, type Member, startAclMembers } from '../support/acl-members.js';

describe('ACL members API (spec 4.4, 2.10; decisions §3, §5)', () => {
  let fx: AclMembersFixture;
  let t: TestServer;
  let mapKey: string;
  let mapIds: string[];
  let homeMapId: string;
  let known: AclMembersFixture['known'];
  const { freshId, send, newAcl, addOk, events, memberRows, readMembers } = aclMembersClient(() => fx);

  beforeAll(async () => {
    fx = await startAclMembers();
    ({ t, mapKey, mapIds, homeMapId, known } = fx);
  });
  afterAll(async () => fx?.t.close());

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
