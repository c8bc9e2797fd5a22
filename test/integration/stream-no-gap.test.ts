/**
 * No silent gap (docs/api.md, "Resuming"): a resume after Redis lost history (its keys flushed between
 * events, a failover to a replica that had not got the newest entries) gets exactly the events after
 * its id, from the PostgreSQL event log where Redis lacks them, or `event: reset`; never a subset.
 * Real server (api + stream roles), real PostgreSQL and Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem, openStream, type Frame } from '../support/sse.js';
import { StreamKeys } from '../../src/events/transport/keys.js';
import type { StreamEntry } from '../../src/events/transport/redis.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ redis: true, env: { SERVICE_SSE_ENABLED: 'true', SERVICE_RATE_LIMIT_PER_MINUTE: '1000000', STREAM_MAX_PER_KEY: '50' } });
  await importFixture(t.platform);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

/** The ids of the map's log, oldest first. */
async function logIds(mapId: string): Promise<string[]> {
  return (await t.platform.eventLog.list(mapId, undefined, 1000)).map((e) => e.id);
}

/** Writes `n` events and waits until the log has them with ids (and the relay has published them). */
async function write(slug: string, key: string, mapId: string, n: number): Promise<void> {
  const before = (await logIds(mapId)).length;
  for (let i = 0; i < n; i++) await moveSystem(t, slug, key);
  const deadline = Date.now() + 10_000;
  while ((await logIds(mapId)).length < before + n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  // The relay publishes just after it gives the ids: a moment for it to reach Redis.
  await new Promise((r) => setTimeout(r, 200));
}

/** What a resume from `lastId` is sent: the event ids, or 'reset'. */
async function resume(slug: string, key: string, lastId: string, newest: string): Promise<string[] | 'reset'> {
  const c = await openStream(`${t.url}/api/maps/${slug}/events/stream?last_event_id=${lastId}`, { headers: { authorization: `Bearer ${key}` } });
  try {
    expect(c.status).toBe(200);
    await c.waitFor((f: Frame) => f.id === newest || f.event === 'reset', 1, 10_000);
    if (c.frames.some((f) => f.event === 'reset')) return 'reset';
    return c.frames.filter((f) => f.id !== undefined).map((f) => f.id!);
  } finally {
    c.close();
  }
}

describe('a resume after Redis lost history', () => {
  it('gets the exact events after its id, or a reset, when the keys were flushed between events', async () => {
    const m = await makeMap(t.platform);
    const keys = new StreamKeys(t.config.redisKeyPrefix, t.config.eventsPartitions);
    const flush = async () => {
      await t.platform.redis!.del(keys.map(m.map.id));
      for (let p = 0; p < t.config.eventsPartitions; p++) await t.platform.redis!.del(keys.partition(p));
    };
    await write(m.map.slug, m.key, m.map.id, 3);
    await flush();
    await write(m.map.slug, m.key, m.map.id, 3);
    await flush();
    await write(m.map.slug, m.key, m.map.id, 2);
    const ids = await logIds(m.map.id);
    expect(ids.length).toBe(8);
    for (let i = 0; i < ids.length - 1; i++) {
      const got = await resume(m.map.slug, m.key, ids[i]!, ids.at(-1)!);
      if (got !== 'reset') expect(got, `resumed from event ${i}`).toEqual(ids.slice(i + 1));
    }
  });

  it('gets the exact events after its id, or a reset, when Redis lost entries after it (a failover to a replica without them)', async () => {
    const m = await makeMap(t.platform);
    const key = new StreamKeys(t.config.redisKeyPrefix, t.config.eventsPartitions).map(m.map.id);
    await write(m.map.slug, m.key, m.map.id, 6);
    // The replica had not got the last three entries: they are gone from the map's history.
    const entries = (await t.platform.redis!.xRange(key, '-', '+')) as unknown as StreamEntry[];
    expect(entries.length).toBe(6);
    await t.platform.redis!.xDel(
      key,
      entries.slice(3).map((e) => e.id),
    );
    await write(m.map.slug, m.key, m.map.id, 3);
    const ids = await logIds(m.map.id);
    expect(ids.length).toBe(9);
    // The hot history still reaches back to the client's id, with a hole after it.
    expect(((await t.platform.redis!.xRange(key, '-', '+')) as unknown as StreamEntry[]).map((e) => e.message.id)).toEqual([
      ...ids.slice(0, 3),
      ...ids.slice(6),
    ]);
    for (const from of [1, 2]) {
      const got = await resume(m.map.slug, m.key, ids[from]!, ids.at(-1)!);
      expect(got === 'reset' || got.join() === ids.slice(from + 1).join(), `resumed from event ${from}: ${String(got)}`).toBe(true);
    }
  });
});
