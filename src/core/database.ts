import type { Config } from '../common/config.js';
import type { Logger } from '../common/log.js';
import type { Metrics } from '../common/metrics.js';
import { initOrm, type Orm } from '../db/orm.js';
import { startEmbeddedPostgres } from '../db/embedded.js';
import { databaseTimeouts } from '../db/pg-options.js';
import { checkServerSettings } from '../db/server-settings.js';

/** The process's PostgreSQL: the configured one, or the embedded default started for it. */
export interface Database {
  orm: Orm;
  /** Connection string in use (the embedded server's when DATABASE_URL is unset). */
  url: string;
  /** DATABASE_SESSION_URL: the session connection beside a pooled `url` (undefined: `url` is a session). */
  sessionUrl: string | undefined;
  /** True when the process runs the embedded PostgreSQL. */
  embedded: boolean;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

export async function openDatabase(config: Config, log: Logger, metrics: Metrics): Promise<Database> {
  let stopEmbedded: (() => Promise<void>) | undefined;
  let url = config.databaseUrl;
  if (!url) {
    const embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, log.child({ component: 'embedded-postgres' }));
    stopEmbedded = () => embedded.stop();
    url = embedded.url;
  }
  let orm: Orm | undefined;
  const timeouts = databaseTimeouts(config);
  try {
    orm = await initOrm({
      databaseUrl: url,
      sessionUrl: config.databaseSessionUrl,
      schema: config.databaseSchema,
      poolMax: config.databasePoolMax,
      poolMin: config.databasePoolMin,
      timeouts,
    });
    const em = orm.em;
    await checkServerSettings((sql) => em.getConnection().execute<Record<string, unknown>[]>(sql), timeouts, config.databaseSchema);
  } catch (err) {
    await orm?.close(true).catch(() => undefined);
    await stopEmbedded?.().catch(() => undefined);
    throw err;
  }
  const poolGauge = async () => {
    try {
      const pool = await (orm.em.getConnection() as unknown as { getNativeClient(): Promise<PoolCounts> }).getNativeClient();
      metrics.dbPool.set({ state: 'total' }, pool.totalCount);
      metrics.dbPool.set({ state: 'idle' }, pool.idleCount);
      metrics.dbPool.set({ state: 'waiting' }, pool.waitingCount);
    } catch {
      // pool not created yet
    }
  };
  const timer = setInterval(() => void poolGauge(), 5000);
  timer.unref();
  return {
    orm,
    url,
    sessionUrl: config.databaseSessionUrl,
    embedded: stopEmbedded !== undefined,
    async ping() {
      await poolGauge();
      return orm.em
        .getConnection()
        .execute('select 1')
        .then(() => true)
        .catch(() => false);
    },
    async close() {
      clearInterval(timer);
      await orm.close(true).catch((err: Error) => log.warn({ err: { message: err.message } }, 'closing the database pool failed'));
      await stopEmbedded?.();
    },
  };
}
