import type { Orm } from '../db/orm.js';
import { dbOf } from '../db/db.js';
import type { Logger } from '../common/log.js';
import type { RedisConnections } from '../core/redis.js';
import type { EventConsumer, EventHistory, EventPublisher, EventTail } from './transport/types.js';
import { RedisEventHistory, RedisEventPublisher, RedisEventTail } from './transport/redis.js';
import { MemoryEventHistory, MemoryEventPublisher, MemoryEventStore, MemoryEventTail } from './transport/memory.js';
import { DurableEventConsumer } from './transport/consumer.js';

export interface EventLayerOptions {
  orm: Orm;
  log: Logger;
  /** Redis Streams when given, else the in-process store. */
  redis: RedisConnections | undefined;
  prefix: string;
  hotHistory: number;
}

/**
 * The event transport of one process, by audience: the publisher (relay → streams) and the history
 * (backfill) are ready at once; the tail (one live read per process) and consumers are made on first
 * use, so a process that never reads live events holds no blocking connection.
 */
export class EventLayer {
  readonly publisher: EventPublisher;
  readonly history: EventHistory;
  private readonly store: MemoryEventStore | undefined;
  private tailStarted: Promise<EventTail> | undefined;
  private readonly consumers: EventConsumer[] = [];

  constructor(private readonly o: EventLayerOptions) {
    if (o.redis) {
      this.publisher = new RedisEventPublisher(o.redis.commands, o.prefix, o.hotHistory);
      this.history = new RedisEventHistory(o.redis.commands, o.prefix);
    } else {
      this.store = new MemoryEventStore(o.hotHistory);
      this.publisher = new MemoryEventPublisher(this.store);
      this.history = new MemoryEventHistory(this.store);
    }
  }

  /** The process's live read, started on first call. */
  tail(): Promise<EventTail> {
    this.tailStarted ??= (async () => {
      const tail = this.o.redis
        ? new RedisEventTail(await this.o.redis.blocking('event-tail'), this.o.prefix, this.o.log.child({ component: 'event-tail' }))
        : new MemoryEventTail(this.store!);
      await tail.start();
      return tail;
    })();
    return this.tailStarted;
  }

  /**
   * A durable consumer named `name` (its position is shared by every process using that name), registered
   * when this resolves: events committed from then on reach it, even if it stops before its first read.
   */
  async consumer(name: string): Promise<EventConsumer> {
    const consumer = new DurableEventConsumer(dbOf(this.o.orm), name, await this.tail());
    await consumer.register();
    this.consumers.push(consumer);
    return consumer;
  }

  async close(): Promise<void> {
    for (const c of this.consumers) await c.close();
    if (this.tailStarted) await (await this.tailStarted.catch(() => undefined))?.stop();
  }
}
