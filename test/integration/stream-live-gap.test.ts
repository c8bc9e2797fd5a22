/**
 * No silent gap in a live stream (docs/decisions/0015-day-two.md): events a relay publishes somewhere
 * the stream processes do not read (as a relay of an earlier release writing other Redis keys does
 * during an upgrade) reach a connected client anyway, from the event log, before the next event that
 * does come live, in order and once each; a client resuming across them gets them too. Real Redis
 * and PostgreSQL; the relays are driven by the test, one at a time, as partition holders hand over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem, openStream, type Frame } from '../support/sse.js';
import { metricSum, scrape } from '../support/metrics.js';
import { EventRelay } from '../../src/events/relay.js';
import { databaseTimeouts } from '../../src/db/pg-options.js';
import type { EventPublisher } from '../../src/events/transport/types.js';
import { createLogger } from '../../src/common/log.js';

let t: TestServer;

beforeAll(async () => {
  // No relay in the process: the test's relays publish, one at a time.
  t = await startTestServer({ redis: true, env: { SERVICE_SSE_ENABLED: 'true', EVENTS_RELAY_ENABLED: 'false', SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
  await importFixture(t.platform);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const isEvent = (f: Frame) => f.id !== undefined && f.event === undefined;

/** A relay holding the partition for one pass: assigns the committed events their ids and publishes them with `publisher`. */
async function relayPass(publisher: EventPublisher): Promise<number> {
  const { core } = t.server;
  const relay = new EventRelay({
    databaseUrl: core.db.url,
    sessionUrl: core.db.sessionUrl,
    // As the api role sets them: per transaction through a pooler (make test-pgbouncer).
    timeouts: databaseTimeouts(t.config),
    schema: t.config.databaseSchema,
    publisher,
    log: createLogger('silent'),
    partitions: 1,
    batchSize: 50,
    pollIntervalMs: 50,
    retentionMs: 86_400_000,
    pruneIntervalMs: 3_600_000,
  });
  try {
    return await relay.drainOnce();
  } finally {
    await relay.stop();
  }
}

/** Publishes nowhere the stream processes read (as a relay writing another key layout would). */
const elsewhere: EventPublisher = { publish: async (_mapId, events) => events.length, forget: () => undefined };

async function logIds(mapId: string): Promise<string[]> {
  const rows = await t.platform.orm.em
    .fork()
    .getConnection()
    .execute<{ event_id: string }[]>('select event_id from map_events where map_id = ? and event_id is not null order by event_id', [mapId]);
  return rows.map((r) => r.event_id);
}

describe('a live stream across events published elsewhere', () => {
  it('gets them from the event log when the next live event names one it lacks: every event in order, once', async () => {
    // As during an upgrade across a Redis key layout change: the keys this stream process reads hold
    // nothing of the map, the first events go elsewhere, and the next ones come here.
    const { map, key } = await makeMap(t.platform);
    const live = await openStream(`${t.url}/api/maps/${map.slug}/events/stream`, { headers: { authorization: `Bearer ${key}` } });
    await live.waitFor((f) => f.event === 'connected');
    const gapsBefore = metricSum(await scrape(t.opsUrl), 'mapintel_stream_live_gaps_total') ?? 0;
    for (let i = 0; i < 2; i++) await moveSystem(t, map.slug, key);
    expect(await relayPass(elsewhere)).toBe(2);
    for (let i = 0; i < 3; i++) await moveSystem(t, map.slug, key);
    expect(await relayPass(t.server.core.events.publisher)).toBe(3);

    const ids = await logIds(map.id);
    expect(ids.length).toBe(5);
    await live.waitFor(isEvent, 5);
    await new Promise((r) => setTimeout(r, 300));
    expect(live.frames.filter(isEvent).map((f) => f.id)).toEqual(ids);
    expect(live.frames.filter((f) => f.event === 'reset')).toEqual([]);
    expect(metricSum(await scrape(t.opsUrl), 'mapintel_stream_live_gaps_total')).toBe(gapsBefore + 1);
    live.close();
  }, 60_000);

  it('gets them when the hot history lacks them too: the stream starts over, its readers re-read from the log', async () => {
    const { map, key } = await makeMap(t.platform);
    const url = `${t.url}/api/maps/${map.slug}/events/stream`;
    const live = await openStream(url, { headers: { authorization: `Bearer ${key}` } });
    await live.waitFor((f) => f.event === 'connected');
    const publisher = t.server.core.events.publisher;

    // Two events through the stream processes' Redis keys: the client has them live.
    for (let i = 0; i < 2; i++) await moveSystem(t, map.slug, key);
    expect(await relayPass(publisher)).toBe(2);
    await live.waitFor(isEvent, 2);

    // Three published elsewhere by the partition's next holder: committed, given ids, never in these keys.
    for (let i = 0; i < 3; i++) await moveSystem(t, map.slug, key);
    expect(await relayPass(elsewhere)).toBe(3);
    // Then a holder publishing here again, with two more.
    for (let i = 0; i < 2; i++) await moveSystem(t, map.slug, key);
    expect(await relayPass(publisher)).toBe(2);

    const ids = await logIds(map.id);
    expect(ids.length).toBe(7);
    const frames = await live.waitFor(isEvent, 7);
    // Nothing more comes (no event twice).
    await new Promise((r) => setTimeout(r, 300));
    expect(live.frames.filter(isEvent).map((f) => f.id)).toEqual(ids);
    expect(frames.map((f) => (JSON.parse(f.data!) as { id: string }).id)).toEqual(ids);
    expect(live.frames.filter((f) => f.event === 'reset')).toEqual([]);

    // A client resuming from before the hole: the hot history started over after it, so the log answers.
    const resumed = await openStream(url, { headers: { authorization: `Bearer ${key}`, 'last-event-id': ids[1]! } });
    await resumed.waitFor(isEvent, 5);
    await new Promise((r) => setTimeout(r, 300));
    expect(resumed.frames.filter(isEvent).map((f) => f.id)).toEqual(ids.slice(2));
    live.close();
    resumed.close();
  }, 60_000);

  it('a durable consumer (the webhook planner) reads them from the event log too, once each, in order', async () => {
    const { map, key } = await makeMap(t.platform);
    const consumer = await t.server.core.events.consumer(`gap-${map.id}`);
    const got: string[] = [];
    const take = async (count: number) => {
      const deadline = Date.now() + 20_000;
      while (got.length < count && Date.now() < deadline) {
        const events = await consumer.next(100, 200);
        got.push(...events.filter((e) => e.map_id === map.id).map((e) => e.id));
        await consumer.commit(events);
      }
    };
    try {
      for (let i = 0; i < 2; i++) await moveSystem(t, map.slug, key);
      expect(await relayPass(t.server.core.events.publisher)).toBe(2);
      await take(2);
      // Caught up: what comes next, comes from the partition stream.
      expect(await consumer.next(100, 300)).toEqual([]);
      for (let i = 0; i < 3; i++) await moveSystem(t, map.slug, key);
      expect(await relayPass(elsewhere)).toBe(3);
      for (let i = 0; i < 2; i++) await moveSystem(t, map.slug, key);
      expect(await relayPass(t.server.core.events.publisher)).toBe(2);
      await take(7);
      expect(got).toEqual(await logIds(map.id));
    } finally {
      await consumer.close();
    }
  }, 60_000);
});
