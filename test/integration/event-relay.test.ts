/**
 * The outbox relay against real PostgreSQL and Redis: commit order, strictly increasing ids per map,
 * exactly-once publication through Redis outages, relay crashes and competing relays.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { decodeTime } from 'ulid';
import {
  connectTestRedis,
  countUnpublished,
  createTestDb,
  deleteRedisPrefix,
  testDatabaseEnv,
  TEST_REDIS_ENV,
  TEST_REDIS_URL,
  uniqueName,
  type TestDb,
} from '../support/db.js';
import { OwnRedis } from '../support/redis-server.js';
import { EventRelay } from '../../src/events/relay.js';
import { memoryTransport, redisTransport, type TestTransport } from '../support/transports.js';
import type { EventEnvelope } from '../../src/events/envelope.js';
import { Outbox, type OutboxEvent } from '../../src/events/outbox.js';
import { createLogger } from '../../src/common/log.js';
import { MapContentService } from '../../src/maps/map-content.service.js';
import { AdminService } from '../../src/admin/admin.service.js';
import { dbOf } from '../../src/db/db.js';
import type { Redis } from '../../src/redis/redis.js';
import { waitFor } from '../support/wait.js';

const log = createLogger('silent');

let db: TestDb;
let outbox: Outbox;

/** An event whose payload is just a counter: the relay carries payloads without looking at them. */
function probeEvent(mapId: string, n: number | string): OutboxEvent {
  return { mapId, type: 'map_kill', payload: { n } } as unknown as OutboxEvent;
}
const relays: EventRelay[] = [];
const clients: Redis[] = [];

function relayFor(transport: TestTransport, overrides: Partial<ConstructorParameters<typeof EventRelay>[0]> = {}): EventRelay {
  const relay = new EventRelay({
    databaseUrl: db.databaseUrl,
    sessionUrl: db.sessionUrl,
    timeouts: db.timeouts,
    schema: db.schema,
    publisher: transport,
    log,
    partitions: 1,
    batchSize: 100,
    pollIntervalMs: 50,
    retentionMs: 7 * 86_400_000,
    pruneIntervalMs: 3_600_000,
    ...overrides,
  });
  relays.push(relay);
  return relay;
}

async function redisClient(url = TEST_REDIS_URL): Promise<Redis> {
  // The test Redis as the service speaks to it (a cluster on the redis-cluster tier); a Redis of the test's own is one server.
  if (url === TEST_REDIS_URL) {
    const t = await connectTestRedis('relay-test', { failFast: true });
    clients.push(t);
    return t;
  }
  const c = createClient({ url, socket: { reconnectStrategy: (n) => Math.min(n * 50, 500) }, disableOfflineQueue: true }) as Redis;
  c.on('error', () => undefined);
  await c.connect();
  clients.push(c);
  return c;
}

async function makeMapId(): Promise<string> {
  const admin = new AdminService(dbOf(db.orm), outbox);
  const n = Math.floor(Math.random() * 1e9);
  await admin.upsertCharacter({ eve_id: String(2_000_000_000 + n), name: `Owner ${n}`, corporation_id: '1', corporation_ticker: 'C' });
  const created = await admin.createMap({ slug: `relay-${n}`, name: 'Relay', owner_eve_id: String(2_000_000_000 + n) });
  return created.map.id;
}

/** Writes `count` events, one transaction each, with payload {n}. */
async function writeEvents(mapId: string, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) {
    await db.orm.em.fork().transactional(async (tx) => outbox.append(tx, [probeEvent(mapId, n)]));
  }
}

function expectStrictlyIncreasing(events: EventEnvelope[]): void {
  for (let i = 1; i < events.length; i++) expect(events[i]!.id > events[i - 1]!.id, `id ${i} increases`).toBe(true);
}

const unpublished = (): Promise<number> => countUnpublished(db.orm);

beforeAll(async () => {
  db = await createTestDb('relay');
  outbox = new Outbox(db.orm);
});
afterEach(async () => {
  for (const r of relays.splice(0)) await r.stop();
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  for (const prefix of prefixes) await deleteRedisPrefix(prefix);
  await db?.close();
});

const prefixes: string[] = [];
/** A Redis key prefix of this file's own, deleted after the tests. */
function prefixFor(name: string): string {
  const prefix = `${uniqueName(name)}:`;
  prefixes.push(prefix);
  return prefix;
}

