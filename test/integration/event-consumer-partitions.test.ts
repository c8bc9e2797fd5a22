/**
 * A durable consumer that reads some partitions only (the webhook workers), against real PostgreSQL and
 * Redis: when it takes partitions over, an event published while its feed is still adding them is
 * handed out, not lost between the log read and the feed's starting point.
 */
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { TEST_REDIS_CLUSTER, TEST_REDIS_URL } from '../support/db.js';
import { EventLayer } from '../../src/events/event-layer.js';
import { DurableEventConsumer, type PartitionScope } from '../../src/events/transport/consumer.js';
import type { PartitionFeed } from '../../src/events/transport/types.js';
import { RedisConnections } from '../../src/redis/redis.js';
import { dbOf } from '../../src/db/db.js';
import { silentLog, useRelayHarness } from '../support/relay-harness.js';
import type { TestTransport } from '../support/transports.js';

const h = useRelayHarness('consumerparts');

/** The partitions a worker holds, changed by the test as leases would change them. */
function scopeOf(count: number): PartitionScope & { hold(partitions: number[]): void } {
  let held = new Set<number>();
  const listeners = new Set<() => void>();
  return {
    count,
    held: () => held,
    onChange(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    hold(partitions) {
      held = new Set(partitions);
      for (const fn of listeners) fn();
    },
  };
}

describe('a durable consumer of some partitions', () => {
  it('hands out an event published while its feed was still adding the partitions it took over', async () => {
    const redis = await RedisConnections.connect(TEST_REDIS_URL, silentLog, { cluster: TEST_REDIS_CLUSTER });
    const layer = new EventLayer({ orm: h.db.orm, log: silentLog, redis, prefix: h.prefixFor('parts'), hotHistory: 1000, partitions: 4 });
    try {
      const feed = await layer.feed([]);
      // The feed adds partitions when the test lets it (a slow Redis, many partitions).
      let letAdd!: () => void;
      const adding = new Promise<void>((r) => (letAdd = r));
      let added!: Promise<void>;
      const slow: PartitionFeed = {
        subscribe: (l) => feed.subscribe(l),
        start: () => feed.start(),
        stop: () => feed.stop(),
        setPartitions: (ps) => (added = adding.then(() => feed.setPartitions(ps))),
      };
      const mapId = await h.makeMapId();
      const scope = scopeOf(4);
      const consumer = new DurableEventConsumer(dbOf(h.db.orm), `parts-${randomUUID()}`, slow, scope);
      await consumer.register();
      const relay = h.relayFor(layer.publisher as unknown as TestTransport);

      scope.hold([0, 1, 2, 3]);
      // The log has nothing after the registration yet.
      expect(await consumer.next(10, 200)).toEqual([]);
      // Committed and published to its partition's stream before the feed has its starting points.
      await h.writeEvents(mapId, 0, 1);
      await relay.drainOnce();
      letAdd();
      await added;

      const got = await consumer.next(10, 5_000);
      expect(got.map((e) => [e.map_id, e.type, e.payload.n])).toEqual([[mapId, 'map_kill', 0]]);
      await consumer.commit(got);
      // Later events come through the feed, once each.
      await h.writeEvents(mapId, 1, 2);
      await relay.drainOnce();
      const later = [...(await consumer.next(10, 5_000))];
      if (later.length < 2) later.push(...(await consumer.next(10, 5_000)));
      expect(later.map((e) => e.payload.n)).toEqual([1, 2]);
      await consumer.close();
    } finally {
      await layer.close();
      await redis.close();
    }
  });
});
