/**
 * Per-map fan-out (docs/decisions/0008-per-map-fan-out.md): a stream process receives from Redis the
 * events of the maps it has connections for and none of the others. What it received is read from its
 * own counters (mapintel_stream_redis_events_received_total, …_received_bytes_total) and checked
 * against what its connections were sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem, openStream, type Frame } from '../support/sse.js';
import { metricSum, scrape } from '../support/metrics.js';
import { StreamKeys } from '../../src/events/transport/keys.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ redis: true, env: { SERVICE_SSE_ENABLED: 'true', SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
  await importFixture(t.platform);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const isEvent = (f: Frame) => f.id !== undefined;

async function received(): Promise<{ events: number; bytes: number; maps: number }> {
  const text = await scrape(t.opsUrl);
  return {
    events: metricSum(text, 'mapintel_stream_redis_events_received_total') ?? NaN,
    bytes: metricSum(text, 'mapintel_stream_redis_received_bytes_total') ?? NaN,
    maps: metricSum(text, 'mapintel_stream_maps_watched') ?? NaN,
  };
}

describe('stream process fan-out', () => {
  it('receives from Redis no event and no byte of a map it has no connection for, and every event of the one it serves', async () => {
    const a = await makeMap(t.platform);
    const b = await makeMap(t.platform);
    const keys = new StreamKeys(t.config.redisKeyPrefix, t.config.eventsPartitions);
    const onA = await openStream(`${t.url}/api/maps/${a.map.slug}/events/stream`, { headers: { authorization: `Bearer ${a.key}` } });
    try {
      await onA.waitFor((f) => f.event === 'connected');
      const before = await received();
      expect(before.maps).toBe(1);

      // Twenty events of map B go through Redis (its stream holds them) while this process serves A only.
      for (let i = 0; i < 20; i++) await moveSystem(t, b.map.slug, b.key, 31000005);
      await expect.poll(async () => Number(await t.platform.redis!.xLen(keys.map(b.map.id))), { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(20);
      // Then three of A, which its connection gets: everything B published before them is in Redis by now.
      for (let i = 0; i < 3; i++) await moveSystem(t, a.map.slug, a.key, 31000005);
      const got = await onA.waitFor(isEvent, 3, 20_000);
      await new Promise((r) => setTimeout(r, 300));
      const after = await received();
      const sentA = onA.frames.filter(isEvent).length;
      expect(got.every((f) => (JSON.parse(f.data!) as { map_id: string }).map_id === a.map.id)).toBe(true);
      // Exactly A's events, each once, and only their bytes (B's 20 events would be several KB).
      expect(after.events - before.events).toBe(sentA);
      const bytesA = onA.frames.filter(isEvent).reduce((n, f) => n + Buffer.byteLength(f.data!), 0);
      expect(after.bytes - before.bytes).toBeGreaterThan(0);
      expect(after.bytes - before.bytes).toBeLessThan(bytesA + 200 * sentA);
    } finally {
      onA.close();
    }
  }, 60_000);

  it('starts receiving a map’s events when a connection for it opens, and stops when the last one closes', async () => {
    const a = await makeMap(t.platform);
    const onA = await openStream(`${t.url}/api/maps/${a.map.slug}/events/stream`, { headers: { authorization: `Bearer ${a.key}` } });
    await onA.waitFor((f) => f.event === 'connected');
    await expect.poll(async () => (await received()).maps, { timeout: 10_000 }).toBe(1);
    const start = await received();
    await moveSystem(t, a.map.slug, a.key, 31000005);
    await onA.waitFor(isEvent, 1, 20_000);
    await expect.poll(async () => (await received()).events - start.events, { timeout: 10_000 }).toBe(1);
    onA.close();
    await expect.poll(async () => (await received()).maps, { timeout: 10_000 }).toBe(0);
    const closed = await received();
    for (let i = 0; i < 5; i++) await moveSystem(t, a.map.slug, a.key, 31000005);
    await new Promise((r) => setTimeout(r, 500));
    expect((await received()).events).toBe(closed.events);
  }, 60_000);
});
