import type { Orm } from '../db/orm.js';
import { dbOf } from '../db/db.js';
import type { Logger } from '../common/log.js';
import type { RedisConnections } from '../redis/redis.js';
import type { EventConsumer, EventHistory, EventPublisher, EventTail, PartitionFeed } from './transport/types.js';
import { RedisEventHistory, RedisEventPublisher } from './transport/redis.js';
import { StreamKeys } from './transport/keys.js';
import { RedisMapTail, type ReceivedCounter } from './transport/redis-map-tail.js';
import { RedisPartitionFeed } from './transport/redis-partition-feed.js';
import { MemoryEventFeed, MemoryEventHistory, MemoryEventPublisher, MemoryEventStore, MemoryEventTail } from './transport/memory.js';
import { DurableEventConsumer, type PartitionScope } from './transport/consumer.js';

export interface EventLayerOptions {
  orm: Orm;
  log: Logger;
  /** Redis Streams when given, else the in-process store. */
  redis: RedisConnections | undefined;
  prefix: string;
  hotHistory: number;
  /** Partition streams (EVENTS_PARTITIONS); 1 when left out. */
  partitions?: number;
}

/**
 * The event transport of one process, by audience: the publisher (relay → streams) and the history
 * (backfill) are ready at once; the tail (the live read of the maps a stream process serves) and the
 * consumers (over the partition streams) are made on first use, so a process that never reads live
 * events holds no subscribed connection.
 */
export class EventLayer {
  readonly publisher: EventPublisher;
  readonly history: EventHistory;
  readonly keys: StreamKeys;
  private readonly store: MemoryEventStore | undefined;
  private tailStarted: Promise<EventTail> | undefined;
  private readonly started: { stop(): Promise<void> }[] = [];
  private readonly consumers: EventConsumer[] = [];

  constructor(private readonly o: EventLayerOptions) {
    this.keys = new StreamKeys(o.prefix, o.partitions ?? 1);
    if (o.redis) {
      this.publisher = new RedisEventPublisher(o.redis.commands, this.keys, o.hotHistory);
      this.history = new RedisEventHistory(o.redis.commands, this.keys);
    } else {
      this.store = new MemoryEventStore(o.hotHistory);
      this.publisher = new MemoryEventPublisher(this.store);
      this.history = new MemoryEventHistory(this.store);
    }
  }

  /** Partition streams of this transport. */
  get partitions(): number {
    return this.keys.partitions;
  }

  /**
   * The process's live read of the maps it watches, started on first call. `received` counts what it
   * receives from Redis (the first caller's counter is the one kept).
   */
  tail(received?: ReceivedCounter): Promise<EventTail> {
    this.tailStarted ??= (async () => {
      const tail = this.o.redis
        ? new RedisMapTail(await this.o.redis.blocking('event-tail'), this.o.redis.commands, this.keys, this.o.log.child({ component: 'event-tail' }), received)
        : new MemoryEventTail(this.store!);
      await tail.start();
      this.started.push(tail);
      return tail;
    })();
    return this.tailStarted;
  }

  /** A feed of every event of `partitions` (every partition when left out), started. */
  async feed(partitions?: readonly number[]): Promise<PartitionFeed> {
    const all = [...Array(this.partitions).keys()];
    const feed = this.o.redis
      ? new RedisPartitionFeed(
          await this.o.redis.blocking('event-feed'),
          this.o.redis.commands,
          this.keys,
          partitions ?? all,
          this.o.log.child({ component: 'event-feed' }),
        )
      : new MemoryEventFeed(this.store!);
    await feed.start();
    this.started.push(feed);
    return feed;
  }

  /**
   * A durable consumer named `name` (its position is shared by every process using that name), registered
   * when this resolves: events committed from then on reach it, even if it stops before its first read.
   * With a `scope`, it reads only the maps of the partitions the scope holds at the time.
   */
  async consumer(name: string, scope?: PartitionScope): Promise<EventConsumer> {
    const consumer = new DurableEventConsumer(dbOf(this.o.orm), name, await this.feed(scope ? [...scope.held()] : undefined), scope);
    await consumer.register();
    this.consumers.push(consumer);
    return consumer;
  }

  async close(): Promise<void> {
    for (const c of this.consumers) await c.close();
    if (this.tailStarted) await this.tailStarted.catch(() => undefined);
    for (const s of this.started.splice(0)) await s.stop();
  }
}
