/**
 * Contract suites of the event transport, one per audience (publisher, history, consumer; the tail and
 * the partition feed in event-tail.test.ts),
 * each run against both implementations: Redis Streams (the machine's Redis) and the in-process
 * store. The consumer runs over real PostgreSQL with a real relay.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { createTestDb, deleteRedisPrefix, TEST_REDIS_CLUSTER, TEST_REDIS_URL, uniqueName, type TestDb } from '../support/db.js';
import { EventLayer } from '../../src/events/event-layer.js';
import { EventRelay } from '../../src/events/relay.js';
import { Outbox, type OutboxEvent } from '../../src/events/outbox.js';
import { RedisConnections } from '../../src/redis/redis.js';
import { StreamKeys } from '../../src/events/transport/keys.js';
import type { EventEnvelope } from '../../src/events/envelope.js';
import { AdminService } from '../../src/admin/admin.service.js';
import { dbOf } from '../../src/db/db.js';
import { createLogger } from '../../src/common/log.js';
import { waitFor } from '../support/wait.js';

const log = createLogger('silent');
let db: TestDb;
let outbox: Outbox;
const prefixes: string[] = [];
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  db = await createTestDb('transport');
  outbox = new Outbox(db.orm);
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteRedisPrefix(prefix);
  await db?.close();
});

type Kind = 'Redis Streams' | 'in-process';
const KINDS: Kind[] = ['Redis Streams', 'in-process'];

async function layerOf(kind: Kind, hotHistory = 1000): Promise<{ layer: EventLayer; redis: RedisConnections | undefined; prefix: string }> {
  const prefix = `${uniqueName('transport')}:`;
  prefixes.push(prefix);
  const redis = kind === 'Redis Streams' ? await RedisConnections.connect(TEST_REDIS_URL, log, { cluster: TEST_REDIS_CLUSTER }) : undefined;
  const layer = new EventLayer({ orm: db.orm, log, redis, prefix, hotHistory, partitions: 4 });
  closers.push(async () => {
    await layer.close();
    await redis?.close();
  });
  return { layer, redis, prefix };
}

/** Envelopes with increasing ULIDs for one map. */
function envelopes(mapId: string, count: number, from = 0): EventEnvelope[] {
  const base = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    id: ulid(base + from + i),
    type: 'map_kill' as const,
    map_id: mapId,
    ts: new Date(base + i).toISOString(),
    payload: { n: from + i },
  }));
}

const uuid = () => crypto.randomUUID();

describe.each(KINDS)('event publisher and history (%s)', (kind) => {
  it('appends a map’s events in order and skips ids at or below the last one (exactly once)', async () => {
    const { layer } = await layerOf(kind);
    const mapId = uuid();
    const evs = envelopes(mapId, 5);
    expect(await layer.publisher.publish(mapId, evs.slice(0, 3))).toBe(3);
    // A relay that crashed after publishing re-publishes an overlapping batch: only the new ones count.
    expect(await layer.publisher.publish(mapId, evs.slice(1))).toBe(2);
    layer.publisher.forget();
    expect(await layer.publisher.publish(mapId, evs)).toBe(0);
    const all = await layer.history.range(mapId, null, 100);
    expect(all.map((e) => e.payload.n)).toEqual([0, 1, 2, 3, 4]);
    expect(all[0]).toEqual(evs[0]);
  });

  it('reads a map’s history after an id, bounded by count, and reports its first and last ids', async () => {
    const { layer } = await layerOf(kind);
    const mapId = uuid();
    const other = uuid();
    const evs = envelopes(mapId, 10);
    await layer.publisher.publish(mapId, evs);
    await layer.publisher.publish(other, envelopes(other, 2));
    expect(await layer.history.lastId(mapId)).toBe(evs[9]!.id);
    expect(await layer.history.firstId(mapId)).toBe(evs[0]!.id);
    expect((await layer.history.range(mapId, evs[6]!.id, 100)).map((e) => e.payload.n)).toEqual([7, 8, 9]);
    expect((await layer.history.range(mapId, evs[2]!.id, 2)).map((e) => e.payload.n)).toEqual([3, 4]);
    expect(await layer.history.range(mapId, evs[9]!.id, 100)).toEqual([]);
    expect(await layer.history.lastId(uuid())).toBeNull();
    expect(await layer.history.firstId(uuid())).toBeNull();
  });

  it('keeps a bounded hot history per map: the oldest events go first', async () => {
    const { layer } = await layerOf(kind, 100);
    const mapId = uuid();
    const evs = envelopes(mapId, 400);
    for (let i = 0; i < 400; i += 50) await layer.publisher.publish(mapId, evs.slice(i, i + 50));
    const kept = await layer.history.range(mapId, null, 1000);
    // Redis trims with MAXLEN ~ (whole macro nodes), so somewhat more than 100 may stay.
    expect(kept.length).toBeGreaterThanOrEqual(100);
    expect(kept.length).toBeLessThan(400);
    expect(kept.at(-1)!.id).toBe(evs[399]!.id);
    expect(await layer.history.firstId(mapId)).toBe(kept[0]!.id);
  });
});

