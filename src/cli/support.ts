/** What the commands of `mapintel` share: settings, loggers, a database-only core, output. */
import { loadConfig, type Config } from '../common/config.js';
import { buildCore, type Core } from '../core/core.js';
import { createLogger } from '../common/log.js';
import type { AdminService } from '../admin/admin.service.js';
import { dbOf } from '../db/db.js';

export function config(): Config {
  return loadConfig();
}

/** The settings a first run needs, for `serve --help` and `demo --help`. */
export const FIRST_SETTINGS = `
Settings (environment variables; all of them in docs/configuration.md):
  PORT, HOST       where the public API listens (default 0.0.0.0:8080)
  OPS_PORT         /healthz, /readyz and /metrics of this process (default 8081)
  DATA_DIR         the embedded default's folder: PostgreSQL data, generated keys (default ./data)
  DATABASE_URL     use this PostgreSQL instead of the embedded one (then set SERVICE_ENCRYPTION_KEY)
  REDIS_URL        share rate limits and carry events across processes through Redis
`;

/** Commands quieter than serve: warnings and errors only, unless LOG_LEVEL asks for more. */
export function commandLogger(cfg: Config) {
  return createLogger(cfg.logLevel === 'info' ? 'warn' : cfg.logLevel);
}

/**
 * Runs `fn` on the database alone (no Redis, no outbox, no roles), refusing while migrations are
 * pending: administration and imports never change the schema behind an operator's back.
 */
export async function withDatabase<T>(fn: (core: Core) => Promise<T>): Promise<T> {
  const cfg = config();
  const core = await buildCore(cfg, { migrations: 'require', redis: false, logger: commandLogger(cfg) });
  try {
    return await fn(core);
  } finally {
    await core.close();
  }
}

/** The admin commands' service, over the database alone (key caches live in server processes). */
export async function withAdmin<T>(fn: (admin: AdminService) => Promise<T>): Promise<T> {
  const { AdminService } = await import('../admin/admin.service.js');
  return withDatabase((core) => fn(new AdminService(dbOf(core.db.orm), core.outbox)));
}

export function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
