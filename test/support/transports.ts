/**
 * Publisher + history pairs over one backend, for tests that publish through a relay and read back
 * what it published.
 */
import type { EventHistory, EventPublisher } from '../../src/events/transport/types.js';
import { RedisEventHistory, RedisEventPublisher, StreamKeys } from '../../src/events/transport/redis.js';
import { MemoryEventHistory, MemoryEventPublisher, MemoryEventStore } from '../../src/events/transport/memory.js';
import type { Redis } from '../../src/redis/redis.js';

export interface TestTransport extends EventPublisher, EventHistory {
  /** The map's stream key (Redis only). */
  mapKey(mapId: string): string;
}

function pair(publisher: EventPublisher, history: EventHistory, mapKey: (mapId: string) => string): TestTransport {
  return {
    publish: (m, e, prev) => publisher.publish(m, e, prev),
    forget: () => publisher.forget(),
    lastId: (m) => history.lastId(m),
    firstId: (m) => history.firstId(m),
    range: (m, a, c) => history.range(m, a, c),
    mapKey,
  };
}

export function redisTransport(redis: Redis, prefix: string, maxPerMap?: number): TestTransport {
  const keys = new StreamKeys(prefix);
  return pair(new RedisEventPublisher(redis, keys, maxPerMap), new RedisEventHistory(redis, keys), (m) => keys.map(m));
}

export function memoryTransport(maxPerMap?: number): TestTransport {
  const store = new MemoryEventStore(maxPerMap);
  return pair(new MemoryEventPublisher(store), new MemoryEventHistory(store), () => {
    throw new Error('the in-process transport has no stream keys');
  });
}
