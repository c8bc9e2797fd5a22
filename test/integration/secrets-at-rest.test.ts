/**
 * Secrets at rest and in logs (decisions §2): map keys are stored only as sha256 hashes, ACL keys as
 * ciphertext, and no issued key, the admin token or an ACL key ever reaches a log line.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, TEST_ENCRYPTION_KEY, startTestServer, type TestServer } from '../support/app.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('secrets at rest and in logs', () => {
  let t: TestServer;
  let ownerKey: string;
  let issuedKey: string;
  let aclKey: string;
  let aclId: string;
  let mapId: string;
  let slug: string;

  const json = (method: string, path: string, token: string, body?: unknown) =>
    t.fetch(path, {
      method,
      token,
      ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });

  const sql = <T>(query: string, params: unknown[] = []) => t.platform.orm.em.fork().getConnection().execute<T[]>(query, params);

  /** Every row of every table of the test schema, as text. */
  const dumpDatabase = async (): Promise<string> => {
    const tables = await sql<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = ? and table_type = 'BASE TABLE' order by table_name`,
      [t.config.databaseSchema],
    );
    expect(tables.map((r) => r.table_name)).toEqual(expect.arrayContaining(['acls', 'map_api_keys', 'map_events', 'maps']));
    const parts: string[] = [];
    for (const { table_name } of tables) {
      const rows = await sql<{ row: string }>(`select t::text as row from "${t.config.databaseSchema}"."${table_name}" t`);
      parts.push(...rows.map((r) => `${table_name}: ${r.row}`));
    }
    return parts.join('\n');
  };

  beforeAll(async () => {
    t = await startTestServer();
    // Everything through the HTTP API, so every secret passes through request handling and logging.
    const owner = await json('PUT', '/api/admin/characters', ADMIN_TOKEN, {
      eve_id: '2100000001',
      name: 'Owner',
      corporation_id: '98000001',
      corporation_ticker: 'CORP',
    });
    expect(owner.status).toBe(200);
    const scout = await json('PUT', '/api/admin/characters', ADMIN_TOKEN, {
      eve_id: '2100000002',
      name: 'Scout',
      corporation_id: '98000001',
      corporation_ticker: 'CORP',
    });
    expect(scout.status).toBe(200);
    const created = await json('POST', '/api/admin/maps', ADMIN_TOKEN, { slug: 'secret-map', name: 'Secret', owner_eve_id: '2100000001' });
    expect(created.status).toBe(201);
    const map = ((await created.json()) as { data: { map: { id: string; slug: string }; api_key: { api_key: string } } }).data;
    ownerKey = map.api_key.api_key;
    mapId = map.map.id;
    slug = map.map.slug;
    const issued = await json('POST', `/api/admin/maps/${slug}/keys`, ADMIN_TOKEN, { character_eve_id: '2100000002', name: 'scout' });
    expect(issued.status).toBe(201);
    issuedKey = ((await issued.json()) as { data: { api_key: string } }).data.api_key;
    const acl = await json('POST', `/api/map/acls?slug=${slug}`, ownerKey, { acl: { name: 'Secret ACL', owner_eve_id: '2100000001' } });
    expect(acl.status).toBe(200);
    const aclData = ((await acl.json()) as { data: { id: string; api_key: string } }).data;
    aclKey = aclData.api_key;
    aclId = aclData.id;
    const member = await json('POST', `/api/acls/${aclId}/members`, aclKey, { member: { eve_character_id: '2100000002', role: 'viewer' } });
    expect(member.status).toBe(200);
  });
  afterAll(async () => t?.close());

  it('stores map keys only as their sha256 hash: no row of map_api_keys, or of any table, contains a key', async () => {
    const rows = await sql<{ key_hash: string; prefix: string; row: string }>(
      'select k.key_hash, k.prefix, k::text as row from map_api_keys k where k.map_id = ? order by k.inserted_at',
      [mapId],
    );
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.key_hash)).toEqual([sha256(ownerKey), sha256(issuedKey)]);
    for (const [i, key] of [ownerKey, issuedKey].entries()) {
      expect(rows[i]!.row).not.toContain(key);
      // `mik_` and 6 of the 43 random characters, no more ("less than half the key" let 72 bits of it through).
      expect(rows[i]!.prefix).toBe(key.slice(0, 10));
    }
    const dump = await dumpDatabase();
    expect(dump).not.toContain(ownerKey);
    expect(dump).not.toContain(issuedKey);
  });

  it('stores the ACL api_key as ciphertext that decrypts back to the key; no table holds the key in clear', async () => {
    const rows = await sql<{ api_key_encrypted: string; api_key_hash: string; row: string }>(
      'select a.api_key_encrypted, a.api_key_hash, a::text as row from acls a where a.id = ?',
      [aclId],
    );
    expect(rows).toHaveLength(1);
    const { api_key_encrypted, api_key_hash, row } = rows[0]!;
    expect(api_key_encrypted).not.toBe(aclKey);
    expect(api_key_encrypted).not.toContain(aclKey);
    expect(row).not.toContain(aclKey);
    expect(t.platform.box.decrypt(api_key_encrypted)).toBe(aclKey);
    expect(api_key_hash).toBe(sha256(aclKey));
    expect(await dumpDatabase()).not.toContain(aclKey);
  });

  it('keeps working with the stored forms: the ACL key reads its ACL, the map keys read the map', async () => {
    const acl = await t.fetch(`/api/acls/${aclId}`, { token: aclKey });
    expect(acl.status).toBe(200);
    expect(((await acl.json()) as { data: { api_key: string } }).data.api_key).toBe(aclKey);
    for (const key of [ownerKey, issuedKey]) {
      expect((await t.fetch(`/api/map/systems?slug=${slug}`, { token: key })).status).toBe(200);
    }
  });

  it('writes no issued key, admin token, ACL key or encryption key to any log line, even when a key is sent in the URL', async () => {
    const requests: [string, string | undefined][] = [
      [`/api/map/systems?slug=${slug}&token=${ownerKey}`, ownerKey],
      [`/api/map/systems?token=${issuedKey}&slug=${slug}`, undefined],
      [`/api/map/connections?map_id=${mapId}&token=${encodeURIComponent(issuedKey)}`, issuedKey],
      [`/api/maps/${slug}/events/stream?token=${ownerKey}`, undefined],
      [`/api/acls/${aclId}?token=${aclKey}`, aclKey],
      [`/api/acls/${aclId}?api_key=${aclKey}`, undefined],
      [`/api/characters?key=${aclKey}`, aclKey],
      [`/api/admin/maps?token=${ADMIN_TOKEN}`, ADMIN_TOKEN],
      [`/no/such/path?token=${ADMIN_TOKEN}&x=1`, ADMIN_TOKEN],
      // Spellings the query parser reads as `token` too.
      [`/api/map/systems?slug=${slug}&TOKEN=${issuedKey}`, undefined],
      [`/api/map/systems?slug=${slug}&%74oken=${ownerKey}`, undefined],
      [`/api/map/systems?slug=${slug}&token[]=${aclKey}`, undefined],
      [`/api/map/systems?slug=${slug}&token=${encodeURIComponent(ownerKey)}#frag`, undefined],
      ['/api/map/systems?slug=no-such-map', ownerKey],
      ['/api/admin/users', `${ADMIN_TOKEN}wrong`],
    ];
    for (const [path, token] of requests) {
      const res = await t.fetch(path, token !== undefined ? { token } : {});
      await res.body?.cancel();
    }
    // A malformed Authorization header carrying a key, and keys in other headers.
    for (const headers of [{ authorization: `Token ${ownerKey}` }, { authorization: aclKey }, { 'x-api-key': issuedKey }, { cookie: `token=${ADMIN_TOKEN}` }]) {
      const res = await t.fetch(`/api/map/systems?slug=${slug}`, { headers });
      expect(res.status).toBe(401);
      await res.body?.cancel();
    }
    // The access log line is written when the response finishes; give the last ones a moment.
    await new Promise((r) => setTimeout(r, 100));

    const raw = t.rawLogs();
    for (const secret of [ownerKey, issuedKey, aclKey, ADMIN_TOKEN, TEST_ENCRYPTION_KEY, encodeURIComponent(issuedKey)]) {
      expect(raw).not.toContain(secret);
    }
    // The requests were logged, with the key in the URL redacted (the check above is not vacuous).
    const urls = t.logs.filter((l) => l.msg === 'request').map((l) => String(l.url));
    expect(urls).toContain(`/api/map/systems?slug=${slug}&token=[redacted]`);
    expect(urls).toContain(`/api/maps/${slug}/events/stream?token=[redacted]`);
    expect(urls).toContain(`/no/such/path?token=[redacted]&x=1`);
    expect(urls).toContain(`/api/map/systems?slug=${slug}&%74oken=[redacted]`);
    // Both admin requests of this test, the token redacted (at least 5 admin lines was met by the setup's
    // four and either one of them).
    expect(urls).toContain('/api/admin/maps?token=[redacted]');
    expect(urls).toContain('/api/admin/users');
  });
  it('redacts secrets under any parameter name or encoding, and never echoes or logs a key sent as x-request-id', async () => {
    const other = (name: string) => `${name}-Zq8v${Math.random().toString(36).slice(2)}`;
    const plain = { clientSecret: other('cs'), password: other('pw'), apiKey: other('ak'), tabbed: other('tb'), wide: other('wd'), nul: other('nl') };
    const paths = [
      `/api/map/systems?slug=${slug}&access_token=${ownerKey}`,
      `/api/map/systems?slug=${slug}&token%00=${issuedKey}`,
      `/api/map/systems?slug=${slug}&%2574oken=${aclKey}`,
      `/api/map/systems?slug=${slug}&x-api-key=${plain.apiKey}&client_secret=${plain.clientSecret}&Password=${plain.password}`,
      `/api/map/systems?slug=${slug}&to%09ken=${plain.tabbed}&${encodeURIComponent('ｔｏｋｅｎ')}=${plain.wide}&%00key=${plain.nul}`,
      // mapintel's own keys are recognised under an innocent name and in the path too.
      `/api/map/systems?slug=${slug}&note=${ownerKey}`,
      `/api/maps/${issuedKey}/systems`,
    ];
    for (const path of paths) {
      const res = await t.fetch(path);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      await res.body?.cancel();
    }
    for (const credential of [ownerKey, `trace-${aclKey}`, ADMIN_TOKEN]) {
      const res = await t.fetch(`/api/map/systems?slug=${slug}`, { token: ownerKey, headers: { 'x-request-id': credential } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      await res.body?.cancel();
    }
    const ordinary = await t.fetch('/api/map/systems', { headers: { 'x-request-id': 'trace-0af7651916cd43dd' } });
    expect(ordinary.headers.get('x-request-id')).toBe('trace-0af7651916cd43dd');
    await ordinary.body?.cancel();
    await new Promise((r) => setTimeout(r, 100));

    const raw = t.rawLogs();
    for (const secret of [ownerKey, issuedKey, aclKey, ADMIN_TOKEN, ...Object.values(plain)]) expect(raw).not.toContain(secret);
    const urls = t.logs.filter((l) => l.msg === 'request').map((l) => String(l.url));
    expect(urls).toContain(`/api/map/systems?slug=${slug}&access_token=[redacted]`);
    expect(urls).toContain(`/api/map/systems?slug=${slug}&token%00=[redacted]`);
    expect(urls).toContain(`/api/map/systems?slug=${slug}&x-api-key=[redacted]&client_secret=[redacted]&Password=[redacted]`);
    expect(urls).toContain('/api/maps/[redacted]/systems');
    expect(t.logs.filter((l) => l.msg === 'request').map((l) => l.requestId)).toContain('trace-0af7651916cd43dd');
  });
});
