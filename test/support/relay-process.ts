/**
 * A relay in a process of its own, for tests that kill it (SIGKILL) mid-batch.
 * env: DATABASE_URL, DATABASE_SESSION_URL (through a pooler), DATABASE_SCHEMA, REDIS_URL, REDIS_CLUSTER, PREFIX, BATCH.
 */
import { EventRelay } from '../../src/events/relay.js';
import { RedisEventPublisher, StreamKeys } from '../../src/events/transport/redis.js';
import { createLogger } from '../../src/common/log.js';
import { DEFAULT_DATABASE_TIMEOUTS } from '../../src/db/pg-options.js';
import { connectRedis } from '../../src/redis/redis.js';

const env = process.env;
const redis = await connectRedis({
  url: env.REDIS_URL!,
  cluster: env.REDIS_CLUSTER === 'true',
  purpose: 'relay',
  log: createLogger('silent'),
  failFast: false,
});
const relay = new EventRelay({
  databaseUrl: env.DATABASE_URL!,
  sessionUrl: env.DATABASE_SESSION_URL,
  timeouts: { ...DEFAULT_DATABASE_TIMEOUTS, transactionPooler: env.DATABASE_SESSION_URL !== undefined },
  schema: env.DATABASE_SCHEMA!,
  publisher: new RedisEventPublisher(redis, new StreamKeys(env.PREFIX!)),
  log: createLogger('silent'),
  partitions: 1,
  batchSize: Number(env.BATCH ?? 50),
  pollIntervalMs: 50,
  retentionMs: 86_400_000,
  pruneIntervalMs: 3_600_000,
});
relay.start();
process.stdout.write('started\n');
