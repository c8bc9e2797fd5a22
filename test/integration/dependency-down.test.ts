/**
 * PostgreSQL unreachable (decisions §1): data endpoints answer 503 `dependency_unavailable` with
 * Retry-After, /readyz 503, /healthz still 200, and the process recovers when the database is back. The
 * machine's PostgreSQL keeps running: the server reaches it through a TCP proxy this file owns, and
 * closing the proxy (and every connection through it) is the outage.
 * Redis unreachable: requests keep being answered, rate-limited in-process (docs/api.md), /readyz 503,
 * and the shared counters are used again when Redis is back; the outage is a Redis server of the
 * test's own, stopped and started.
 */
import { createHash } from 'node:crypto';
import net from 'node:net';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/app.js';
import { TEST_DATABASE_URL } from '../support/db.js';
import { OwnRedis } from '../support/redis-server.js';
import { importFixture, makeMap, makeSystem } from '../support/factories.js';
import { eventually } from '../support/wait.js';

const JSON_CT = { 'content-type': 'application/json' };

/** A loopback TCP proxy that can be cut (refusing) or made a black hole (accepting, never answering). */
class TcpProxy {
  port = 0;
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  mode: 'forward' | 'blackhole' = 'forward';

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    const server = net.createServer((client) => {
      this.track(client);
      if (this.mode === 'blackhole') return;
      const upstream = net.connect(this.target);
      this.track(upstream);
      const cut = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('close', cut);
      upstream.on('close', cut);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** The outage: no new connections, every open one destroyed. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private track(s: net.Socket): void {
    this.sockets.add(s);
    s.on('error', () => s.destroy());
    s.on('close', () => this.sockets.delete(s));
  }
}

function target(url: string, defaultPort: number): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || defaultPort) };
}

function viaProxy(url: string, port: number): string {
  const u = new URL(url);
  u.host = `127.0.0.1:${port}`;
  return u.toString();
}

async function expectUnavailable(res: Response): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(503);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(JSON.parse(text)).toEqual({ error: expect.any(String), code: 'dependency_unavailable' });
  expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
}

function unhandled(t: TestServer): unknown[] {
  return t.logs.filter((l) => l.msg === 'unhandled error' || l.level === 'fatal');
}

describe('PostgreSQL unreachable', () => {
  const proxy = new TcpProxy(target(TEST_DATABASE_URL, 5432));
  let t: TestServer;
  let mapId: string;
  let key: string;
  let freshKey: string;
  let ownerEveId: string;

  beforeAll(async () => {
    await proxy.open();
    t = await startTestServer({ env: { DATABASE_URL: viaProxy(TEST_DATABASE_URL, proxy.port) } });
    expect(t.platform.databaseUrl).toContain(`:${proxy.port}/`);
    await importFixture(t.platform);
    const m = await makeMap(t.platform);
    mapId = m.map.id;
    key = m.key;
    ownerEveId = m.ownerEveId;
    await makeSystem(t.platform, mapId, 30000142);
    // A key the server has never seen (not in its token cache): its lookup needs the database.
    freshKey = (await t.platform.admin.issueKey(mapId, { character_eve_id: m.ownerEveId })).api_key;
  });
  afterEach(async () => {
    // Whatever a test did, the next one starts with the database reachable.
    proxy.mode = 'forward';
    await proxy.close();
    await proxy.open();
    // Pooled connections cut by the bounce are dropped as the pool notices them.
    await eventually(() => t.fetch('/readyz'), 200);
  });
  afterAll(async () => {
    await t?.close();
    await proxy.close();
  });

  it('answers normally through the proxy', async () => {
    const res = await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key });
    expect(res.status).toBe(200);
    expect((await t.fetch('/readyz')).status).toBe(200);
  });

  it('answers 503 dependency_unavailable with Retry-After while down, /readyz 503, /healthz 200, then recovers', async () => {
    // Warm the pool and the token cache, so the outage also kills pooled connections.
    await eventually(() => t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key }), 200);
    await proxy.close();

    // Several requests: the first ones may meet dead pooled connections, later ones a refused connect.
    for (let i = 0; i < 3; i++) await expectUnavailable(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key }));
    await expectUnavailable(await t.fetch(`/api/map/connections?slug=whatever`, { token: key }));
    // A key that must be looked up is a 503, never a 401: an outage does not log clients out.
    await expectUnavailable(await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: freshKey }));
    await expectUnavailable(await t.fetch('/api/admin/maps', { token: ADMIN_TOKEN }));
    await expectUnavailable(
      await t.fetch(`/api/map/acls?map_id=${mapId}`, {
        method: 'POST',
        token: key,
        headers: JSON_CT,
        body: JSON.stringify({ acl: { name: 'During the outage', owner_eve_id: ownerEveId } }),
      }),
    );
    // Requests that need no database still answer as usual.
    expect((await t.fetch('/api/map/systems')).status).toBe(401);
    expect((await t.fetch('/api/nope')).status).toBe(404);

    const ready = await t.fetch('/readyz');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ ready: false, checks: { database: false, redis: null } });
    const health = await t.fetch('/healthz');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    await proxy.open();
    await eventually(() => t.fetch('/readyz'), 200);
    const back = await eventually(() => t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key }), 200);
    expect(((await back.json()) as { data: unknown[] }).data).toHaveLength(1);
    expect((await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: freshKey })).status).toBe(200);

    // Nothing half-written during the outage, and no error was treated as unexpected.
    const acls = await t.platform.orm.em.fork().getConnection().execute<{ n: number }[]>('select count(*)::int as n from acls');
    expect(acls[0]!.n).toBe(0);
    expect(unhandled(t)).toEqual([]);
    expect(t.logs.some((l) => l.msg === 'dependency unavailable')).toBe(true);
  });

  it('answers 503 in bounded time when the database accepts connections but never answers', async () => {
    proxy.mode = 'blackhole';
    await proxy.close();
    await proxy.open();
    const started = Date.now();
    const res = await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: freshKey, signal: AbortSignal.timeout(20_000) });
    await expectUnavailable(res);
    expect(Date.now() - started).toBeLessThan(15_000);
    const ready = await t.fetch('/readyz', { signal: AbortSignal.timeout(20_000) });
    expect(ready.status).toBe(503);
    expect((await t.fetch('/healthz')).status).toBe(200);
  }, 45_000);

  it('recovers after the black hole', async () => {
    await eventually(() => t.fetch('/readyz'), 200);
    await eventually(() => t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key }), 200);
  });
});

