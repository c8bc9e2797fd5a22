import path from 'node:path';
import { createClient, type RedisClientType } from 'redis';
import type { Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics.js';
import { initOrm, migrate, type Orm } from './db/orm.js';
import { readOrCreate, startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { SecretBox, generateToken } from './crypto.js';
import { TokenService } from './api/token.service.js';
import { MapDataService } from './maps/map-data.service.js';
import { MapContentService } from './maps/map-content.service.js';
import { MapEditService } from './maps/map-edit.service.js';
import { SignatureService } from './maps/signature.service.js';
import { StructureService } from './maps/structure.service.js';
import { AclService } from './acls/acl.service.js';
import { AdminService } from './admin/admin.service.js';
import { StaticInfoService } from './static-data/static-info.service.js';
import { createRateLimiter } from './ratelimit/rate-limiter.js';
import type { AppDeps } from './api/deps.js';
import { ConfigError } from './config.js';
import { MemoryTransport, RedisStreamTransport, type EventTransport } from './events/transport.js';
import { EventRelay } from './events/relay.js';
import { EventLogService } from './events/events.service.js';
import { notifierOf } from './events/notifier.js';
import { databaseTimeouts } from './db/pg-options.js';
import { passesWithin } from './deadline.js';

export type Redis = RedisClientType<any, any, any, any, any>;

/** Deadline of each /readyz check: a probe waits about 1 s, and a stalled dependency is not ready. */
const READY_CHECK_MS = 500;

/** Everything a process runs on, built in order by compose() and closed in reverse by close(). */
export interface Platform {
  config: Config;
  log: Logger;
  metrics: Metrics;
  orm: Orm;
  redis: Redis | undefined;
  databaseUrl: string;
  /** The admin token in force (configured, or generated for the embedded default). */
  adminToken: string | undefined;
  box: SecretBox;
  tokens: TokenService;
  mapData: MapDataService;
  mapContent: MapContentService;
  acls: AclService;
  admin: AdminService;
  staticInfo: StaticInfoService;
  eventLog: EventLogService;
  /** Where published events go: Redis Streams, or in-process without REDIS_URL. */
  transport: EventTransport;
  /** The outbox relay (started by startServer) when EVENTS_RELAY_ENABLED. */
  relay: EventRelay | undefined;
  deps: AppDeps;
  close(): Promise<void>;
}

export interface ComposeOptions {
  logger?: Logger;
  metrics?: Metrics;
  /** Run pending migrations at start (serve does; tests do it themselves). */
  migrate?: boolean;
}

/** The embedded default keeps its generated secrets under DATA_DIR; with DATABASE_URL they must be configured. */
function secretsFor(config: Config): { encryptionKey: string; adminToken: string | undefined } {
  if (config.databaseUrl) {
    if (!config.encryptionKey) {
      throw new ConfigError(['SERVICE_ENCRYPTION_KEY is required with DATABASE_URL (every replica must share it): openssl rand -base64 32']);
    }
    return { encryptionKey: config.encryptionKey, adminToken: config.adminToken };
  }
  const dir = path.resolve(config.dataDir);
  return {
    encryptionKey: config.encryptionKey ?? readOrCreate(path.join(dir, 'encryption.key'), () => SecretBox.generateKey()),
    adminToken: config.adminToken ?? readOrCreate(path.join(dir, 'admin.token'), () => generateToken('adm')),
  };
}

export async function compose(config: Config, opts: ComposeOptions = {}): Promise<Platform> {
  const log = opts.logger ?? createLogger(config.logLevel);
  const metrics = opts.metrics ?? createMetrics();
  const secrets = secretsFor(config);
  const closers: (() => Promise<void>)[] = [];
  try {
    let embedded: EmbeddedDatabase | undefined;
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, log.child({ component: 'embedded-postgres' }));
      closers.push(() => embedded!.stop());
      databaseUrl = embedded.url;
    }
    const orm = await initOrm({ databaseUrl, schema: config.databaseSchema, poolMax: config.databasePoolMax, timeouts: databaseTimeouts(config) });
    closers.push(() => orm.close(true));
    if (opts.migrate) {
      const applied = await migrate(orm);
      if (applied.length) log.info({ applied }, 'migrations applied');
    }

    let redis: Redis | undefined;
    if (config.redisUrl) {
      redis = createClient({
        url: config.redisUrl,
        socket: { reconnectStrategy: (retries) => Math.min(retries * 200, 5000), connectTimeout: 5000 },
        // Commands fail fast while Redis is down (→ 503) instead of queueing without bound.
        disableOfflineQueue: true,
      }) as Redis;
      redis.on('error', (err: Error) => log.warn({ err: { message: err.message } }, 'redis error'));
      await redis.connect();
      closers.push(async () => {
        await redis!.close().catch(() => undefined);
      });
    }

    const box = new SecretBox(secrets.encryptionKey);
    const emFactory = () => orm.em.fork();
    const tokens = new TokenService(emFactory, secrets.adminToken);
    const mapData = new MapDataService();
    const mapContent = new MapContentService();
    const acls = new AclService(box);
    const admin = new AdminService(() => tokens.invalidate());
    const staticInfo = new StaticInfoService(orm);
    const eventLog = new EventLogService();
    const transport: EventTransport = redis
      ? new RedisStreamTransport(redis, config.redisKeyPrefix, config.eventsHotHistory)
      : new MemoryTransport(config.eventsHotHistory);
    const relay = config.eventsRelayEnabled
      ? new EventRelay({
          databaseUrl,
          schema: config.databaseSchema,
          timeouts: databaseTimeouts(config),
          transport,
          log: log.child({ component: 'relay' }),
          metrics,
          partitions: config.eventsRelayPartitions,
          batchSize: config.eventsRelayBatch,
          pollIntervalMs: config.eventsRelayPollMs,
          retentionMs: config.eventsRetentionDays * 86_400_000,
          pruneIntervalMs: 3_600_000,
        })
      : undefined;
    if (relay) {
      closers.push(() => relay.stop());
      const notifier = notifierOf(orm);
      if (notifier) notifier.local = () => relay.poke();
    }
    const rateLimiter = createRateLimiter({ limitPerMinute: config.rateLimitPerMinute, redis, prefix: config.redisKeyPrefix });

    const pool = async () => {
      try {
        const native = (await (orm.em.getConnection() as unknown as { getNativeClient(): Promise<{ totalCount: number; idleCount: number; waitingCount: number }> }).getNativeClient());
        metrics.dbPool.set({ state: 'total' }, native.totalCount);
        metrics.dbPool.set({ state: 'idle' }, native.idleCount);
        metrics.dbPool.set({ state: 'waiting' }, native.waitingCount);
      } catch {
        // pool not created yet
      }
    };
    const poolTimer = setInterval(() => void pool(), 5000);
    poolTimer.unref();
    closers.push(async () => clearInterval(poolTimer));

    const deps: AppDeps = {
      config,
      log,
      metrics,
      em: emFactory,
      tokens,
      mapData,
      mapEdit: new MapEditService(),
      signatures: new SignatureService(),
      structures: new StructureService(),
      acls,
      admin,
      staticInfo,
      rateLimiter,
      eventLog,
      checkReady: async () => {
        await pool();
        // Each check has its own deadline and they run side by side: /readyz answers within 1 s.
        const [database, redisOk] = await Promise.all([passesWithin(orm.em.getConnection().execute('select 1'), READY_CHECK_MS), redis ? passesWithin(redis.ping(), READY_CHECK_MS) : null]);
        return { database, redis: redisOk };
      },
    };

    return {
      config,
      log,
      metrics,
      orm,
      redis,
      databaseUrl,
      adminToken: secrets.adminToken,
      box,
      tokens,
      mapData,
      mapContent,
      acls,
      admin,
      staticInfo,
      eventLog,
      transport,
      relay,
      deps,
      async close() {
        for (const close of closers.reverse()) await close().catch((err: Error) => log.warn({ err: { message: err.message } }, 'close failed'));
      },
    };
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw err;
  }
}
