/**
 * The stream through a Redis restart (clients resume with nothing lost or repeated) and through a
 * graceful shutdown (a jittered `retry:` then the connection closes), against a Redis server of the
 * test's own and the machine's PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { OwnRedis } from '../support/redis-server.js';
import { moveSystem, openStream, type Frame, type SseConnection } from '../support/sse.js';
import { within } from '../support/wait.js';
import type { StreamHandle } from '../../src/stream/stream.role.js';

let t: TestServer;
let redis: OwnRedis;
let key: string;
let slug: string;

beforeAll(async () => {
  redis = await OwnRedis.create();
  t = await startTestServer({
    redis: true,
    env: { REDIS_URL: redis.url, SERVICE_SSE_ENABLED: 'true', STREAM_RETRY_MS: '1000', SERVICE_SHUTDOWN_TIMEOUT_MS: '4000', EVENTS_RELAY_POLL_MS: '100' },
  });
  await importFixture(t.platform);
  const m = await makeMap(t.platform);
  key = m.key;
  slug = m.map.slug;
}, 60_000);
afterAll(async () => {
  await t?.close();
  await redis?.destroy();
});

const isEvent = (f: Frame) => f.id !== undefined;

/** A stream of the map that has received `live` events, then Redis stopped and `whileDown` more changes written. */
async function streamThroughOutage(live: number, whileDown: number): Promise<SseConnection> {
  const c = await openStream(`${t.url}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${key}` } });
  await c.waitFor((f) => f.event === 'connected');
  for (let i = 0; i < live; i++) await moveSystem(t, slug, key);
  await c.waitFor(isEvent, live);
  await redis.stop();
  // Writes go on while Redis is down; their events wait in the outbox.
  for (let i = 0; i < whileDown; i++) await moveSystem(t, slug, key);
  return c;
}

describe('stream resilience', () => {
  it('keeps a connected client whole through a Redis restart: every change arrives once, in order', async () => {
    const c = await streamThroughOutage(3, 3);
    await redis.start();
    await c.waitFor(isEvent, 6, 20_000);
    await moveSystem(t, slug, key);
    const frames = await c.waitFor(isEvent, 7, 10_000);
    const ids = frames.map((f) => f.id!);
    expect(ids.length).toBe(7);
    expect(new Set(ids).size).toBe(7);
    expect([...ids].sort()).toEqual(ids);
    c.close();
  }, 60_000);

  it('retries a resync whose backfill cannot read Redis yet, and keeps the connection whole', async () => {
    const c = await streamThroughOutage(2, 2);
    // A resync now: its backfill fails at once (the history's connection is down), and is tried again.
    const hub = (t.server.roles.get('stream') as StreamHandle).hub as unknown as { resyncAll(): void };
    hub.resyncAll();
    await new Promise((r) => setTimeout(r, 1_500));
    await redis.start();
    const frames = await c.waitFor(isEvent, 4, 20_000);
    const ids = frames.map((f) => f.id!);
    expect(new Set(ids).size).toBe(4);
    expect([...ids].sort()).toEqual(ids);
    const metrics = await (await fetch(`${t.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^mapintel_stream_server_closes_total\{reason="resync_failed"\} 0$/m);
    expect(await Promise.race([c.ended.then(() => 'ended'), new Promise((r) => setTimeout(() => r('open'), 500))])).toBe('open');
    c.close();
  }, 60_000);

  it('on shutdown sends a jittered retry at least STREAM_RETRY_MS, then closes the stream', async () => {
    const c = await openStream(`${t.url}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${key}` } });
    await c.waitFor((f) => f.event === 'connected');
    const stopping = t.server.shutdown();
    // Closed by the shutdown (window 2 s), not left to the client; a busy machine may add seconds.
    await within(c.ended, 15_000, 'the stream closed by the shutdown');
    const retries = c.frames.filter((f) => f.retry !== undefined).map((f) => Number(f.retry));
    expect(retries.length).toBe(2);
    expect(retries[0]).toBe(1000);
    // STREAM_RETRY_MS plus a jitter spread over half the 4 s shutdown window.
    expect(retries[1]).toBeGreaterThanOrEqual(1000);
    expect(retries[1]).toBeLessThan(1000 + 2000);
    await stopping;
  }, 30_000);
});
