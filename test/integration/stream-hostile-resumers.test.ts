/**
 * Clients that resume from the first of ~3,000 events of ~10 KB (about 30 MB of history) and never read
 * cost a stream process bounded memory: 8 of them under 100 MB, 50 (a map's cap) under 300 MB, by the
 * process's own gauge (`process_resident_memory_bytes` on its ops port), while a client that does read
 * gets its whole replay. The stream process is a `serve --roles stream` of its own, so that nothing of
 * the test counts in its memory; it has served a round of two before the rounds are measured.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRole } from '../../src/api/api.role.js';
import { startTestServer, TEST_ENCRYPTION_KEY, type TestServer } from '../support/app.js';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { testDatabaseEnv } from '../support/db.js';
import { makeMap } from '../support/factories.js';
import { metricSum, scrape } from '../support/metrics.js';
import { openStream } from '../support/sse.js';
import { freePort } from '../support/redis-server.js';
import { waitFor } from '../support/wait.js';
import { madeUpEventsOf } from '../support/event-catalog.js';

const EVENTS = 3000;
const MB = 1024 * 1024;
let t: TestServer;
let stream: CliProcess;
let streamUrl: string;
let opsUrl: string;
let key: string;
let slug: string;
let firstId: string;

beforeAll(async () => {
  // The api role only: its relay gives the events their ids.
  t = await startTestServer({ redis: true, roles: [apiRole], env: { SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
  const m = await makeMap(t.platform);
  key = m.key;
  slug = m.map.slug;
  madeUpEventsOf(m.map.id);
  const conn = t.platform.orm.em.fork().getConnection();
  await conn.execute(
    `insert into map_events (map_id, type, payload)
     select ?, 'map_kill', jsonb_build_object('n', g, 'pad', repeat(md5(g::text), 312)) from generate_series(1, ${EVENTS}) g`,
    [m.map.id],
  );
  await conn.execute(`select pg_notify('mapintel_events', '')`);
  const published = async () =>
    Number((await conn.execute<{ n: string }[]>('select count(*) as n from map_events where map_id = ? and event_id is not null', [m.map.id]))[0]!.n);
  await waitFor(async () => (await published()) === EVENTS, 60_000, 'every event published');
  firstId = (await conn.execute<{ id: string }[]>('select min(event_id) as id from map_events where map_id = ?', [m.map.id]))[0]!.id;

  const port = await freePort();
  stream = startCli(['serve', '--roles', 'stream'], {
    ...testDatabaseEnv(t.config.databaseSchema),
    REDIS_URL: t.config.redisUrl!,
    ...(t.config.redisCluster ? { REDIS_CLUSTER: 'true' } : {}),
    REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
    SERVICE_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    // As the chart runs a stream pod (stream.nodeOptions).
    NODE_OPTIONS: '--max-semi-space-size=16',
    SERVICE_SSE_ENABLED: 'true',
    SERVICE_RATE_LIMIT_PER_MINUTE: '100000',
    STREAM_MAX_PER_MAP: '60',
    STREAM_MAX_PER_KEY: '60',
    STREAM_KEEPALIVE_MS: '1000',
    PORT: String(port),
    HOST: '127.0.0.1',
    OPS_PORT: '0',
    OPS_HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  });
  streamUrl = `http://127.0.0.1:${port}`;
  opsUrl = (await stream.waitForLog('ops port listening', 60_000)).url as string;
  await waitFor(async () => (await fetch(`${opsUrl}/readyz`)).status === 200, 60_000, 'the stream process ready');
  // A round of one reader and two silent resumers first: the memory a process grows to serving resumes
  // at all (code loaded and compiled, its heap grown to the work) is in the level the rounds start from,
  // so what they measure is what more silent ones add.
  await hostileRound(2);
}, 300_000);
afterAll(async () => {
  await stream?.stop();
  await t?.close();
});

/** A resuming stream request on a raw socket that never reads what it is sent. */
function silentResume(): net.Socket {
  const s = net.connect({ host: '127.0.0.1', port: Number(new URL(streamUrl).port) });
  s.on('error', () => undefined);
  s.pause();
  s.write(`GET /api/maps/${slug}/events/stream?last_event_id=${firstId} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  return s;
}

const rss = async (): Promise<number> => metricSum(await scrape(opsUrl), 'mapintel_process_resident_memory_bytes') ?? NaN;

/**
 * Opens `n` silent resumers and one reader resuming from the same id; returns the largest growth of the
 * process's resident memory over its level before, sampled every 100 ms until the reader has every
 * event and the silent ones are gone.
 */
async function hostileRound(n: number): Promise<{ growthMb: number; replayed: number }> {
  // Garbage of earlier rounds collected, as far as a process lets it be: the level after a quiet second.
  await new Promise((r) => setTimeout(r, 1000));
  const before = await rss();
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rss());
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const silent = Array.from({ length: n }, () => silentResume());
  const reader = await openStream(`${streamUrl}/api/maps/${slug}/events/stream?last_event_id=${firstId}`, { headers: { authorization: `Bearer ${key}` } });
  try {
    expect(reader.status).toBe(200);
    const events = await reader.waitFor((f) => f.id !== undefined, EVENTS - 1, 120_000);
    // The silent ones are closed as slow consumers; the reader stays.
    await waitFor(async () => metricSum(await scrape(opsUrl), 'mapintel_stream_clients') === 1, 90_000, 'the silent resumers closed');
    return { growthMb: (peak - before) / MB, replayed: new Set(events.map((f) => f.id)).size };
  } finally {
    sampling = false;
    await sampler;
    for (const s of silent) s.destroy();
    reader.close();
    await waitFor(async () => metricSum(await scrape(opsUrl), 'mapintel_stream_clients') === 0, 30_000, 'every stream closed');
  }
}

describe('hostile resumers', () => {
  it('8 clients resuming 30 MB back that never read grow the stream process by under 100 MB; a reader gets its whole replay', async () => {
    const { growthMb, replayed } = await hostileRound(8);
    process.stderr.write(`8 silent resumers: resident memory grew ${growthMb.toFixed(1)} MB\n`);
    expect(replayed).toBe(EVENTS - 1);
    expect(growthMb).toBeLessThan(100);
  }, 240_000);

  it('50 such clients (the map cap) grow it by under 300 MB, and it still serves a reader every event', async () => {
    const { growthMb, replayed } = await hostileRound(50);
    process.stderr.write(`50 silent resumers: resident memory grew ${growthMb.toFixed(1)} MB\n`);
    expect(replayed).toBe(EVENTS - 1);
    expect(growthMb).toBeLessThan(300);
  }, 240_000);
});