async function makeMapId(): Promise<string> {
  const admin = new AdminService(dbOf(db.orm), outbox);
  const n = Math.floor(Math.random() * 1e9);
  await admin.upsertCharacter({ eve_id: String(2_000_000_000 + n), name: `Owner ${n}`, corporation_id: '1', corporation_ticker: 'C' });
  return (await admin.createMap({ slug: `transport-${n}`, name: 'Transport', owner_eve_id: String(2_000_000_000 + n) })).map.id;
}

function probe(mapId: string, n: number): OutboxEvent {
  return { mapId, type: 'map_kill', payload: { n } } as unknown as OutboxEvent;
}

async function write(mapId: string, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) await db.orm.em.fork().transactional((tx) => outbox.append(tx, [probe(mapId, n)]));
}

function relayFor(layer: EventLayer): EventRelay {
  const relay = new EventRelay({
    databaseUrl: db.databaseUrl,
    sessionUrl: db.sessionUrl,
    timeouts: db.timeouts,
    schema: db.schema,
    publisher: layer.publisher,
    log,
    partitions: 1,
    batchSize: 100,
    pollIntervalMs: 50,
    retentionMs: 86_400_000,
    pruneIntervalMs: 3_600_000,
  });
  closers.push(() => relay.stop());
  return relay;
}

/** Reads until `count` events arrived (committing each batch) or the time is up, `max` a read. */
async function drain(consumer: Awaited<ReturnType<EventLayer['consumer']>>, count: number, commit = true, max = 50): Promise<EventEnvelope[]> {
  const got: EventEnvelope[] = [];
  const deadline = Date.now() + 15_000;
  while (got.length < count && Date.now() < deadline) {
    const batch = await consumer.next(max, 200);
    got.push(...batch);
    if (commit) await consumer.commit(batch);
  }
  return got;
}

