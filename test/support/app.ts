/**
 * API-tier harness: the real process (core + api role, `serve`) on ephemeral loopback ports, over the
 * machine's PostgreSQL (one schema per test file) and, when asked, Redis (one key prefix per file).
 */
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../src/config.js';
import { serve, type Serving } from '../../src/main.js';
import { apiRole } from '../../src/api/api.role.js';
import { streamRole } from '../../src/stream/stream.role.js';
import type { Orm } from '../../src/db/orm.js';
import type { ApiServices } from '../../src/api/services.js';
import type { Redis } from '../../src/core/redis.js';
import type { SecretBox } from '../../src/crypto.js';
import type { Metrics } from '../../src/metrics.js';
import { createLogger } from '../../src/log.js';
import type { Role } from '../../src/roles/role.js';

import { deleteRedisPrefix, dropSchema, prepareTestDatabase, testDatabaseEnv, TEST_REDIS_ENV, uniqueName } from './db.js';
import { checkEnvelope } from './event-catalog.js';

/** GET /api/maps/{map_id}/events (the event log), whose pages are checked against the event catalog. */
const EVENT_LOG_PATH = /^\/api\/maps\/[^/?]+\/events(\?|$)/;

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** What tests and factories reach through: the database, secrets and the API's services. */
export type Platform = ApiServices & {
  orm: Orm;
  metrics: Metrics;
  databaseUrl: string;
  adminToken: string | undefined;
  box: SecretBox;
  /** The shared Redis connection, when the server uses Redis. */
  redis: Redis | undefined;
};

export interface TestServer {
  url: string;
  /** The ops port (/healthz, /readyz, /metrics). */
  opsUrl: string;
  platform: Platform;
  server: Serving;
  config: Config;
  /** Every log line written so far (JSON objects). */
  logs: Record<string, unknown>[];
  /** Raw log output, for secret-leak checks. */
  rawLogs(): string;
  fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Use the machine's Redis (rate limits shared through it). */
  redis?: boolean;
  env?: Record<string, string>;
  /** Reuse an existing schema (a second process over the same data). */
  schema?: string;
  /** Keep the schema on close (another server still uses it). */
  keepSchema?: boolean;
  /** Roles to run (default: api and stream). */
  roles?: Role[];
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const schema = opts.schema ?? uniqueName('api').toLowerCase();
  const prefix = `${uniqueName('test')}:`;
  await prepareTestDatabase(schema);
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    OPS_PORT: '0',
    OPS_HOST: '127.0.0.1',
    ...testDatabaseEnv(schema),
    DATABASE_POOL_MAX: '5',
    SERVICE_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    SERVICE_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'info',
    SERVICE_SHUTDOWN_TIMEOUT_MS: '2000',
    ...(opts.redis ? { ...TEST_REDIS_ENV, REDIS_KEY_PREFIX: prefix } : {}),
    ...opts.env,
  });
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString('utf8'));
      cb();
    },
  });
  const logger = createLogger('info', sink);
  const server = await serve(config, { roles: opts.roles ?? [apiRole, streamRole], logger });
  const api = server.api!;
  const url = api.url;
  const { core } = server;
  const platform: Platform = {
    ...api.services,
    orm: core.db.orm,
    metrics: core.metrics,
    databaseUrl: core.db.url,
    adminToken: core.secrets.adminToken,
    box: core.secrets.box,
    redis: core.redis?.commands,
  };
  return {
    url,
    opsUrl: server.ops!.url,
    platform,
    server,
    config,
    get logs() {
      return chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    rawLogs: () => chunks.join(''),
    async fetch(path, init = {}) {
      const { token, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
      const res = await fetch(`${url}${path}`, { ...rest, headers });
      // Event log pages are checked against the event catalog (event-catalog.ts).
      if (EVENT_LOG_PATH.test(path) && res.ok) {
        const page = (await res.clone().json()) as { data?: unknown[] };
        for (const e of page.data ?? []) checkEnvelope(e, `event log ${path}`);
      }
      return res;
    },
    async close() {
      await server.shutdown();
      if (opts.redis) await deleteRedisPrefix(config.redisKeyPrefix).catch(() => undefined);
      if (!opts.keepSchema && !opts.schema) await dropSchema(schema);
    },
  };
}

/** A fixed key for tests (never used outside them). */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
