/**
 * Rate limits (decisions §8): one budget per API key per minute, global across processes through
 * Redis; unauthenticated endpoints per client address; RateLimit-* headers on every /api response and
 * Retry-After on 429; made-up keys count against the client address and cost a bounded number of
 * database lookups. The limit is set to 5 so the file stays fast.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { uniqueName } from '../support/db.js';
import { importFixture, makeMap } from '../support/factories.js';
import { generateToken, hashToken } from '../../src/common/crypto.js';

const LIMIT = 5;
const JSON_CT = { 'content-type': 'application/json' };

interface Seen {
  status: number;
  limit: number;
  remaining: number;
  reset: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

async function seen(res: Response): Promise<Seen> {
  const num = (name: string) => {
    const v = res.headers.get(name);
    expect(v, `${name} header on a ${res.status}`).not.toBeNull();
    expect(v).toMatch(/^\d+$/);
    return Number(v);
  };
  return {
    status: res.status,
    limit: num('ratelimit-limit'),
    remaining: num('ratelimit-remaining'),
    reset: num('ratelimit-reset'),
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

function expectRateLimited(s: Seen): void {
  expect(s.status).toBe(429);
  expect(s.body).toEqual({ error: expect.any(String), code: 'rate_limited' });
  expect(s.retryAfter).toMatch(/^\d+$/);
  expect(Number(s.retryAfter)).toBeGreaterThan(0);
  expect(Number(s.retryAfter)).toBeLessThanOrEqual(60);
  expect(s.remaining).toBe(0);
}

/** Budget used up request by request: remaining goes 4, 3, 2, 1, 0 and reset never grows. */
function expectCountdown(list: Seen[]): void {
  expect(list.map((s) => s.status)).toEqual(Array(LIMIT).fill(200));
  expect(list.map((s) => s.limit)).toEqual(Array(LIMIT).fill(LIMIT));
  expect(list.map((s) => s.remaining)).toEqual([4, 3, 2, 1, 0]);
  for (let i = 0; i < list.length; i++) {
    expect(list[i]!.reset).toBeLessThanOrEqual(60);
    if (i > 0) expect(list[i]!.reset).toBeLessThanOrEqual(list[i - 1]!.reset);
  }
}