describe.each(KINDS)('event consumer (%s)', (kind) => {
  it('delivers each event committed after it registered once, in id order per map, and resumes after its committed position', async () => {
    const { layer } = await layerOf(kind);
    const [a, b] = [await makeMapId(), await makeMapId()];
    const name = uniqueName('consumer');
    const consumer = await layer.consumer(name);
    expect(await consumer.next(10, 50)).toEqual([]);
    relayFor(layer).start();
    await write(a, 0, 20);
    await write(b, 0, 20);
    const first = await drain(consumer, 40);
    expect(first.length).toBe(40);
    expect(first.filter((e) => e.map_id === a).map((e) => e.payload.n)).toEqual([...Array(20).keys()]);
    expect(first.filter((e) => e.map_id === b).map((e) => e.payload.n)).toEqual([...Array(20).keys()]);
    for (const m of [a, b]) {
      const ids = first.filter((e) => e.map_id === m).map((e) => e.id);
      expect([...ids].sort()).toEqual(ids);
    }
    await consumer.close();

    // Another instance with the same name (a restarted worker) starts after the committed position.
    await write(a, 20, 5);
    const again = await layer.consumer(name);
    const second = await drain(again, 5);
    expect(second.map((e) => e.payload.n)).toEqual([20, 21, 22, 23, 24]);
    expect(await again.next(10, 100)).toEqual([]);
  });

  it('is registered once created: events committed after that are delivered, though it never read before stopping', async () => {
    const { layer } = await layerOf(kind);
    const mapId = await makeMapId();
    const name = uniqueName('consumer');
    // A worker that started and stopped at once: created, closed, never read.
    await (await layer.consumer(name)).close();
    // The events are published (another consumer has them) before the restart, so the restarted one
    // can find them only in the event log, never on the live tail.
    const witness = await layer.consumer(uniqueName('witness'));
    await witness.next(1, 10);
    relayFor(layer).start();
    await write(mapId, 0, 3);
    expect((await drain(witness, 3)).length).toBe(3);
    const restarted = await layer.consumer(name);
    expect((await drain(restarted, 3)).map((e) => e.payload.n)).toEqual([0, 1, 2]);
    expect(await restarted.next(10, 100)).toEqual([]);
  });

  it('ends a read waiting for events when it is closed', async () => {
    const { layer } = await layerOf(kind);
    const consumer = await layer.consumer(uniqueName('consumer'));
    const started = performance.now();
    const read = consumer.next(10, 10_000);
    setTimeout(() => void consumer.close(), 100);
    expect(await read).toEqual([]);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(90);
    // Well before the 10 s the read would wait.
    expect(waited).toBeLessThan(5_000);
  });

  it('redelivers what was handed out but not committed after a restart (at least once)', async () => {
    const { layer } = await layerOf(kind);
    const mapId = await makeMapId();
    const name = uniqueName('consumer');
    const consumer = await layer.consumer(name);
    await consumer.next(1, 10);
    relayFor(layer).start();
    await write(mapId, 0, 6);
    const handed = await drain(consumer, 6, false);
    expect(handed.length).toBe(6);
    await consumer.commit(handed.slice(0, 2));
    await consumer.close();
    const restarted = await layer.consumer(name);
    expect((await drain(restarted, 4)).map((e) => e.payload.n)).toEqual([2, 3, 4, 5]);
  });
});

describe.each(KINDS)('event consumer catching up (%s)', (kind) => {
  it('reads a backlog longer than one map’s share of a read: every event once, in id order per map, then live ones', async () => {
    const { layer } = await layerOf(kind);
    const [a, b] = [await makeMapId(), await makeMapId()];
    const name = uniqueName('consumer');
    const first = await layer.consumer(name);
    await first.next(1, 10);
    await first.close();
    // Written while no instance runs: the next one reads them from the event log, 500 at most a read,
    // a map's share of a read smaller than a's backlog.
    relayFor(layer).start();
    await write(a, 0, 250);
    await write(b, 0, 30);
    await waitFor(async () => (await layer.history.range(a, null, 300)).length === 250 && (await layer.history.range(b, null, 100)).length === 30);
    const restarted = await layer.consumer(name);
    const got = await drain(restarted, 280, true, 500);
    expect(got.filter((e) => e.map_id === a).map((e) => e.payload.n)).toEqual([...Array(250).keys()]);
    expect(got.filter((e) => e.map_id === b).map((e) => e.payload.n)).toEqual([...Array(30).keys()]);
    expect(new Set(got.map((e) => e.id)).size).toBe(280);
    // Caught up: live events follow, none missing.
    await write(a, 250, 3);
    const live = await drain(restarted, 3, false, 500);
    expect(live.map((e) => e.payload.n)).toEqual([250, 251, 252]);
  }, 60_000);
});

describe('event consumer (Redis Streams only)', () => {
  it('loses nothing when Redis trimmed the stream while it was stopped: it catches up from the event log', async () => {
    const { layer, redis, prefix } = await layerOf('Redis Streams');
    const mapId = await makeMapId();
    const name = uniqueName('consumer');
    const consumer = await layer.consumer(name);
    await consumer.next(1, 10);
    const relay = relayFor(layer);
    relay.start();
    await write(mapId, 0, 5);
    await consumer.commit(await drain(consumer, 5));
    await consumer.close();
    await write(mapId, 5, 30);
    await waitFor(async () => (await layer.history.range(mapId, null, 100)).length === 35);
    const keys = new StreamKeys(prefix, layer.partitions);
    await redis!.commands.xTrim(keys.partition(keys.partitionOf(mapId)), 'MAXLEN', 0);
    await redis!.commands.xTrim(keys.map(mapId), 'MAXLEN', 0);
    const restarted = await layer.consumer(name);
    const got = await drain(restarted, 30);
    expect(got.map((e) => e.payload.n)).toEqual([...Array(30).keys()].map((i) => i + 5));
  });
});