describe('event relay', () => {
  it('publishes committed events as envelopes with ULIDs increasing per map, and marks them published', async () => {
    const redis = await redisClient();
    const transport = redisTransport(redis, prefixFor('t'));
    const mapId = await makeMapId();
    await writeEvents(mapId, 0, 20);
    const relay = relayFor(transport);
    relay.start();
    await waitFor(async () => (await unpublished()) === 0);
    const events = await transport.range(mapId, null, 100);
    expect(events.map((e) => e.payload.n)).toEqual([...Array(20).keys()]);
    expectStrictlyIncreasing(events);
    const e = events[0]!;
    expect(Object.keys(e).sort()).toEqual(['id', 'map_id', 'payload', 'ts', 'type']);
    expect(e.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(e.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(e.map_id).toBe(mapId);
    // Stream entry ids follow the ULIDs' time, so a ULID locates its position in the stream.
    const raw = (await redis.xRange(transport.mapKey(mapId), '-', '+')) as unknown as { id: string; message: Record<string, string> }[];
    expect(raw.map((r) => Number(r.id.split('-')[0]))).toEqual(events.map((ev) => decodeTime(ev.id)));
    const rows = await db.orm.em
      .fork()
      .getConnection()
      .execute<{ event_id: string }[]>('select event_id from map_events where map_id = ? order by seq', [mapId]);
    expect(rows.map((r) => r.event_id)).toEqual(events.map((ev) => ev.id));
  });

  it('keeps a bounded hot history per map in Redis while PostgreSQL keeps the whole log', async () => {
    const redis = await redisClient();
    const transport = redisTransport(redis, prefixFor('hot'), 100);
    const mapId = await makeMapId();
    await db.orm.em
      .fork()
      .getConnection()
      .execute(`insert into map_events (map_id, type, payload) select ?, 'map_kill', jsonb_build_object('n', g) from generate_series(0, 999) g`, [mapId]);
    const relay = relayFor(transport, { batchSize: 100 });
    await relay.drainOnce();
    const length = (await redis.xLen(transport.mapKey(mapId))) as number;
    // MAXLEN ~ trims whole stream nodes: about the bound, never the whole history.
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThan(400);
    const kept = await transport.range(mapId, null, 1000);
    expect(kept.at(-1)!.payload.n).toBe(999);
    expect(kept[0]!.payload.n).toBe(1000 - kept.length);
    const logged = await db.orm.em.fork().getConnection().execute<{ n: number }[]>('select count(*)::int as n from map_events where map_id = ?', [mapId]);
    expect(logged[0]!.n).toBe(1000);
  });

  it('moves a map’s publication cursor at most every 100 ms, to the newest event published meanwhile', async () => {
    const transport = memoryTransport();
    const mapId = await makeMapId();
    const relay = relayFor(transport);
    relay.start();
    const conn = () => db.orm.em.fork().getConnection();
    const cursor = async () =>
      (await conn().execute<{ id: string | null }[]>('select published_event_id as id from map_event_cursors where map_id = ?', [mapId]))[0]?.id ?? null;
    // Watch the cursor every few ms while 40 events are committed one transaction each (a pass or so each).
    const changes: number[] = [];
    let watching = true;
    const watcher = (async () => {
      let last = await cursor();
      const look = async () => {
        const now = await cursor();
        if (now !== last) {
          changes.push(performance.now());
          last = now;
        }
      };
      while (watching) {
        await look();
        await new Promise((r) => setTimeout(r, 3));
      }
      // The last move may land between two looks and the end of the wait: one more look sees it.
      await look();
    })();
    const started = performance.now();
    await writeEvents(mapId, 0, 40);
    await waitFor(async () => (await unpublished()) === 0);
    watching = false;
    await watcher;
    const elapsed = performance.now() - started;
    const published = await transport.range(mapId, null, 100);
    expect(published).toHaveLength(40);
    expect(await cursor()).toBe(published.at(-1)!.id);
    expect(changes.length).toBeGreaterThan(0);
    // Moves at least 100 ms apart fit this many times into the time the watch lasted (the watch sees
    // at most every move; a move per relay pass would show up to 40).
    expect(changes.length, `${changes.length} moves seen in ${Math.round(elapsed)} ms`).toBeLessThanOrEqual(Math.floor(elapsed / 100) + 1);
  });

  it('warns when it loses a connection, and says it at debug level once the process is stopping', async () => {
    const lines: { level: string; msg: string; err?: { message: string } }[] = [];
    const relay = relayFor(memoryTransport(), {
      log: createLogger(
        'debug',
        new Writable({
          write(chunk: Buffer, _enc, cb) {
            lines.push(JSON.parse(chunk.toString('utf8')) as (typeof lines)[number]);
            cb();
          },
        }),
      ),
    });
    relay.start();
    await writeEvents(await makeMapId(), 0, 1);
    await waitFor(async () => (await unpublished()) === 0);
    // What pg-pool emits when an idle connection dies (PostgreSQL terminated it).
    const pool = (relay as unknown as { pool: import('pg').Pool }).pool;
    pool.emit('error', new Error('terminating connection due to administrator command'));
    expect(lines.filter((l) => l.msg === 'relay pool error').map((l) => [l.level, l.err?.message])).toEqual([
      ['warn', 'terminating connection due to administrator command'],
    ]);
    // The API began to drain (SIGTERM, or a terminal's Ctrl-C that stops an embedded PostgreSQL too).
    relay.stopping();
    pool.emit('error', new Error('terminating connection due to administrator command'));
    expect(lines.filter((l) => l.msg === 'relay pool error').map((l) => l.level)).toEqual(['warn', 'debug']);
  });

  it('wakes on NOTIFY: a commit is published well before the poll interval', async () => {
    const transport = memoryTransport();
    const mapId = await makeMapId();
    const relay = relayFor(transport, { pollIntervalMs: 30_000 });
    relay.start();
    await waitFor(async () => relay.heldPartitions().length === 1);
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    await writeEvents(mapId, 0, 1);
    await waitFor(async () => (await transport.range(mapId, null, 10)).length === 1, 20_000);
    // Woken by the commit, not by the next poll 30 s on (a busy machine may add seconds).
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('publishes nothing for a rolled-back change', async () => {
    const transport = memoryTransport();
    const mapId = await makeMapId();
    await expect(
      db.orm.em.fork().transactional(async (tx) => {
        await outbox.append(tx, [probeEvent(mapId, 'rolled back')]);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await writeEvents(mapId, 1, 1);
    const relay = relayFor(transport);
    await relay.drainOnce();
    expect((await transport.range(mapId, null, 10)).map((e) => e.payload.n)).toEqual([1]);
  });

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
      expect(await unpublished()).toBeGreaterThan(0);
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
    expect(await unpublished()).toBeGreaterThan(0);
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
    await db.orm.em
      .fork()
      .getConnection()
      .execute(`insert into map_events (map_id, type, payload) select ?, 'map_kill', jsonb_build_object('n', g) from generate_series(0, ?) g`, [
        mapId,
        total - 1,
      ]);
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/relay-process.ts'], {
      env: { ...process.env, ...testDatabaseEnv(db.schema), ...TEST_REDIS_ENV, PREFIX: prefix, BATCH: '25' },
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

  it.each([
    ['Redis Streams', 100],
    ['the in-process transport', 30],
  ])(
    '10 concurrent writers on one map through %s: ids strictly increasing, every change once',
    async (kind, perWriter) => {
      const transport: TestTransport = kind === 'Redis Streams' ? redisTransport(await redisClient(), prefixFor('load')) : memoryTransport();
      const mapId = await makeMapId();
      const content = new MapContentService(dbOf(db.orm), outbox);
      await db.orm.em
        .fork()
        .getConnection()
        .execute(
          `insert into solar_systems (solar_system_id, solar_system_name, solar_system_name_lc, region_id, region_name, constellation_id,
         constellation_name, true_security, security, system_class, class_title, type_description, sun_type_id)
       values (30000142, 'Jita', 'jita', 10000002, 'The Forge', 20000020, 'Kimotoro', 0.9459, '0.9', 7, '0.9', 'High-sec', 3796),
              (30000144, 'Perimeter', 'perimeter', 10000002, 'The Forge', 20000020, 'Kimotoro', 0.9, '0.9', 7, '0.9', 'High-sec', 3796)
       on conflict do nothing`,
        );
      await content.addSystem(mapId, { solarSystemId: 30000142 });
      await content.addSystem(mapId, { solarSystemId: 30000144 });
      const relay = relayFor(transport, { batchSize: 500 });
      relay.start();
      const created: string[] = [];
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          for (let i = 0; i < perWriter; i++) {
            created.push(await content.addConnection(mapId, { solarSystemSource: 30000142, solarSystemTarget: 30000144, massStatus: i % 3 }));
          }
        }),
      );
      await waitFor(async () => (await unpublished()) === 0, 60_000);
      const events = await transport.range(mapId, null, 5000);
      expectStrictlyIncreasing(events);
      const connectionEvents = events.filter((e) => e.type === 'connection_added');
      expect(connectionEvents).toHaveLength(10 * perWriter);
      expect(new Set(connectionEvents.map((e) => e.payload.connection_id))).toEqual(new Set(created));
      expect(events.filter((e) => e.type === 'add_system')).toHaveLength(2);
    },
    120_000,
  );
});
