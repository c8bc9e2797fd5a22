/**
 * The event transport on a Redis Cluster of the test's own (three masters on loopback): maps spread over
 * the shards, each map's stream and channel on its slot, a tail receiving the maps it watches and no
 * other, the partition feed receiving every map.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { RedisClusterServer } from '../support/redis-cluster.js';
import { EventLayer } from '../../src/events/event-layer.js';
import { RedisConnections } from '../../src/redis/redis.js';
import type { EventEnvelope } from '../../src/events/envelope.js';
import type { Orm } from '../../src/db/orm.js';
import { createLogger } from '../../src/common/log.js';
import { waitFor } from '../support/wait.js';

const log = createLogger('silent');
let cluster: RedisClusterServer;
let redis: RedisConnections;
let layer: EventLayer;

beforeAll(async () => {
  cluster = await RedisClusterServer.start({ masters: 3, replicas: 0 });
  redis = await RedisConnections.connect(cluster.url, log, { cluster: true });
  layer = new EventLayer({ orm: undefined as unknown as Orm, log, redis, prefix: 'cluster-events:', hotHistory: 1000, partitions: 8 });
}, 120_000);
afterAll(async () => {
  await layer?.close();
  await redis?.close();
  await cluster?.stop();
});

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

const numbers = (events: EventEnvelope[], mapId: string) => events.filter((e) => e.map_id === mapId).map((e) => e.payload.n);

describe('event transport on a Redis Cluster', () => {
  it('publishes maps over every shard; a tail gets the maps it watches, in order, and none of the others; the feed gets them all', async () => {
    const maps = Array.from({ length: 12 }, () => crypto.randomUUID());
    const watched = maps.slice(0, 4);
    const tail = await layer.tail();
    const feed = await layer.feed();
    const fromTail: EventEnvelope[] = [];
    const fromFeed: EventEnvelope[] = [];
    tail.subscribe({ event: (e) => fromTail.push(e), resync: () => undefined });
    feed.subscribe({ event: (e) => fromFeed.push(e), resync: () => undefined });
    for (const m of watched) await tail.watch(m);
    const sent = new Map(maps.map((m) => [m, envelopes(m, 30, 100)]));
    for (let i = 0; i < 30; i += 10) for (const m of maps) await layer.publisher.publish(m, sent.get(m)!.slice(i, i + 10));
    await waitFor(() => fromTail.length >= 120 && fromFeed.length >= 360, 20_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(fromTail.length).toBe(120);
    for (const m of watched) expect(numbers(fromTail, m)).toEqual([...Array(30).keys()].map((i) => i + 100));
    for (const m of maps) expect(numbers(fromFeed, m)).toEqual([...Array(30).keys()].map((i) => i + 100));
    // The maps' streams are on more than one master.
    const masters = await cluster.masters();
    expect(masters.length).toBe(3);
    expect((await layer.history.range(maps[11]!, null, 100)).length).toBe(30);
  }, 60_000);
});
