/**
 * What the relay suites share (test/integration/event-relay*.test.ts): a test schema with its outbox,
 * relays stopped after each test, Redis clients and key prefixes cleaned up after the file, and the
 * helpers that write probe events and check their order.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createClient } from 'redis';
import { connectTestRedis, countUnpublished, createTestDb, deleteRedisPrefix, TEST_REDIS_URL, uniqueName, type TestDb } from './db.js';
import { EventRelay } from '../../src/events/relay.js';
import type { TestTransport } from './transports.js';
import type { EventEnvelope } from '../../src/events/envelope.js';
import { Outbox, type OutboxEvent } from '../../src/events/outbox.js';
import { createLogger } from '../../src/common/log.js';
import { AdminService } from '../../src/admin/admin.service.js';
import { dbOf } from '../../src/db/db.js';
import type { Redis } from '../../src/redis/redis.js';

export const silentLog = createLogger('silent');

/** An event whose payload is just a counter: the relay carries payloads without looking at them. */
export function probeEvent(mapId: string, n: number | string): OutboxEvent {
  return { mapId, type: 'map_kill', payload: { n } } as unknown as OutboxEvent;
}

export function expectStrictlyIncreasing(events: EventEnvelope[]): void {
  for (let i = 1; i < events.length; i++) expect(events[i]!.id > events[i - 1]!.id, `id ${i} increases`).toBe(true);
}

export interface RelayHarness {
  readonly db: TestDb;
  readonly outbox: Outbox;
  relayFor(transport: TestTransport, overrides?: Partial<ConstructorParameters<typeof EventRelay>[0]>): EventRelay;
  /** The test Redis as the service speaks to it (a cluster on the redis-cluster tier), or a Redis of the test's own at `url`. */
  redisClient(url?: string): Promise<Redis>;
  /** A Redis key prefix of this file's own, deleted after the tests. */
  prefixFor(name: string): string;
  makeMapId(): Promise<string>;
  /** Writes `count` events, one transaction each, with payload {n}. */
  writeEvents(mapId: string, from: number, count: number): Promise<void>;
  unpublished(): Promise<number>;
}

/** Registers the file's hooks; call once at the top level of a test file. */
export function useRelayHarness(schemaName = 'relay'): RelayHarness {
  let db: TestDb | undefined;
  let outbox: Outbox | undefined;
  const relays: EventRelay[] = [];
  const clients: Redis[] = [];
  const prefixes: string[] = [];
  beforeAll(async () => {
    db = await createTestDb(schemaName);
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
  const h: RelayHarness = {
    get db() {
      return db!;
    },
    get outbox() {
      return outbox!;
    },
    relayFor(transport, overrides = {}) {
      const relay = new EventRelay({
        databaseUrl: h.db.databaseUrl,
        sessionUrl: h.db.sessionUrl,
        timeouts: h.db.timeouts,
        schema: h.db.schema,
        publisher: transport,
        log: silentLog,
        partitions: 1,
        batchSize: 100,
        pollIntervalMs: 50,
        retentionMs: 7 * 86_400_000,
        pruneIntervalMs: 3_600_000,
        ...overrides,
      });
      relays.push(relay);
      return relay;
    },
    async redisClient(url = TEST_REDIS_URL) {
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
    },
    prefixFor(name) {
      const prefix = `${uniqueName(name)}:`;
      prefixes.push(prefix);
      return prefix;
    },
    async makeMapId() {
      const admin = new AdminService(dbOf(h.db.orm), h.outbox);
      const n = Math.floor(Math.random() * 1e9);
      await admin.upsertCharacter({ eve_id: String(2_000_000_000 + n), name: `Owner ${n}`, corporation_id: '1', corporation_ticker: 'C' });
      const created = await admin.createMap({ slug: `relay-${n}`, name: 'Relay', owner_eve_id: String(2_000_000_000 + n) });
      return created.map.id;
    },
    async writeEvents(mapId, from, count) {
      for (let n = from; n < from + count; n++) {
        await h.db.orm.em.fork().transactional(async (tx) => h.outbox.append(tx, [probeEvent(mapId, n)]));
      }
    },
    unpublished: () => countUnpublished(h.db.orm),
  };
  return h;
}
