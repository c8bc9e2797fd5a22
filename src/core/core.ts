import { readFileSync } from 'node:fs';
import type { Config } from '../common/config.js';
import { addLogSecrets, createLogger, urlPassword, type Logger } from '../common/log.js';
import { createMetrics, type Metrics } from '../common/metrics.js';
import { migrate, pendingMigrations } from '../db/orm.js';
import { Outbox } from '../events/outbox.js';
import { EventLayer } from '../events/event-layer.js';
import { loadSecrets, type Secrets } from './secrets.js';
import { openDatabase, type Database } from './database.js';
import { RedisConnections } from '../redis/redis.js';
import type { ReadinessCheck } from './readiness.js';
import { PublicHttp } from './public-http.js';

/**
 * What every role of a process runs on, built once: config, log, metrics registry, database, Redis
 * connections by purpose, secrets, the outbox and the event transport. Closed last, after the roles.
 */
export interface Core {
  config: Config;
  log: Logger;
  metrics: Metrics;
  db: Database;
  /** Redis connections, when REDIS_URL is set. */
  redis: RedisConnections | undefined;
  secrets: Secrets;
  outbox: Outbox;
  events: EventLayer;
  /** The public port, shared by the roles that answer on it (it listens when the first one asks). */
  publicHttp: PublicHttp;
  /** The core's own readiness checks (database; Redis when configured). */
  readiness: ReadinessCheck[];
  close(): Promise<void>;
}

export interface CoreOptions {
  logger?: Logger;
  metrics?: Metrics;
  /**
   * `apply`: run pending migrations (serve, migrate, demo); `require`: refuse to start while any are
   * pending (admin and import commands must not change the schema behind an operator's back);
   * `ignore`: leave them (the `migrate` command itself).
   */
  migrations: 'apply' | 'require' | 'ignore';
  /** Connect Redis when REDIS_URL is set (default true); commands that never touch it pass false. */
  redis?: boolean;
}

/** Refused start: migrations are pending and the command may not apply them. */
export class PendingMigrationsError extends Error {
  constructor(readonly pending: string[]) {
    super(
      `the database schema is not up to date (${pending.length} pending migration${pending.length === 1 ? '' : 's'}: ${pending.join(', ')}); run \`mapintel migrate\` (\`node dist/cli.js migrate\` in a clone) first`,
    );
  }
}

export async function buildCore(config: Config, opts: CoreOptions): Promise<Core> {
  const log = opts.logger ?? createLogger(config.logLevel);
  const metrics = opts.metrics ?? createMetrics();
  const secrets = loadSecrets(config);
  addLogSecrets([
    secrets.adminToken,
    config.encryptionKey,
    urlPassword(config.databaseUrl),
    urlPassword(config.databaseSessionUrl),
    urlPassword(config.redisUrl),
  ]);
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch((err: Error) => log.warn({ err: { message: err.message } }, 'close failed'));
    closers.length = 0;
  };
  try {
    const db = await openDatabase(config, log, metrics);
    closers.push(() => db.close());
    if (opts.migrations === 'apply') {
      const applied = await migrate(db.orm);
      if (applied.length) log.info({ applied }, 'migrations applied');
    } else if (opts.migrations === 'require') {
      const pending = await pendingMigrations(db.orm);
      if (pending.length) throw new PendingMigrationsError(pending);
    }
    let redis: RedisConnections | undefined;
    if (config.redisUrl && opts.redis !== false) {
      redis = await RedisConnections.connect(config.redisUrl, log, {
        cluster: config.redisCluster,
        ...(config.redisCaFile ? { ca: readFileSync(config.redisCaFile, 'utf8') } : {}),
      });
      closers.push(() => redis!.close());
    }
    const outbox = new Outbox(db.orm);
    const events = new EventLayer({
      orm: db.orm,
      log,
      redis,
      prefix: config.redisKeyPrefix,
      hotHistory: config.eventsHotHistory,
      partitions: config.eventsPartitions,
    });
    closers.push(() => events.close());
    const readiness: ReadinessCheck[] = [{ name: 'database', check: () => db.ping() }];
    if (redis) readiness.push({ name: 'redis', check: () => redis.ping() });
    const publicHttp = new PublicHttp(config, log);
    return { config, log, metrics, db, redis, secrets, outbox, events, publicHttp, readiness, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
