/**
 * External (EVE) ids are canonical decimal digits (`^[1-9][0-9]{0,19}$`): `0042` and `42` would be two
 * spellings of one id, so a leading zero, a sign, spaces or other characters are 400 and write nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/app.js';
import { makeCharacter, makeMap } from '../support/factories.js';

interface ErrorBody {
  error: string;
  code: string;
  details?: { field: string; message: string }[];
}

const NOT_CANONICAL = ['0042', '0', '00', '+42', '-42', ' 42', '4 2', '1e3', '٤٢', '123456789012345678901'];

let t: TestServer;
let mapKey: string;
let mapId: string;
let ownerEveId: string;
let acl: { id: string; api_key: string };

const send = (method: string, path: string, token: string, body?: unknown) =>
  t.fetch(path, {
    method,
    token,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });

async function expect400(res: Response, field: string): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(400);
  const body = JSON.parse(text) as ErrorBody;
  expect(body.code).toBe('validation_failed');
  expect(
    body.details?.map((d) => d.field),
    text,
  ).toContain(field);
}

const count = async (table: string) =>
  (await t.platform.orm.em.fork().getConnection().execute<{ n: number }[]>(`select count(*)::int as n from ${table}`))[0]!.n;

beforeAll(async () => {
  t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false', SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
  const m = await makeMap(t.platform);
  mapKey = m.key;
  mapId = m.map.id as string;
  ownerEveId = m.ownerEveId;
  const res = await send('POST', `/api/map/acls?map_id=${mapId}`, mapKey, { acl: { name: 'Ids', owner_eve_id: ownerEveId } });
  expect(res.status).toBe(200);
  acl = ((await res.json()) as { data: { id: string; api_key: string } }).data;
});
afterAll(async () => t?.close());

describe('ACL member ids', () => {
  it.each(['eve_character_id', 'eve_corporation_id', 'eve_alliance_id'])(
    'POST /api/acls/:acl_id/members refuses %s with a leading zero after the same id was added: 400, one member stays',
    async (field) => {
      const role = field === 'eve_character_id' ? 'admin' : 'viewer';
      const id = String(40_000_000 + Math.floor(Math.random() * 1_000_000));
      const first = await send('POST', `/api/acls/${acl.id}/members`, acl.api_key, { member: { [field]: id, role } });
      expect(first.status, await first.clone().text()).toBe(200);
      const before = await count('acl_members');
      await expect400(await send('POST', `/api/acls/${acl.id}/members`, acl.api_key, { member: { [field]: `0${id}`, role } }), `member.${field}`);
      for (const bad of NOT_CANONICAL) {
        await expect400(await send('POST', `/api/acls/${acl.id}/members`, acl.api_key, { member: { [field]: bad, role: 'viewer' } }), `member.${field}`);
      }
      expect(await count('acl_members')).toBe(before);
      const again = await send('POST', `/api/acls/${acl.id}/members`, acl.api_key, { member: { [field]: id, role } });
      expect(again.status).toBe(409);
    },
  );

  it('PUT and DELETE /api/acls/:acl_id/members/:member_id answer 400 naming member_id for a non-canonical id and change nothing', async () => {
    const id = '4242';
    expect((await send('POST', `/api/acls/${acl.id}/members`, acl.api_key, { member: { eve_character_id: id, role: 'viewer' } })).status).toBe(200);
    for (const bad of ['04242', '+4242', 'not-an-id']) {
      await expect400(await send('PUT', `/api/acls/${acl.id}/members/${encodeURIComponent(bad)}`, acl.api_key, { member: { role: 'admin' } }), 'member_id');
      await expect400(await send('DELETE', `/api/acls/${acl.id}/members/${encodeURIComponent(bad)}`, acl.api_key), 'member_id');
    }
    const rows = await t.platform.orm.em
      .fork()
      .getConnection()
      .execute<{ role: string }[]>('select role from acl_members where acl_id = ? and eve_character_id = ?', [acl.id, id]);
    expect(rows).toEqual([{ role: 'viewer' }]);
  });
});

describe('other external ids', () => {
  it('POST /api/map/acls refuses a non-canonical owner_eve_id with 400 validation_failed and creates nothing', async () => {
    const before = await count('acls');
    for (const bad of [`0${ownerEveId}`, ...NOT_CANONICAL]) {
      await expect400(await send('POST', `/api/map/acls?map_id=${mapId}`, mapKey, { acl: { name: 'x', owner_eve_id: bad } }), 'acl.owner_eve_id');
    }
    expect(await count('acls')).toBe(before);
  });

  it('the editing API refuses a non-canonical eve_id in the tracked-characters path and in character_eve_id of activity', async () => {
    const pilot = await makeCharacter(t.platform);
    const before = [await count('map_characters'), await count('character_activity')];
    for (const bad of [`0${pilot.eve_id}`, '+1', 'abc']) {
      await expect400(await send('PUT', `/api/maps/${mapId}/tracked-characters/${encodeURIComponent(bad)}`, mapKey, { tracked: true }), 'eve_id');
      await expect400(await send('POST', `/api/maps/${mapId}/character-activity`, mapKey, { character_eve_id: bad, passages: 1 }), 'character_eve_id');
    }
    expect([await count('map_characters'), await count('character_activity')]).toEqual(before);
  });

  it('the admin API refuses non-canonical character, corporation, alliance and owner ids, and eve_id paths', async () => {
    const pilot = await makeCharacter(t.platform);
    const before = [await count('characters'), await count('maps'), await count('map_api_keys'), await count('map_characters')];
    const character = { eve_id: '2100000001', name: 'Zero', corporation_id: '98000001', corporation_ticker: 'C' };
    await expect400(await send('PUT', '/api/admin/characters', ADMIN_TOKEN, { ...character, eve_id: `0${pilot.eve_id}` }), 'eve_id');
    await expect400(await send('PUT', '/api/admin/characters', ADMIN_TOKEN, { ...character, corporation_id: '098000001' }), 'corporation_id');
    await expect400(await send('PUT', '/api/admin/characters', ADMIN_TOKEN, { ...character, alliance_id: '0099000001' }), 'alliance_id');
    await expect400(await send('POST', '/api/admin/maps', ADMIN_TOKEN, { slug: 'zero-owner', name: 'Zero', owner_eve_id: `0${pilot.eve_id}` }), 'owner_eve_id');
    await expect400(await send('POST', `/api/admin/maps/${mapId}/keys`, ADMIN_TOKEN, { character_eve_id: `0${ownerEveId}` }), 'character_eve_id');
    await expect400(await send('PUT', `/api/admin/maps/${mapId}/characters/0${pilot.eve_id}`, ADMIN_TOKEN, { tracked: true }), 'eve_id');
    await expect400(await send('DELETE', `/api/admin/maps/${mapId}/characters/0${pilot.eve_id}`, ADMIN_TOKEN), 'eve_id');
    const user = await t.platform.admin.createUser('Zero user');
    await expect400(await send('PUT', `/api/admin/users/${user.id}/main-character`, ADMIN_TOKEN, { eve_id: `0${pilot.eve_id}` }), 'eve_id');
    expect([await count('characters'), await count('maps'), await count('map_api_keys'), await count('map_characters')]).toEqual(before);
  });
});