describe('rate limits shared through Redis by two processes', () => {
  let a: TestServer;
  let b: TestServer;
  let mapId: string;
  let keyOne: string;
  let keyTwo: string;
  let otherMapKey: string;
  let otherMapId: string;
  let ownerEveId: string;

  beforeAll(async () => {
    // One prefix for both: startTestServer picks a random one per call otherwise.
    const prefix = `${uniqueName('rl')}:`;
    const env = { SERVICE_RATE_LIMIT_PER_MINUTE: String(LIMIT), REDIS_KEY_PREFIX: prefix };
    a = await startTestServer({ redis: true, env });
    b = await startTestServer({ redis: true, env, schema: a.config.databaseSchema, keepSchema: true });
    expect(b.config.redisKeyPrefix).toBe(a.config.redisKeyPrefix);
    await importFixture(a.platform);
    const m = await makeMap(a.platform);
    mapId = m.map.id;
    keyOne = m.key;
    ownerEveId = m.ownerEveId;
    const second = await a.platform.admin.issueKey(mapId, { character_eve_id: m.ownerEveId });
    keyTwo = second.api_key;
    const other = await makeMap(a.platform);
    otherMapKey = other.key;
    otherMapId = other.map.id;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('counts one budget per key across both processes; the 6th request gets 429 with Retry-After', async () => {
    const list: Seen[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const server = i % 2 === 0 ? a : b;
      list.push(await seen(await server.fetch(`/api/map/systems?map_id=${mapId}`, { token: keyOne })));
    }
    expectCountdown(list);
    const sixth = await seen(await b.fetch(`/api/map/systems?map_id=${mapId}`, { token: keyOne }));
    expectRateLimited(sixth);
    expect(sixth.limit).toBe(LIMIT);
    // And on the other process too.
    expectRateLimited(await seen(await a.fetch(`/api/map/connections?map_id=${mapId}`, { token: keyOne })));
  });

  it("counts each stream request once against the key's budget, shared with the API, with the same headers", async () => {
    const third = (await a.platform.admin.issueKey(mapId, { character_eve_id: ownerEveId })).api_key;
    const list: Seen[] = [];
    // Streams are switched off here: each connect is answered 403 sse_disabled at once, and still counts.
    for (let i = 0; i < LIMIT - 1; i++) list.push(await seen(await (i % 2 ? b : a).fetch(`/api/maps/${mapId}/events/stream`, { token: third })));
    list.push(await seen(await a.fetch(`/api/map/systems?map_id=${mapId}`, { token: third })));
    expect(list.map((x) => x.status)).toEqual([403, 403, 403, 403, 200]);
    expect(list.map((x) => x.remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(list[0]!.body).toMatchObject({ code: 'sse_disabled' });
    expectRateLimited(await seen(await b.fetch(`/api/maps/${mapId}/events/stream`, { token: third })));
  });

  it('a rate-limited write writes nothing', async () => {
    const res = await a.fetch(`/api/map/acls?map_id=${mapId}`, {
      method: 'POST',
      token: keyOne,
      headers: JSON_CT,
      body: JSON.stringify({ acl: { name: 'Over the limit', owner_eve_id: ownerEveId } }),
    });
    expectRateLimited(await seen(res));
    const rows = await a.platform.orm.em.fork().getConnection().execute<{ n: number }[]>('select count(*)::int as n from acls');
    expect(rows[0]!.n).toBe(0);
  });

  it('another key of the same map has its own budget', async () => {
    const list: Seen[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const server = i % 2 === 0 ? b : a;
      list.push(await seen(await server.fetch(`/api/map/connections?map_id=${mapId}`, { token: keyTwo })));
    }
    expectCountdown(list);
    expectRateLimited(await seen(await a.fetch(`/api/map/connections?map_id=${mapId}`, { token: keyTwo })));
  });

  it('every /api response carries the headers, errors included, and they count', async () => {
    const list: Seen[] = [];
    list.push(await seen(await a.fetch(`/api/map/systems?map_id=${otherMapId}`, { token: otherMapKey })));
    list.push(await seen(await b.fetch('/api/map/systems', { token: otherMapKey }))); // 400: no selector
    list.push(await seen(await a.fetch(`/api/map/system?map_id=${otherMapId}&id=30000142`, { token: otherMapKey }))); // 404
    list.push(await seen(await b.fetch('/api/map/nope', { token: otherMapKey }))); // 404 unknown path
    list.push(await seen(await a.fetch('/api/map/systems', { method: 'DELETE', token: otherMapKey }))); // 405
    expect(list.map((s) => s.status)).toEqual([200, 400, 404, 404, 405]);
    expect(list.map((s) => s.remaining)).toEqual([4, 3, 2, 1, 0]);
    expectRateLimited(await seen(await b.fetch(`/api/map/systems?map_id=${otherMapId}`, { token: otherMapKey })));
  });

  it('health, readiness and metrics are outside the limit', async () => {
    for (let i = 0; i < LIMIT + 2; i++) {
      expect((await a.fetch('/healthz')).status).toBe(200);
      expect((await b.fetch('/readyz')).status).toBe(200);
    }
  });

  it('unauthenticated static info is limited per client address, across processes, X-Forwarded-For ignored', async () => {
    const list: Seen[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const server = i % 2 === 0 ? a : b;
      // A spoofed forwarded address must not buy a fresh budget: no proxy is trusted.
      list.push(await seen(await server.fetch('/api/common/system-static-info?id=30000142', { headers: { 'x-forwarded-for': `198.51.100.${i}` } })));
    }
    expectCountdown(list);
    expectRateLimited(await seen(await b.fetch('/api/common/system-static-info?id=30000142')));
    expectRateLimited(await seen(await a.fetch('/api/common/system-static-info?id=30000142', { headers: { 'x-forwarded-for': '203.0.113.9' } })));
    // A key's budget is separate from the address's.
    const fresh = await makeMap(a.platform);
    const keyed = await seen(await a.fetch('/api/common/system-static-info?id=30000142', { token: fresh.key }));
    expect(keyed.status).toBe(200);
    expect(keyed.remaining).toBe(LIMIT - 1);
  });
});

describe('in-process rate limits (no Redis)', () => {
  let t: TestServer;
  let mapId: string;
  let key: string;

  beforeAll(async () => {
    t = await startTestServer({ env: { SERVICE_RATE_LIMIT_PER_MINUTE: String(LIMIT), SERVICE_TRUSTED_PROXIES: '127.0.0.1' } });
    expect(t.platform.redis).toBeUndefined();
    await importFixture(t.platform);
    const m = await makeMap(t.platform);
    mapId = m.map.id;
    key = m.key;
  });
  afterAll(async () => t?.close());

  it('enforces the same budget per key with the same headers', async () => {
    const list: Seen[] = [];
    for (let i = 0; i < LIMIT; i++) list.push(await seen(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key })));
    expectCountdown(list);
    expectRateLimited(await seen(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key })));
  });

  it('limits unauthenticated requests per client address, taken from X-Forwarded-For behind a trusted proxy', async () => {
    const list: Seen[] = [];
    for (let i = 0; i < LIMIT; i++) {
      list.push(await seen(await t.fetch('/api/common/system-static-info?id=30000142', { headers: { 'x-forwarded-for': '203.0.113.1' } })));
    }
    expectCountdown(list);
    expectRateLimited(await seen(await t.fetch('/api/common/system-static-info?id=30000142', { headers: { 'x-forwarded-for': '203.0.113.1' } })));
    const other = await seen(await t.fetch('/api/common/system-static-info?id=30000142', { headers: { 'x-forwarded-for': '203.0.113.2' } }));
    expect(other.status).toBe(200);
    expect(other.remaining).toBe(LIMIT - 1);
  });
});

