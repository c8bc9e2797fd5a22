/**
 * A database that stops answering on open connections (TCP stays up, no bytes come back) must not
 * wedge the service: requests answer 503 within the query deadline, /readyz within 1 s, stuck
 * connections are dropped and replaced, the relay resumes, and shutdown ends within its window.
 * The machine's PostgreSQL keeps running; each server reaches it through a TcpProxy of this file,
 * and stalling the proxy is the outage. `resume({ strand: true })` leaves the connections that were
 * stalled dead for good, so only connections opened afterwards work: recovery then proves that the
 * stuck ones were replaced rather than woken up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { countUnpublished, createTestDb, TEST_DATABASE_URL, type TestDb } from '../support/db.js';
import { makeMap } from '../support/factories.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { EventRelay } from '../../src/events/relay.js';
import { memoryTransport } from '../support/transports.js';
import { Outbox, type OutboxEvent } from '../../src/events/outbox.js';
import { AdminService } from '../../src/admin/admin.service.js';
import { dbOf } from '../../src/db/db.js';
import { createLogger } from '../../src/common/log.js';
import { CLOSE_MIN_MS } from '../../src/core/shutdown.js';
import { eventually, waitFor } from '../support/wait.js';

const QUERY_DEADLINE_MS = 1500;
const SHUTDOWN_WINDOW_MS = 2000;
/**
 * Scheduling slack on a busy two-core machine. Without the deadlines these waits never end (the
 * requests are aborted after 20 s), so a generous slack still tells the two apart.
 */
const SLACK_MS = 6000;

const STALL_ENV = {
  DATABASE_QUERY_TIMEOUT_MS: String(QUERY_DEADLINE_MS),
  DATABASE_CONNECT_TIMEOUT_MS: '1000',
  SERVICE_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_WINDOW_MS),
};

function pgTarget(): { host: string; port: number } {
  const u = new URL(TEST_DATABASE_URL);
  return { host: u.hostname, port: Number(u.port || 5432) };
}

async function expectUnavailable(res: Response): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(503);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(JSON.parse(text)).toEqual({ error: expect.any(String), code: 'dependency_unavailable' });
  expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function unhandled(t: TestServer): unknown[] {
  return t.logs.filter((l) => l.msg === 'unhandled error' || l.level === 'fatal');
}

describe('PostgreSQL stops answering on open connections', () => {
  const proxy = new TcpProxy(pgTarget());
  let t: TestServer;
  let mapId: string;
  let key: string;
  const read = (signal = AbortSignal.timeout(20_000)) => t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key, signal });

  beforeAll(async () => {
    await proxy.start();
    t = await startTestServer({ env: { DATABASE_URL: proxy.url(TEST_DATABASE_URL), ...STALL_ENV } });
    const m = await makeMap(t.platform);
    mapId = m.map.id;
    key = m.key;
  });
  afterAll(async () => {
    // Sockets first: a stalled session could hold locks that the schema drop would wait for.
    await proxy.close();
    await t?.close();
  });

  it('answers a read 503 dependency_unavailable within the query deadline and drops the stuck connection', async () => {
    expect((await read()).status).toBe(200);
    proxy.stall();
    const started = Date.now();
    await expectUnavailable(await read());
    expect(Date.now() - started).toBeLessThan(QUERY_DEADLINE_MS + SLACK_MS);
    // The service closed the connection that hung, rather than returning it to the pool.
    expect(proxy.closedWhileStalled).toBeGreaterThan(0);
    expect(t.logs.some((l) => l.msg === 'dependency unavailable')).toBe(true);
  });

  it('answers /readyz 503 with checks.database false within 1 s while stalled; /healthz stays 200', async () => {
    proxy.stall();
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      const ready = await t.fetch('/readyz', { signal: AbortSignal.timeout(20_000) });
      expect(Date.now() - started).toBeLessThan(1000 + SLACK_MS);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ ready: false, checks: { database: false, redis: null } });
    }
    expect((await t.fetch('/healthz')).status).toBe(200);
  });

  it('serves again without a restart once the database answers, on new connections', async () => {
    proxy.stall();
    await expectUnavailable(await read());
    const acceptedBefore = proxy.accepted;
    proxy.resume({ strand: true });
    await eventually(() => t.fetch('/readyz'), 200);
    const back = await eventually(() => read(), 200);
    expect(await back.json()).toEqual({ data: [] });
    expect(proxy.accepted).toBeGreaterThan(acceptedBefore);
    // Every later read succeeds: no stuck connection was left in the pool.
    for (let i = 0; i < 5; i++) expect((await read()).status).toBe(200);
    expect(unhandled(t)).toEqual([]);
  }, 45_000);

  it('completes shutdown within its window while stalled, with a request in flight, and leaves no connection open', async () => {
    expect((await read()).status).toBe(200);
    proxy.stall();
    const inflight = read(AbortSignal.timeout(20_000)).then(
      (r) => r.status,
      () => 0,
    );
    await sleep(100);
    const started = Date.now();
    await t.server.shutdown();
    expect(Date.now() - started).toBeLessThan(SHUTDOWN_WINDOW_MS + CLOSE_MIN_MS + SLACK_MS);
    expect([0, 503]).toContain(await inflight);
    expect(t.logs.some((l) => l.msg === 'stopped')).toBe(true);
    await waitFor(() => proxy.open === 0, 10_000, 'every database connection closed');
  }, 60_000);
});

