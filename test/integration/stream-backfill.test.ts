/**
 * Backfill of a resuming stream client against real PostgreSQL (the event log) and both hot
 * histories (Redis Streams, in-process): exact order after the client's id across the hot/log
 * boundary, reset beyond retention and beyond the backfill maximum.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, deleteRedisPrefix, TEST_REDIS_CLUSTER, TEST_REDIS_URL, uniqueName, type TestDb } from '../support/db.js';
import { EventLayer } from '../../src/events/event-layer.js';
import { EventRelay } from '../../src/events/relay.js';
import { Outbox, type OutboxEvent } from '../../src/events/outbox.js';
import { EventLogService } from '../../src/maps/event-log/event-log.service.js';
import { RedisConnections } from '../../src/redis/redis.js';
import { AdminService } from '../../src/admin/admin.service.js';
import { dbOf } from '../../src/db/db.js';
import { backfill } from '../../src/stream/backfill.js';
import type { EventEnvelope } from '../../src/events/envelope.js';
import { createLogger } from '../../src/common/log.js';
import { ulid } from 'ulid';

const log = createLogger('silent');
let t: TestDb;
let outbox: Outbox;
let eventLog: EventLogService;
const closers: (() => Promise<void>)[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  t = await createTestDb('backfill');
  outbox = new Outbox(t.orm);
  eventLog = new EventLogService(dbOf(t.orm));
});
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(async () => {
  for (const p of prefixes) await deleteRedisPrefix(p);
  await t?.close();
});

async function mapWithEvents(kind: 'Redis Streams' | 'in-process', count: number, hotHistory: number) {
  const prefix = `${uniqueName('backfill')}:`;
  prefixes.push(prefix);
  const redis = kind === 'Redis Streams' ? await RedisConnections.connect(TEST_REDIS_URL, log, { cluster: TEST_REDIS_CLUSTER }) : undefined;
  const layer = new EventLayer({ orm: t.orm, log, redis, prefix, hotHistory });
  const relay = new EventRelay({
    databaseUrl: t.databaseUrl,
    sessionUrl: t.sessionUrl,
    timeouts: t.timeouts,
    schema: t.schema,
    publisher: layer.publisher,
    log,
    partitions: 1,
    batchSize: 50,
    pollIntervalMs: 50,
    retentionMs: 86_400_000,
    pruneIntervalMs: 3_600_000,
  });
  closers.push(async () => {
    await relay.stop();
    await layer.close();
    await redis?.close();
  });
  const admin = new AdminService(dbOf(t.orm), outbox);
  const n = Math.floor(Math.random() * 1e9);
  await admin.upsertCharacter({ eve_id: String(2_000_000_000 + n), name: `O ${n}`, corporation_id: '1', corporation_ticker: 'C' });
  const mapId = (await admin.createMap({ slug: `bf-${n}`, name: 'Backfill', owner_eve_id: String(2_000_000_000 + n) })).map.id;
  // In batches of 10 per transaction, so the hot history gets trimmed as it grows.
  for (let i = 0; i < count; i += 10) {
    await t.orm.em.fork().transactional((tx) =>
      outbox.append(
        tx,
        Array.from({ length: Math.min(10, count - i) }, (_, k) => ({ mapId, type: 'map_kill', payload: { n: i + k } }) as unknown as OutboxEvent),
      ),
    );
    await relay.drainOnce();
  }
  const all = await eventLog.list(mapId, undefined, 10_000);
  expect(all.length).toBe(count);
  return { mapId, layer, all };
}

async function run(layer: EventLayer, mapId: string, after: string | null, max = 10_000) {
  const got: EventEnvelope[] = [];
  const result = await backfill({ history: layer.history, log: eventLog }, mapId, after, max, (e) => void got.push(e));
  return { got, result };
}

describe.each(['Redis Streams', 'in-process'] as const)('stream backfill (%s)', (kind) => {
  it('replays every event after the client’s id, in order, from the hot history', async () => {
    const { mapId, layer, all } = await mapWithEvents(kind, 40, 1000);
    const { got, result } = await run(layer, mapId, all[14]!.id);
    expect(got.map((e) => e.payload.n)).toEqual([...Array(25).keys()].map((i) => i + 15));
    expect(result).toEqual({ kind: 'replayed', count: 25, lastId: all[39]!.id });
    expect(await run(layer, mapId, all[39]!.id)).toEqual({ got: [], result: { kind: 'replayed', count: 0, lastId: null } });
  });

  it('reads older ids from the PostgreSQL event log when the hot history no longer reaches back', async () => {
    const { mapId, layer, all } = await mapWithEvents(kind, 400, 100);
    const hotFirst = await layer.history.firstId(mapId);
    expect(hotFirst! > all[5]!.id).toBe(true);
    const { got, result } = await run(layer, mapId, all[5]!.id);
    expect(got.map((e) => e.id)).toEqual(all.slice(6).map((e) => e.id));
    expect(result.kind).toBe('replayed');
  });

  it('resets when the id is older than the retained event log, naming the earliest id it still has', async () => {
    const { mapId, layer, all } = await mapWithEvents(kind, 300, 100);
    await t.orm.em.fork().getConnection().execute('delete from map_events where map_id = ? and event_id <= ?', [mapId, all[99]!.id]);
    const { got, result } = await run(layer, mapId, all[50]!.id);
    expect(got).toEqual([]);
    expect(result).toEqual({ kind: 'reset', reason: 'retention', earliestEventId: all[100]!.id });
  });

  it('replays every event of the map, from the event log, for a connection with no position (its map had none when it connected)', async () => {
    const { mapId, layer, all } = await mapWithEvents(kind, 150, 100);
    await t.orm.em.fork().getConnection().execute('delete from map_events where map_id = ? and event_id <= ?', [mapId, all[19]!.id]);
    const { got, result } = await run(layer, mapId, null);
    expect(got.map((e) => e.id)).toEqual(all.slice(20).map((e) => e.id));
    expect(result).toEqual({ kind: 'replayed', count: 130, lastId: all[149]!.id });
    expect((await run(layer, mapId, null, 100)).result).toEqual({ kind: 'reset', reason: 'backfill_limit', earliestEventId: all[20]!.id });
  });

  it('resets an id after the map’s newest event, naming the earliest it has and the newest to go on from', async () => {
    const { mapId, layer, all } = await mapWithEvents(kind, 20, 1000);
    const ahead = ulid(Date.now() + 3_600_000);
    expect(await run(layer, mapId, ahead)).toEqual({
      got: [],
      result: { kind: 'reset', reason: 'unknown_event_id', earliestEventId: all[0]!.id, newestEventId: all[19]!.id },
    });
  });

  it('resets rather than replaying part of the gap when the client is more than the maximum behind', async () => {
    const { mapId, layer, all } = await mapWithEvents(kind, 60, 1000);
    const { got, result } = await run(layer, mapId, all[9]!.id, 20);
    expect(got).toEqual([]);
    expect(result).toEqual({ kind: 'reset', reason: 'backfill_limit', earliestEventId: all[10]!.id });
    expect((await run(layer, mapId, all[39]!.id, 20)).result).toEqual({ kind: 'replayed', count: 20, lastId: all[59]!.id });
  });
});