describe('Redis unreachable', () => {
  // A Redis of the test's own, stopped and started again: the machine's one keeps serving the others.
  let redis: OwnRedis;
  let t: TestServer;
  let mapId: string;
  let key: string;
  let secondKey: string;
  const systems = () => `/api/map/systems?map_id=${mapId}`;

  beforeAll(async () => {
    redis = await OwnRedis.create();
    t = await startTestServer({ redis: true, env: { REDIS_URL: redis.url, SERVICE_RATE_LIMIT_PER_MINUTE: '5' } });
    expect(t.config.redisUrl).toBe(redis.url);
    await importFixture(t.platform);
    const m = await makeMap(t.platform);
    mapId = m.map.id;
    key = m.key;
    secondKey = (await t.platform.admin.issueKey(mapId, { character_eve_id: m.ownerEveId })).api_key;
  });
  afterAll(async () => {
    await t?.close();
    await redis?.destroy();
  });

  it('keeps answering while Redis is down, limited in-process with the same limit; /readyz 503 with redis false; counts in Redis again when it is back', async () => {
    const before = await t.fetch(systems(), { token: key });
    expect(before.status).toBe(200);
    expect(before.headers.get('ratelimit-limit')).toBe('5');
    expect(await (await t.fetch('/readyz')).json()).toEqual({ ready: true, checks: { database: true, redis: true } });

    await redis.stop();

    // Every request is answered as usual and counted in this process, with the same limit of 5.
    const during: { status: number; remaining: string | null }[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.fetch(systems(), { token: key });
      during.push({ status: res.status, remaining: res.headers.get('ratelimit-remaining') });
      await res.body?.cancel();
    }
    expect(during).toEqual(['4', '3', '2', '1', '0'].map((remaining) => ({ status: 200, remaining })));
    const over = await t.fetch(systems(), { token: key });
    expect(over.status).toBe(429);
    expect(((await over.json()) as { code: string }).code).toBe('rate_limited');
    expect(over.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    const open = await t.fetch('/api/common/system-static-info?id=30000142');
    expect(open.status).toBe(200);
    expect(open.headers.get('ratelimit-remaining')).toBe('4');
    expect((await t.fetch('/api/map/systems')).status).toBe(401);

    const ready = await t.fetch('/readyz');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ ready: false, checks: { database: true, redis: false } });
    expect((await t.fetch('/healthz')).status).toBe(200);
    expect(t.logs.filter((l) => l.msg === 'rate limits: Redis unreachable, counting in this process until it is back')).toHaveLength(1);

    await redis.start();
    await eventually(() => t.fetch('/readyz'), 200);
    // Back on the shared counters (within a second of Redis answering): the second key's requests are
    // counted in Redis.
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const bucket = `${t.config.redisKeyPrefix}rl:key:${createHash('sha256').update(secondKey).digest('hex').slice(0, 32)}`;
      const deadline = Date.now() + 10_000;
      let shared: string | null = null;
      while (shared === null && Date.now() < deadline) {
        const res = await t.fetch(systems(), { token: secondKey });
        expect(res.status).toBe(200);
        await res.body?.cancel();
        shared = await client.get(bucket);
        if (shared === null) await new Promise((r) => setTimeout(r, 300));
      }
      expect(Number(shared)).toBeGreaterThanOrEqual(1);
    } finally {
      await client.close();
    }
    expect(t.logs.some((l) => l.msg === 'rate limits: Redis answers again, counting there')).toBe(true);
    expect(unhandled(t)).toEqual([]);
  }, 45_000);
});
