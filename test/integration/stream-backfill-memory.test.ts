/**
 * A resume costs bounded memory whatever the gap: the replay is written as the client's socket takes
 * it (never more than the live path's STREAM_MAX_BUFFER_BYTES waiting for a client), a client that
 * takes nothing of its replay is disconnected as a slow consumer, and a reading client still gets
 * every event in order. The map holds about 12 MB of events; the unsent bytes of each connection are
 * read from the process while the replays run.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';
import { metricSum, scrape } from '../support/metrics.js';
import { openStream } from '../support/sse.js';
import { waitFor } from '../support/wait.js';
import { madeUpEventsOf } from '../support/event-catalog.js';
import type { StreamHandle } from '../../src/stream/stream.role.js';

const EVENTS = 6000;
const MAX_BUFFER = 1024 * 1024;
let t: TestServer;
let key: string;
let slug: string;
let firstId: string;

beforeAll(async () => {
  t = await startTestServer({
    redis: true,
    env: {
      SERVICE_SSE_ENABLED: 'true',
      STREAM_KEEPALIVE_MS: '1000',
      STREAM_BACKFILL_MAX: '20000',
      STREAM_MAX_BUFFER_BYTES: String(MAX_BUFFER),
      SERVICE_RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
  const m = await makeMap(t.platform);
  key = m.key;
  slug = m.map.slug;
  // About 2 KB each, written straight to the outbox; the relay gives them their ids. Made up (not a
  // kill's payload): not held to the event catalog.
  madeUpEventsOf(m.map.id);
  const conn = t.platform.orm.em.fork().getConnection();
  await conn.execute(
    `insert into map_events (map_id, type, payload)
     select ?, 'map_kill', jsonb_build_object('n', g, 'pad', repeat('x', 2000)) from generate_series(1, ${EVENTS}) g`,
    [m.map.id],
  );
  await conn.execute(`select pg_notify('mapintel_events', '')`);
  const published = async () =>
    Number((await conn.execute<{ n: string }[]>('select count(*) as n from map_events where map_id = ? and event_id is not null', [m.map.id]))[0]!.n);
  await waitFor(async () => (await published()) === EVENTS, 60_000, 'every event published');
  firstId = (await conn.execute<{ id: string }[]>('select min(event_id) as id from map_events where map_id = ?', [m.map.id]))[0]!.id;
}, 120_000);
afterAll(async () => {
  await t?.close();
});

/** A resuming stream request on a raw socket that never reads what it is sent. */
function silentResume(): net.Socket {
  const { port } = new URL(t.url);
  const s = net.connect({ host: '127.0.0.1', port: Number(port) });
  s.on('error', () => undefined);
  s.pause();
  s.write(`GET /api/maps/${slug}/events/stream?last_event_id=${firstId} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  return s;
}

describe('stream backfill memory', () => {
  it('keeps each resuming connection within STREAM_MAX_BUFFER_BYTES, disconnects the clients that do not read, and replays everything to the one that does', async () => {
    const service = (t.server.roles.get('stream') as StreamHandle).service;
    const silent = Array.from({ length: 5 }, () => silentResume());
    const reader = await openStream(`${t.url}/api/maps/${slug}/events/stream?last_event_id=${firstId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(reader.status).toBe(200);
    // The largest number of unsent bytes any connection had, sampled while the replays run.
    let most = 0;
    const sampler = setInterval(() => {
      for (const s of service.open) most = Math.max(most, s.bufferedBytes());
    }, 10);
    let silentClosed: boolean | undefined;
    try {
      const events = await reader.waitFor((f) => f.id !== undefined, EVENTS - 1, 120_000);
      const ids = events.map((f) => f.id!);
      expect(new Set(ids).size).toBe(EVENTS - 1);
      expect([...ids].sort()).toEqual(ids);
      // The five that never read are closed by the server; the reader stays.
      silentClosed = await waitFor(async () => metricSum(await scrape(t.opsUrl), 'mapintel_stream_clients') === 1, 60_000).then(
        () => true,
        () => false,
      );
    } finally {
      clearInterval(sampler);
      for (const s of silent) s.destroy();
      reader.close();
    }
    // One frame past the limit at most: a frame is written whole.
    expect(most).toBeLessThanOrEqual(MAX_BUFFER + 4096);
    expect(silentClosed, 'the clients that never read were disconnected').toBe(true);
    const metrics = await scrape(t.opsUrl);
    expect(metrics).toMatch(/^mapintel_stream_server_closes_total\{reason="slow_consumer"\} 5$/m);
    await waitFor(async () => metricSum(await scrape(t.opsUrl), 'mapintel_stream_leases') === 0, 30_000, 'every slot free');
  }, 240_000);
});
