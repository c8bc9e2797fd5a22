/**
 * A relay in a process of its own, for tests that kill it (SIGKILL) mid-batch.
 * env: DATABASE_URL, DATABASE_SCHEMA, REDIS_URL, PREFIX, BATCH.
 */
import { createClient } from 'redis';
import { EventRelay } from '../../src/events/relay.js';
import { RedisEventPublisher } from '../../src/events/transport/redis.js';
import { createLogger } from '../../src/common/log.js';
import type { Redis } from '../../src/core/redis.js';

const env = process.env;
const redis = createClient({ url: env.REDIS_URL }) as Redis;
await redis.connect();
const relay = new EventRelay({
  databaseUrl: env.DATABASE_URL!,
  schema: env.DATABASE_SCHEMA!,
  publisher: new RedisEventPublisher(redis, env.PREFIX!),
  log: createLogger('silent'),
  partitions: 1,
  batchSize: Number(env.BATCH ?? 50),
  pollIntervalMs: 50,
  retentionMs: 86_400_000,
  pruneIntervalMs: 3_600_000,
});
relay.start();
process.stdout.write('started\n');
