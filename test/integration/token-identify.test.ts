/**
 * Telling a revoked map key from an unknown token (for the 401's message) over the real key tables:
 * a valid key still costs one query, as before; a revoked one costs no more; the answer is cached
 * like any other, so repeating a revoked key costs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, ADMIN_TOKEN, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';
import { apiRole } from '../../src/api/api.role.js';
import { dbOf, type Db } from '../../src/db/db.js';
import { TokenService } from '../../src/auth/token.service.js';

let t: TestServer;
let mapId: string;
let owner: string;
let aclKey: string;
let queries: number;
let tokens: TokenService;

/** The database handle, counting the statements the token service sends (each `kysely()` builds one). */
function counting(db: Db): Db {
  return new Proxy(db, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (prop === 'one' || prop === 'all' || prop === 'kysely') queries++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

beforeAll(async () => {
  t = await startTestServer({ roles: [apiRole] });
  const m = await makeMap(t.platform);
  mapId = m.map.id;
  owner = m.ownerEveId;
  const res = await t.fetch(`/api/map/acls?map_id=${mapId}`, {
    method: 'POST',
    token: m.key,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ acl: { name: 'identify', owner_eve_id: owner } }),
  });
  aclKey = ((await res.json()) as { data: { api_key: string } }).data.api_key;
});

afterAll(async () => {
  await t?.close();
});

async function measure(token: string) {
  queries = 0;
  const identity = await tokens.identify(token);
  return { identity, queries };
}

describe('TokenService.identify', () => {
  it('costs one query for a valid map key, one for a revoked one, two for an unknown token; none when cached', async () => {
    tokens = new TokenService(counting(dbOf(t.platform.orm)), ADMIN_TOKEN);
    const valid = await t.platform.admin.issueKey(mapId, { character_eve_id: owner });
    const revoked = await t.platform.admin.issueKey(mapId, { character_eve_id: owner });
    await t.platform.admin.revokeKey(mapId, revoked.id);

    const v = await measure(valid.api_key);
    expect(v.identity).toEqual({ principal: expect.objectContaining({ kind: 'map_key', keyId: valid.id, mapId }), revoked: false });
    expect(v.queries).toBe(1);

    expect(await measure(revoked.api_key)).toEqual({ identity: { principal: null, revoked: true }, queries: 1 });
    expect(await measure(`mik_${'9'.repeat(43)}`)).toEqual({ identity: { principal: null, revoked: false }, queries: 2 });
    const acl = await measure(aclKey);
    expect(acl.identity).toEqual({ principal: expect.objectContaining({ kind: 'acl_key' }), revoked: false });
    expect(acl.queries).toBe(2);
    expect(await measure(ADMIN_TOKEN)).toEqual({ identity: { principal: { kind: 'admin' }, revoked: false }, queries: 0 });

    // Cached: no query, same answers.
    expect((await measure(valid.api_key)).queries).toBe(0);
    expect(await measure(revoked.api_key)).toEqual({ identity: { principal: null, revoked: true }, queries: 0 });
    expect(await measure(`mik_${'9'.repeat(43)}`)).toEqual({ identity: { principal: null, revoked: false }, queries: 0 });
    // The rate limiter's view is unchanged: a revoked key is no key.
    expect(tokens.cached(revoked.api_key)).toBeNull();
  });

  it('finds a key revoked after it was cached, once the cache is dropped', async () => {
    tokens = new TokenService(counting(dbOf(t.platform.orm)), ADMIN_TOKEN);
    const issued = await t.platform.admin.issueKey(mapId, { character_eve_id: owner });
    expect((await measure(issued.api_key)).identity.principal?.kind).toBe('map_key');
    await t.platform.admin.revokeKey(mapId, issued.id);
    tokens.invalidate();
    expect(await measure(issued.api_key)).toEqual({ identity: { principal: null, revoked: true }, queries: 1 });
  });
});