describe('shutdown with query deadlines switched off', () => {
  const proxy = new TcpProxy(pgTarget());
  let t: TestServer;

  beforeAll(async () => {
    await proxy.start();
    t = await startTestServer({
      env: { DATABASE_URL: proxy.url(TEST_DATABASE_URL), ...STALL_ENV, DATABASE_QUERY_TIMEOUT_MS: '0', EVENTS_RELAY_POLL_MS: '50' },
    });
  });
  afterAll(async () => {
    await proxy.close();
    await t?.close();
  });

  it('still ends within its window while stalled, dropping the connections that did not close', async () => {
    const { map, key } = await makeMap(t.platform);
    proxy.stall();
    // Hangs for good without a deadline, and so does the relay's next pass.
    const inflight = t.fetch(`/api/map/systems?map_id=${map.id}`, { token: key, signal: AbortSignal.timeout(20_000) }).then(
      (r) => r.status,
      () => 0,
    );
    await sleep(200);
    const started = Date.now();
    await t.server.shutdown();
    expect(Date.now() - started).toBeLessThan(SHUTDOWN_WINDOW_MS + CLOSE_MIN_MS + SLACK_MS);
    expect(await inflight).toBe(0);
    expect(t.logs.some((l) => l.msg === 'connections did not close in time; dropped them')).toBe(true);
    expect(t.logs.some((l) => l.msg === 'stopped')).toBe(true);
    await waitFor(() => proxy.open === 0, 10_000, 'every database connection closed');
  }, 60_000);
});

describe('event relay through a stalled database', () => {
  const proxy = new TcpProxy(pgTarget());
  let db: TestDb;
  let outbox: Outbox;
  let relay: EventRelay | undefined;

  beforeAll(async () => {
    db = await createTestDb('stall');
    outbox = new Outbox(db.orm);
    await proxy.start();
  });
  afterAll(async () => {
    await proxy.close();
    await relay?.stop();
    await db?.close();
  });

  const unpublished = (): Promise<number> => countUnpublished(db.orm);

  async function writeEvents(mapId: string, from: number, count: number): Promise<void> {
    for (let n = from; n < from + count; n++) {
      await db.orm.em.fork().transactional(async (tx) => outbox.append(tx, [{ mapId, type: 'map_kill', payload: { n } } as unknown as OutboxEvent]));
    }
  }

  it('publishes the events written during the stall once the database answers again, on new connections', async () => {
    const admin = new AdminService(dbOf(db.orm), outbox);
    await admin.upsertCharacter({ eve_id: '2100000001', name: 'Stall Owner', corporation_id: '1', corporation_ticker: 'C' });
    const mapId = (await admin.createMap({ slug: 'stall-relay', name: 'Stall', owner_eve_id: '2100000001' })).map.id;
    const transport = memoryTransport();
    relay = new EventRelay({
      databaseUrl: proxy.url(db.databaseUrl),
      schema: db.schema,
      timeouts: { connectTimeoutMs: 1000, queryTimeoutMs: QUERY_DEADLINE_MS, lockTimeoutMs: 1000, idleInTransactionTimeoutMs: 10_000 },
      publisher: transport,
      log: createLogger('silent'),
      partitions: 1,
      batchSize: 100,
      pollIntervalMs: 50,
      retentionMs: 7 * 86_400_000,
      pruneIntervalMs: 3_600_000,
    });
    relay.start();
    await writeEvents(mapId, 0, 3);
    await waitFor(async () => (await unpublished()) === 0, 10_000, 'first events published');

    proxy.stall();
    await sleep(300);
    await writeEvents(mapId, 3, 3);
    await sleep(2 * QUERY_DEADLINE_MS);
    expect(await unpublished()).toBe(3);

    proxy.resume({ strand: true });
    await waitFor(async () => (await unpublished()) === 0, 15_000, 'events written during the stall published');
    const events = await transport.range(mapId, null, 100);
    expect(events.map((e) => e.payload.n)).toEqual([0, 1, 2, 3, 4, 5]);
    // And it keeps going: an event written now is published too.
    await writeEvents(mapId, 6, 1);
    await waitFor(async () => (await unpublished()) === 0, 10_000, 'event written after the stall published');
    expect((await transport.range(mapId, null, 100)).map((e) => e.payload.n)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  }, 45_000);
});
