/**
 * The outbox relay through failures, against real PostgreSQL and Redis: a Redis outage, a crash
 * between publishing and marking, a relay process SIGKILLed mid-batch, and two relays racing for a
 * partition. Exactly-once publication in order each time.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { testDatabaseEnv, TEST_REDIS_ENV } from '../support/db.js';
import { OwnRedis } from '../support/redis-server.js';
import { redisTransport, type TestTransport } from '../support/transports.js';
import { waitFor } from '../support/wait.js';
import { expectStrictlyIncreasing, useRelayHarness } from '../support/relay-harness.js';

const h = useRelayHarness('relayfail');
const { relayFor, redisClient, prefixFor, makeMapId, writeEvents, unpublished } = h;

describe('event relay through failures', () => {
  it('keeps writing while Redis is down and publishes everything once, in order, when it is back', async () => {
    const own = await OwnRedis.create();
    try {
      const redis = await redisClient(own.url);
      const transport = redisTransport(redis, 'outage:');
      const mapId = await makeMapId();
      const relay = relayFor(transport);
      relay.start();
      await writeEvents(mapId, 0, 10);
      await waitFor(async () => (await unpublished()) === 0);
      await own.stop();
      await writeEvents(mapId, 10, 30); // writes succeed while Redis is down
      await new Promise((r) => setTimeout(r, 300));
      // All 30: none published, none marked without being published.
      expect(await unpublished()).toBe(30);
      await own.start();
      await waitFor(async () => (await unpublished()) === 0, 20_000);
      const events = await transport.range(mapId, null, 1000);
      expect(events.map((e) => e.payload.n)).toEqual([...Array(40).keys()]);
      expectStrictlyIncreasing(events);
    } finally {
      await own.destroy();
    }
  }, 60_000);

  it('survives a crash between publishing and marking: the restarted relay neither loses nor repeats events', async () => {
    const redis = await redisClient();
    const real = redisTransport(redis, prefixFor('crash'));
    const mapId = await makeMapId();
    await writeEvents(mapId, 0, 25);
    // A transport that dies right after its second publish has reached Redis, like a process killed
    // mid-batch before it could mark the rows published.
    let publishes = 0;
    const crashing: TestTransport = {
      ...real,
      async publish(m, evs) {
        const n = await real.publish(m, evs);
        if (++publishes === 2) throw new Error('killed');
        return n;
      },
    };
    const first = relayFor(crashing, { batchSize: 10 });
    await expect(first.drainOnce()).rejects.toThrow('killed');
    await first.stop();
    // The second batch (published, not marked) and the third: a relay that marked a batch before
    // publishing it would leave 5, which the checks below cannot tell from this.
    expect(await unpublished()).toBe(15);
    const second = relayFor(real, { batchSize: 10 });
    await second.drainOnce();
    const events = await real.range(mapId, null, 100);
    expect(events.map((e) => e.payload.n)).toEqual([...Array(25).keys()]);
    expect(new Set(events.map((e) => e.id)).size).toBe(25);
    expectStrictlyIncreasing(events);
    expect(await unpublished()).toBe(0);
  });

  it('loses and repeats nothing when a relay process is killed (SIGKILL) mid-batch and another takes over', async () => {
    const redis = await redisClient();
    const prefix = prefixFor('kill');
    const transport = redisTransport(redis, prefix);
    const mapId = await makeMapId();
    const total = 1500;
    await h.db.orm.em
      .fork()
      .getConnection()
      .execute(`insert into map_events (map_id, type, payload) select ?, 'map_kill', jsonb_build_object('n', g) from generate_series(0, ?) g`, [
        mapId,
        total - 1,
      ]);
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/relay-process.ts'], {
      env: { ...process.env, ...testDatabaseEnv(h.db.schema), ...TEST_REDIS_ENV, PREFIX: prefix, BATCH: '25' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((r) => child.once('exit', r));
    // Kill it once it is well into the work, while batches are in flight.
    await waitFor(async () => ((await redis.xLen(transport.mapKey(mapId))) as number) >= 300, 30_000);
    child.kill('SIGKILL');
    await exited;
    expect(await unpublished()).toBeGreaterThan(0);
    const successor = relayFor(transport, { batchSize: 200 });
    successor.start();
    await waitFor(async () => (await unpublished()) === 0, 30_000);
    const events = await transport.range(mapId, null, total + 10);
    expect(events).toHaveLength(total);
    expect(events.map((e) => e.payload.n)).toEqual([...Array(total).keys()]);
    expect(new Set(events.map((e) => e.id)).size).toBe(total);
    expectStrictlyIncreasing(events);
  }, 90_000);

  it('runs one active relay per partition when two race, keeps order, and fails over', async () => {
    const redis = await redisClient();
    const transport = redisTransport(redis, prefixFor('race'));
    const mapId = await makeMapId();
    const a = relayFor(transport);
    const b = relayFor(transport);
    a.start();
    b.start();
    await waitFor(async () => a.heldPartitions().length + b.heldPartitions().length === 1);
    await writeEvents(mapId, 0, 30);
    await waitFor(async () => (await unpublished()) === 0);
    expect(a.heldPartitions().length + b.heldPartitions().length).toBe(1);
    const [holder, other] = a.heldPartitions().length ? [a, b] : [b, a];
    await holder.stop();
    await waitFor(async () => other.heldPartitions().length === 1, 10_000);
    await writeEvents(mapId, 30, 10);
    await waitFor(async () => (await unpublished()) === 0);
    const events = await transport.range(mapId, null, 1000);
    expect(events.map((e) => e.payload.n)).toEqual([...Array(40).keys()]);
    expectStrictlyIncreasing(events);
  }, 60_000);
});
