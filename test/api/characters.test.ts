/**
 * Contract of GET /api/characters (spec 4.3, 2.4; decisions §1, §2): any valid map key or ACL key,
 * every known character in the public form, 401 without a valid token, 403 when switched off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/app.js';
import { makeCharacter, makeMap } from '../support/factories.js';

type Json = Record<string, unknown>;
type Character = Awaited<ReturnType<typeof makeCharacter>>;

const CHARACTER_FIELDS = ['eve_id', 'name', 'corporation_id', 'corporation_ticker', 'alliance_id', 'alliance_ticker'];

const pub = (c: Character) => ({
  eve_id: c.eve_id,
  name: c.name,
  corporation_id: c.corporation_id,
  corporation_ticker: c.corporation_ticker,
  alliance_id: c.alliance_id,
  alliance_ticker: c.alliance_ticker,
});

const byEveId = (a: Json, b: Json) => String(a.eve_id).localeCompare(String(b.eve_id));

async function createAclKey(t: TestServer, mapId: string, mapKey: string, ownerEveId: string): Promise<string> {
  const res = await t.fetch(`/api/map/acls?map_id=${mapId}`, {
    token: mapKey,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ acl: { name: 'Readers', owner_eve_id: ownerEveId } }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { api_key: string } }).data.api_key;
}

describe('GET /api/characters', () => {
  let t: TestServer;
  const chars: Character[] = [];
  let mapId: string;
  let key: string;
  let keyB: string;
  let aclKey: string;

  const get = async (headers: Record<string, string> = {}) => {
    const res = await t.fetch('/api/characters', { headers });
    return { res, status: res.status, body: (await res.json()) as Json };
  };
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    t = await startTestServer();
    const p = t.platform;
    const user = await p.admin.createUser('Someone');
    chars.push(await makeCharacter(p, { name: 'Owner A' }));
    chars.push(
      await makeCharacter(p, { name: 'Owner B', corporation_id: '98000002', corporation_ticker: 'BCO', alliance_id: '99000002', alliance_ticker: 'BAL' }),
    );
    chars.push(await makeCharacter(p, { name: 'No Alliance', alliance_id: null, alliance_ticker: null }));
    chars.push(await makeCharacter(p, { name: 'With User', user_id: user.id }));
    const a = await makeMap(p, { ownerEveId: chars[0]!.eve_id });
    const b = await makeMap(p, { ownerEveId: chars[1]!.eve_id });
    mapId = a.map.id;
    key = a.key;
    keyB = b.key;
    aclKey = await createAclKey(t, mapId, key, chars[0]!.eve_id);
  });
  afterAll(async () => t?.close());

  it('answers every known character with exactly the fields of spec 2.4, ids as strings', async () => {
    const { status, res, body } = await get(bearer(key));
    expect(status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(body)).toEqual(['data']);
    const data = body.data as Json[];
    for (const c of data) {
      expect(Object.keys(c).sort()).toEqual([...CHARACTER_FIELDS].sort());
      for (const f of ['eve_id', 'name', 'corporation_id', 'corporation_ticker']) expect(c[f], f).toBeTypeOf('string');
      for (const f of ['alliance_id', 'alliance_ticker']) if (c[f] !== null) expect(c[f], f).toBeTypeOf('string');
    }
    expect([...data].sort(byEveId)).toEqual(chars.map(pub).sort(byEveId));
    const noAlliance = data.find((c) => c.name === 'No Alliance')!;
    expect(noAlliance.alliance_id).toBeNull();
    expect(noAlliance.alliance_ticker).toBeNull();
  });

  it('answers the same list to a key of another map and to an ACL key', async () => {
    const withMapKey = await get(bearer(key));
    const withOtherMapKey = await get(bearer(keyB));
    const withAclKey = await get(bearer(aclKey));
    expect(withOtherMapKey.status).toBe(200);
    expect(withAclKey.status).toBe(200);
    expect(withOtherMapKey.body).toEqual(withMapKey.body);
    expect(withAclKey.body).toEqual(withMapKey.body);
  });

  it('includes a character as soon as it is known, with its eve_id usable as an ACL owner', async () => {
    const fresh = await makeCharacter(t.platform, { name: 'Fresh Pilot' });
    chars.push(fresh);
    const { body } = await get(bearer(aclKey));
    const listed = (body.data as Json[]).find((c) => c.eve_id === fresh.eve_id);
    expect(listed).toEqual(pub(fresh));
    const res = await t.fetch(`/api/map/acls?map_id=${mapId}`, {
      token: key,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ acl: { name: 'Fresh ACL', owner_eve_id: listed!.eve_id } }),
    });
    expect(res.status).toBe(200);
  });

  it('answers 401 with WWW-Authenticate: Bearer and the JSON error without a token', async () => {
    const { status, res, body } = await get();
    expect(status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(body).toEqual({ error: "Missing or invalid 'Bearer' token: this endpoint takes a map or ACL API key, and none was given", code: 'unauthorized' });
  });

  it('answers 401 for a malformed header, an unknown token, the admin token and a revoked map key', async () => {
    const issued = await t.platform.admin.issueKey(mapId, { character_eve_id: chars[2]!.eve_id });
    expect((await get(bearer(issued.api_key))).status).toBe(200);
    await t.platform.admin.revokeKey(mapId, issued.id);
    const cases: Record<string, string>[] = [
      { authorization: `Token ${key}` },
      { authorization: 'Bearer ' },
      { authorization: 'Bearer x' },
      bearer(`mik_${'0'.repeat(40)}`),
      bearer(`acl_${'0'.repeat(40)}`),
      bearer(ADMIN_TOKEN),
      bearer(issued.api_key),
    ];
    for (const headers of cases) {
      const { status, res, body } = await get(headers);
      expect(status, headers.authorization).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(Object.keys(body).sort()).toEqual(['code', 'error']);
      expect(body.code).toBe('unauthorized');
    }
  });
});

describe('GET /api/characters with SERVICE_CHARACTER_API_DISABLED=true', () => {
  let t: TestServer;
  let mapId: string;
  let key: string;
  let aclKey: string;

  beforeAll(async () => {
    t = await startTestServer({ env: { SERVICE_CHARACTER_API_DISABLED: 'true' } });
    const owner = await makeCharacter(t.platform, { name: 'Owner' });
    const m = await makeMap(t.platform, { ownerEveId: owner.eve_id });
    mapId = m.map.id;
    key = m.key;
    aclKey = await createAclKey(t, mapId, key, owner.eve_id);
  });
  afterAll(async () => t?.close());

  it('answers 403 character_api_disabled to a valid map key and a valid ACL key', async () => {
    for (const token of [key, aclKey]) {
      const res = await t.fetch('/api/characters', { token });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as Json;
      expect(Object.keys(body).sort()).toEqual(['code', 'error']);
      expect(body.code).toBe('character_api_disabled');
      expect(body.error).toBeTypeOf('string');
    }
  });

  it('still answers 401 without a valid token', async () => {
    for (const token of [undefined, `mik_${'0'.repeat(40)}`]) {
      const res = await t.fetch('/api/characters', token === undefined ? {} : { token });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await res.json()) as Json).code).toBe('unauthorized');
    }
  });

  it('leaves the map data endpoints working', async () => {
    const res = await t.fetch(`/api/map/characters?map_id=${mapId}`, { token: key });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: [] });
  });
});
