/**
 * Webhook consumption partitioned: the workers share the event partitions out (PostgreSQL advisory
 * locks, src/events/partition-leases.ts), and a durable consumer scoped to its worker's partitions reads
 * only their maps, so two workers sharing one consumer name hand out each event once between them.
 * Real PostgreSQL, the machine's Redis, a real relay.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, deleteRedisPrefix, TEST_REDIS_CLUSTER, TEST_REDIS_URL, uniqueName, type TestDb } from '../support/db.js';
import { EventLayer } from '../../src/events/event-layer.js';
import { EventRelay } from '../../src/events/relay.js';
import { Outbox, type OutboxEvent } from '../../src/events/outbox.js';
import { PartitionLeases } from '../../src/events/partition-leases.js';
import { RedisConnections } from '../../src/redis/redis.js';
import { partitionOf } from '../../src/events/transport/keys.js';
import type { EventConsumer } from '../../src/events/transport/types.js';
import type { EventEnvelope } from '../../src/events/envelope.js';
import { AdminService } from '../../src/admin/admin.service.js';
import { dbOf } from '../../src/db/db.js';
import { createLogger } from '../../src/common/log.js';
import { waitFor } from '../support/wait.js';

const log = createLogger('silent');
const PARTITIONS = 8;
let db: TestDb;
let redis: RedisConnections;
const prefix = `${uniqueName('partitions')}:`;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  db = await createTestDb('partitions');
  redis = await RedisConnections.connect(TEST_REDIS_URL, log, { cluster: TEST_REDIS_CLUSTER });
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(async () => {
  await redis?.close();
  await deleteRedisPrefix(prefix);
  await db?.close();
});

function leases(name: string): PartitionLeases {
  // Session advisory locks: through a transaction pooler they go to the session URL, as the worker role does.
  const l = new PartitionLeases({ databaseUrl: db.sessionUrl ?? db.databaseUrl, schema: db.schema, name, count: PARTITIONS, log, rebalanceMs: 200 });
  closers.push(() => l.stop());
  return l;
}

const heldBy = (members: PartitionLeases[]) => members.map((m) => [...m.held()].sort((a, b) => a - b));

describe('event partition leases', () => {
  it('share every partition out among the members, each held once, at most the fair share each; the rest take over a member that leaves', async () => {
    const name = uniqueName('share');
    const members = [leases(name), leases(name), leases(name)];
    for (const m of members) await m.start();
    await waitFor(
      () => members.every((m) => m.held().size === 3 || m.held().size === 2) && members.reduce((n, m) => n + m.held().size, 0) === PARTITIONS,
      20_000,
    );
    const held = heldBy(members);
    expect(held.flat().sort((a, b) => a - b)).toEqual([...Array(PARTITIONS).keys()]);
    for (const h of held) expect(h.length).toBeLessThanOrEqual(Math.ceil(PARTITIONS / 3));

    await members[0]!.stop();
    expect(members[0]!.held().size).toBe(0);
    await waitFor(() => members[1]!.held().size + members[2]!.held().size === PARTITIONS, 20_000);
    expect(
      heldBy(members.slice(1))
        .flat()
        .sort((a, b) => a - b),
    ).toEqual([...Array(PARTITIONS).keys()]);
    for (const m of members.slice(1)) expect(m.held().size).toBe(PARTITIONS / 2);
  }, 60_000);
});

async function makeMapId(admin: AdminService): Promise<string> {
  const n = Math.floor(Math.random() * 1e9);
  await admin.upsertCharacter({ eve_id: String(2_000_000_000 + n), name: `Owner ${n}`, corporation_id: '1', corporation_ticker: 'C' });
  return (await admin.createMap({ slug: `partitions-${n}`, name: 'Partitions', owner_eve_id: String(2_000_000_000 + n) })).map.id;
}

describe('webhook consumers scoped to partitions', () => {
  it('hand out each event once between two workers sharing one consumer name, each only of the maps of its partitions', async () => {
    const layer = new EventLayer({ orm: db.orm, log, redis, prefix, hotHistory: 1000, partitions: PARTITIONS });
    closers.push(() => layer.close());
    const name = uniqueName('webhooks');
    const [one, two] = [leases(name), leases(name)];
    await one.start();
    await two.start();
    await waitFor(() => one.held().size === PARTITIONS / 2 && two.held().size === PARTITIONS / 2, 20_000);
    const consumers: EventConsumer[] = [await layer.consumer(name, one), await layer.consumer(name, two)];
    for (const c of consumers) await c.next(1, 10);
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
    relay.start();
    const outbox = new Outbox(db.orm);
    const admin = new AdminService(dbOf(db.orm), outbox);
    const maps = await Promise.all(Array.from({ length: 12 }, () => makeMapId(admin)));
    for (let round = 0; round < 5; round++) {
      await db.orm.em.fork().transactional((tx) =>
        outbox.append(
          tx,
          maps.map((mapId) => ({ mapId, type: 'map_kill', payload: { round } }) as unknown as OutboxEvent),
        ),
      );
    }
    const got: EventEnvelope[][] = [[], []];
    const deadline = Date.now() + 30_000;
    while (got[0]!.length + got[1]!.length < 60 && Date.now() < deadline) {
      for (const [i, c] of consumers.entries()) {
        const batch = await c.next(100, 100);
        got[i]!.push(...batch);
        await c.commit(batch);
      }
    }
    await new Promise((r) => setTimeout(r, 300));
    for (const [i, c] of consumers.entries()) got[i]!.push(...(await c.next(100, 100)));
    const ids = [...got[0]!, ...got[1]!].map((e) => e.id);
    // Every event once, in all.
    expect(ids.length).toBe(60);
    expect(new Set(ids).size).toBe(60);
    // Each worker only the maps of the partitions it holds, in id order per map.
    for (const [i, member] of [one, two].entries()) {
      for (const e of got[i]!) expect(member.held().has(partitionOf(e.map_id, PARTITIONS))).toBe(true);
      for (const m of maps) {
        const mine = got[i]!.filter((e) => e.map_id === m).map((e) => e.id);
        expect([...mine].sort()).toEqual(mine);
      }
    }
  }, 60_000);
});