describe('made-up keys count against the client address', () => {
  let t: TestServer;
  let mapId: string;
  let key: string;
  let ownerEveId: string;

  // Each test speaks from an address of its own (X-Forwarded-For from the trusted loopback proxy).
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const lookups = async () => (await t.platform.metrics.tokenLookups.get()).values[0]?.value ?? 0;
  const status = async (res: Response) => {
    await res.body?.cancel();
    return res.status;
  };

  beforeAll(async () => {
    t = await startTestServer({ env: { SERVICE_RATE_LIMIT_PER_MINUTE: String(LIMIT), SERVICE_TRUSTED_PROXIES: '127.0.0.1' } });
    await importFixture(t.platform);
    const m = await makeMap(t.platform);
    mapId = m.map.id;
    key = m.key;
    ownerEveId = m.ownerEveId;
  });
  afterAll(async () => t?.close());

  it('serves a key it has never seen, from an address locked out by made-up keys: a valid key is never refused for the others', async () => {
    const addr = from('203.0.113.14');
    for (let i = 0; i < 2 * LIMIT; i++) await status(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: generateToken('mik'), headers: addr }));
    // Locked out: anonymous requests and made-up tokens from this address wait for the window.
    expectRateLimited(await seen(await t.fetch('/api/common/system-static-info?id=30000142', { headers: addr })));
    expectRateLimited(await seen(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: generateToken('mik'), headers: addr })));
    // A key issued now, never used anywhere; an ACL key; and a key another process wrote to the database
    // after this one read its keys.
    const issued = (await t.platform.admin.issueKey(mapId, { character_eve_id: ownerEveId })).api_key;
    const acl = await t.fetch(`/api/map/acls?map_id=${mapId}`, {
      method: 'POST',
      token: key,
      headers: { ...JSON_CT, ...from('203.0.113.15') },
      body: JSON.stringify({ acl: { name: 'lockout', owner_eve_id: ownerEveId } }),
    });
    const aclKey = ((await acl.json()) as { data: { api_key: string } }).data.api_key;
    const elsewhere = generateToken('mik');
    await t.platform.orm.em
      .fork()
      .getConnection()
      .execute(
        'insert into map_api_keys (map_id, character_id, key_hash, prefix) select map_id, character_id, ?, ? from map_api_keys where map_id = ? limit 1',
        [hashToken(elsewhere), elsewhere.slice(0, 10), mapId],
      );
    for (const [label, token, path] of [
      ['issued', issued, `/api/map/systems?map_id=${mapId}`],
      ['acl', aclKey, '/api/characters'],
      ['elsewhere', elsewhere, `/api/map/systems?map_id=${mapId}`],
    ] as const) {
      const res = await seen(await t.fetch(path, { token, headers: addr }));
      expect(res.status, label).toBe(200);
      // Its own budget, not the address's.
      expect(res.remaining, label).toBe(LIMIT - 1);
    }
    // Made-up tokens from the address still cost no lookup and get 429.
    const before = await lookups();
    for (let i = 0; i < 3; i++) {
      expect(await status(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: generateToken('mik'), headers: addr }))).toBe(429);
    }
    expect((await lookups()) - before).toBe(0);
  });

  it('cuts a flood of distinct random keys from one address off at the per-address limit, with at most one database lookup per allowed request', async () => {
    const before = await lookups();
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      statuses.push(await status(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: generateToken('mik'), headers: from('203.0.113.10') })));
    }
    expect(statuses).toEqual([...Array<number>(LIMIT).fill(401), ...Array<number>(20 - LIMIT).fill(429)]);
    expect((await lookups()) - before).toBe(LIMIT);
    // The address's budget is spent, with a key or without.
    expectRateLimited(await seen(await t.fetch('/api/common/system-static-info?id=30000142', { headers: from('203.0.113.10') })));
    const last = await seen(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: generateToken('acl'), headers: from('203.0.113.10') }));
    expectRateLimited(last);
  });

  it('gives an unauthenticated endpoint no fresh budget per made-up bearer token or ?token=', async () => {
    const list: Seen[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const path = '/api/common/system-static-info?id=30000142';
      const res =
        i % 2 === 0
          ? await t.fetch(path, { token: generateToken('mik'), headers: from('203.0.113.11') })
          : await t.fetch(`${path}&token=${generateToken('mik')}`, { headers: from('203.0.113.11') });
      list.push(await seen(res));
    }
    expectCountdown(list);
    expectRateLimited(await seen(await t.fetch('/api/common/system-static-info?id=30000142', { token: generateToken('mik'), headers: from('203.0.113.11') })));
  });

  it('lets a valid key keep its own budget while its address floods with made-up keys', async () => {
    const first = await seen(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key, headers: from('203.0.113.12') }));
    expect(first.status).toBe(200);
    const budgetLeft = first.remaining;
    // Past the token cache's few seconds: the key must be recognised again during the flood.
    await new Promise((r) => setTimeout(r, 3_200));
    for (let i = 0; i < 2 * LIMIT; i++) {
      await status(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: generateToken('mik'), headers: from('203.0.113.12') }));
    }
    expectRateLimited(await seen(await t.fetch('/api/common/system-static-info?id=30000142', { headers: from('203.0.113.12') })));
    const after = await seen(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key, headers: from('203.0.113.12') }));
    expect(after.status).toBe(200);
    expect(after.remaining).toBe(budgetLeft - 1);
  });

  it('looks a repeated unknown key up once', async () => {
    const before = await lookups();
    const unknown = generateToken('mik');
    for (let i = 0; i < 3; i++) {
      expect(await status(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: unknown, headers: from('203.0.113.13') }))).toBe(401);
    }
    expect((await lookups()) - before).toBe(1);
  });
});
