/**
 * The outbox relay against real PostgreSQL and Redis: commit order, strictly increasing ids per map,
 * the hot history, the publication cursor, NOTIFY, rollbacks and concurrent writers. Outages, crashes
 * and competing relays: event-relay-failover.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { decodeTime } from 'ulid';
import { memoryTransport, redisTransport, type TestTransport } from '../support/transports.js';
import { MapContentService } from '../../src/maps/map-content.service.js';
import { dbOf } from '../../src/db/db.js';
import { createLogger } from '../../src/common/log.js';
import { waitFor } from '../support/wait.js';
import { expectStrictlyIncreasing, probeEvent, useRelayHarness } from '../support/relay-harness.js';

const h = useRelayHarness();
const { relayFor, redisClient, prefixFor, makeMapId, writeEvents, unpublished } = h;

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
    const rows = await h.db.orm.em
      .fork()
      .getConnection()
      .execute<{ event_id: string }[]>('select event_id from map_events where map_id = ? order by seq', [mapId]);
    expect(rows.map((r) => r.event_id)).toEqual(events.map((ev) => ev.id));
  });

  it('keeps a bounded hot history per map in Redis while PostgreSQL keeps the whole log', async () => {
    const redis = await redisClient();
    const transport = redisTransport(redis, prefixFor('hot'), 100);
    const mapId = await makeMapId();
    await h.db.orm.em
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
    const logged = await h.db.orm.em.fork().getConnection().execute<{ n: number }[]>('select count(*)::int as n from map_events where map_id = ?', [mapId]);
    expect(logged[0]!.n).toBe(1000);
  });

  it('moves a map’s publication cursor at most every 100 ms, to the newest event published meanwhile', async () => {
    const transport = memoryTransport();
    const mapId = await makeMapId();
    const relay = relayFor(transport);
    relay.start();
    const conn = () => h.db.orm.em.fork().getConnection();
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
      h.db.orm.em.fork().transactional(async (tx) => {
        await h.outbox.append(tx, [probeEvent(mapId, 'rolled back')]);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await writeEvents(mapId, 1, 1);
    const relay = relayFor(transport);
    await relay.drainOnce();
    expect((await transport.range(mapId, null, 10)).map((e) => e.payload.n)).toEqual([1]);
  });

  it.each([
    ['Redis Streams', 100],
    ['the in-process transport', 30],
  ])(
    '10 concurrent writers on one map through %s: ids strictly increasing, every change once',
    async (kind, perWriter) => {
      const transport: TestTransport = kind === 'Redis Streams' ? redisTransport(await redisClient(), prefixFor('load')) : memoryTransport();
      const mapId = await makeMapId();
      const content = new MapContentService(dbOf(h.db.orm), h.outbox);
      await h.db.orm.em
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
