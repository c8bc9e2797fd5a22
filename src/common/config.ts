/**
 * The one typed configuration module. Nothing else reads `process.env`.
 * Every setting is declared once in SETTINGS (src/common/config.settings.ts: name, meaning, default, unit);
 * docs/configuration.md lists the same table and a test keeps the two in step.
 */

import { existsSync } from 'node:fs';
import { BEARER_TOKEN_CHARACTERS, BEARER_TOKEN_RE } from './crypto.js';
import { SETTINGS } from './config.settings.js';

export { SETTINGS, type Setting } from './config.settings.js';

export interface Config {
  port: number;
  host: string;
  opsPort: number;
  opsHost: string;
  publicBaseUrl: string;
  databaseUrl: string | undefined;
  /** A session connection for LISTEN and advisory locks when DATABASE_URL is a transaction pooler. */
  databaseSessionUrl: string | undefined;
  /** DATABASE_SSL_MODE; undefined: as the URL says. */
  databaseSslMode: DatabaseSslMode | undefined;
  /** DATABASE_CA_FILE: path of a PEM bundle. */
  databaseCaFile: string | undefined;
  /** REDIS_CA_FILE: path of a PEM bundle (rediss:// only). */
  redisCaFile: string | undefined;
  databasePoolMax: number;
  /** Connections kept open while idle (never above databasePoolMax). */
  databasePoolMin: number;
  databaseConnectTimeoutMs: number;
  databaseQueryTimeoutMs: number;
  databaseLockTimeoutMs: number;
  databaseIdleInTransactionTimeoutMs: number;
  /** Registered statements (src/db/prepared.ts) run as named prepared statements. */
  databasePreparedStatements: boolean;
  databaseSchema: string;
  dataDir: string;
  embeddedPgPort: number;
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** REDIS_URL names a node of a Redis Cluster. */
  redisCluster: boolean;
  adminToken: string | undefined;
  encryptionKey: string | undefined;
  characterApiDisabled: boolean;
  sseEnabled: boolean;
  streamMaxPerMap: number;
  streamMaxPerKey: number;
  streamMaxPerProcess: number;
  streamLeaseMs: number;
  streamKeepaliveMs: number;
  streamRetryMs: number;
  streamBackfillMax: number;
  streamMaxBufferBytes: number;
  streamBackfillBudgetBytes: number;
  /** V8's --heap-growing-percent for a process running the stream role (0: V8's own). */
  streamHeapGrowthPercent: number;
  webhooksEnabled: boolean;
  webhooksAllowInsecureUrls: boolean;
  webhookTimeoutMs: number;
  kubeconfig: string | undefined;
  operatorNamespace: string;
  operatorLeaseName: string;
  operatorLeaseDurationSeconds: number;
  operatorIdentity: string | undefined;
  operatorConcurrency: number;
  operatorStatusRefreshMs: number;
  operatorWatchNamespaces: string[];
  operatorQueueQps: number;
  operatorQueueBurst: number;
  operatorKubeApiQps: number;
  operatorKubeApiBurst: number;
  operatorReconcileTimeoutSeconds: number;
  operatorWatchFailureUnreadySeconds: number;
  operatorWorkerAutoscale: boolean;
  operatorWorkerDeployment: string;
  operatorWorkerMinReplicas: number;
  operatorWorkerMaxReplicas: number;
  operatorWorkerPendingPerReplica: number;
  operatorWorkerSubscriptionsPerReplica: number;
  operatorWorkerScaleDownCooldownSeconds: number;
  operatorWorkerAutoscaleIntervalSeconds: number;
  /** Waits before attempts 2, 3, … in milliseconds. */
  webhookRetryWaitsMs: number[];
  webhookProbeWaitsMs: number[];
  webhookDisableAfter: number;
  webhookConcurrency: number;
  webhookConcurrencyPerSubscription: number;
  webhookConcurrencyPerMap: number;
  webhookAttemptsRetentionDays: number;
  rateLimitPerMinute: number;
  trustedProxies: string[];
  maxBodyBytes: number;
  /** Serve /metrics on the public port too (it is always on the ops port). */
  metricsPublic: boolean;
  /** Bytes of serialised map reads each api process keeps (0: no cache). */
  readCacheBytes: number;
  requestTimeoutMs: number;
  /** After SIGTERM, serving on (not ready, every connection closed after its response) before the shutdown. */
  shutdownDelayMs: number;
  shutdownTimeoutMs: number;
  logLevel: string;
  eventsRelayEnabled: boolean;
  eventsRelayPartitions: number;
  eventsRelayBatch: number;
  eventsRelayPollMs: number;
  eventsRetentionDays: number;
  eventsHotHistory: number;
  eventsPartitions: number;
  killsRetentionDays: number;
}

export const DATABASE_SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type DatabaseSslMode = (typeof DATABASE_SSL_MODES)[number];

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Settings whose default differs under `mapintel demo` (what `make run` runs): a demo on the developer's
 * machine accepts the local and http webhook receivers a first try uses. A value set in the environment
 * wins.
 */
const DEMO_DEFAULTS: Readonly<Record<string, string>> = { SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true' };

/** The settings of `mapintel demo`: the environment, with the demo's own defaults (DEMO_DEFAULTS). */
export function loadDemoConfig(env: Record<string, string | undefined> = process.env): Config {
  return loadConfig(env, DEMO_DEFAULTS);
}

/**
 * Reads the environment once; throws ConfigError listing every problem. `defaults` replace the declared
 * defaults of some settings.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, defaults: Readonly<Record<string, string>> = {}): Config {
  const problems: string[] = [];
  const raw = (name: string): string => {
    const setting = SETTINGS.find((s) => s.name === name);
    if (!setting) throw new Error(`undeclared setting ${name}`);
    const value = env[name];
    return value === undefined || value === '' ? (defaults[name] ?? setting.default) : value.trim();
  };
  const int = (name: string, min: number, max: number): number => {
    const text = raw(name);
    const n = Number(text);
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${text}")`);
      return min;
    }
    return n;
  };
  const bool = (name: string): boolean => {
    const text = raw(name).toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(text)) return true;
    if (['false', '0', 'no', 'off'].includes(text)) return false;
    problems.push(`${name} must be true or false (got "${text}")`);
    return false;
  };
  const optional = (name: string): string | undefined => raw(name) || undefined;
  /** A comma list of durations: `250ms`, `5s`, `2m`, `1h`, or bare milliseconds. */
  const durations = (name: string): number[] => {
    const text = raw(name);
    const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, '': 1 };
    const out: number[] = [];
    for (const part of text.split(',').map((p) => p.trim())) {
      const m = /^(\d{1,9})(ms|s|m|h|)$/.exec(part);
      if (!m) {
        problems.push(`${name} must be a comma list of durations such as 1s,5s,30s,2m,1h (got "${text}")`);
        return [];
      }
      out.push(Number(m[1]) * units[m[2]!]!);
    }
    if (out.length > 100) problems.push(`${name} may list at most 100 waits`);
    return out;
  };

  const port = int('PORT', 0, 65535);
  const host = raw('HOST');
  const databaseUrl = optional('DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const databaseSessionUrl = optional('DATABASE_SESSION_URL');
  if (databaseSessionUrl && !/^postgres(ql)?:\/\//.test(databaseSessionUrl)) {
    problems.push('DATABASE_SESSION_URL must start with postgres:// or postgresql://');
  } else if (databaseSessionUrl && !databaseUrl) {
    problems.push('DATABASE_SESSION_URL needs DATABASE_URL (it is the session beside a pooled DATABASE_URL)');
  }
  const databaseSslMode = optional('DATABASE_SSL_MODE') as DatabaseSslMode | undefined;
  if (databaseSslMode && !DATABASE_SSL_MODES.includes(databaseSslMode)) {
    problems.push(`DATABASE_SSL_MODE must be one of ${DATABASE_SSL_MODES.join(', ')}`);
  } else if (databaseSslMode && [databaseUrl, databaseSessionUrl].some((u) => u && /[?&]sslmode=/.test(u))) {
    problems.push('DATABASE_SSL_MODE is set and a database URL carries its own sslmode: set it in one place');
  }
  const databaseCaFile = optional('DATABASE_CA_FILE');
  if (databaseCaFile && !existsSync(databaseCaFile)) problems.push(`DATABASE_CA_FILE: no such file: ${databaseCaFile}`);
  else if (databaseCaFile && (!databaseSslMode || databaseSslMode === 'disable')) {
    problems.push('DATABASE_CA_FILE needs DATABASE_SSL_MODE require, verify-ca or verify-full');
  }
  const redisCaFile = optional('REDIS_CA_FILE');
  const redisUrl = optional('REDIS_URL');
  if (redisCaFile && !existsSync(redisCaFile)) problems.push(`REDIS_CA_FILE: no such file: ${redisCaFile}`);
  else if (redisCaFile && !redisUrl?.startsWith('rediss://')) problems.push('REDIS_CA_FILE needs a rediss:// REDIS_URL (TLS)');
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) problems.push('REDIS_URL must start with redis:// or rediss://');
  const schema = raw('DATABASE_SCHEMA');
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) problems.push('DATABASE_SCHEMA must be a lower-case SQL identifier');
  const encryptionKey = optional('SERVICE_ENCRYPTION_KEY');
  if (encryptionKey && Buffer.from(encryptionKey, 'base64').length !== 32) {
    problems.push('SERVICE_ENCRYPTION_KEY must be 32 bytes encoded as base64');
  }
  const adminToken = optional('SERVICE_ADMIN_TOKEN');
  if (adminToken && adminToken.length < 16) problems.push('SERVICE_ADMIN_TOKEN must be at least 16 characters');
  // Accepted here, a token the bearer parsing can never match would leave the admin API locked for good.
  else if (adminToken && !BEARER_TOKEN_RE.test(adminToken)) {
    problems.push(`SERVICE_ADMIN_TOKEN may contain only ${BEARER_TOKEN_CHARACTERS} (at most 256 characters): openssl rand -hex 32`);
  }
  const logLevel = raw('LOG_LEVEL');
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const poolMax = int('DATABASE_POOL_MAX', 1, 1000);
  const config: Config = {
    port,
    host,
    opsPort: int('OPS_PORT', 0, 65535),
    opsHost: raw('OPS_HOST'),
    publicBaseUrl: optional('PUBLIC_BASE_URL') ?? `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${port}`,
    databaseUrl,
    databaseSessionUrl,
    databaseSslMode,
    databaseCaFile,
    redisCaFile,
    databasePoolMax: poolMax,
    databasePoolMin: Math.min(int('DATABASE_POOL_MIN', 0, 1000), poolMax),
    databaseConnectTimeoutMs: int('DATABASE_CONNECT_TIMEOUT_MS', 100, 600_000),
    databaseQueryTimeoutMs: int('DATABASE_QUERY_TIMEOUT_MS', 0, 86_400_000),
    databaseLockTimeoutMs: int('DATABASE_LOCK_TIMEOUT_MS', 0, 86_400_000),
    databaseIdleInTransactionTimeoutMs: int('DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 0, 86_400_000),
    databasePreparedStatements: bool('DATABASE_PREPARED_STATEMENTS'),
    databaseSchema: schema,
    dataDir: raw('DATA_DIR'),
    embeddedPgPort: int('EMBEDDED_PG_PORT', 1, 65535),
    redisUrl,
    redisKeyPrefix: raw('REDIS_KEY_PREFIX'),
    redisCluster: bool('REDIS_CLUSTER'),
    adminToken,
    encryptionKey,
    characterApiDisabled: bool('SERVICE_CHARACTER_API_DISABLED'),
    sseEnabled: bool('SERVICE_SSE_ENABLED'),
    streamMaxPerMap: int('STREAM_MAX_PER_MAP', 1, 1_000_000),
    streamMaxPerKey: int('STREAM_MAX_PER_KEY', 1, 1_000_000),
    streamMaxPerProcess: int('STREAM_MAX_PER_PROCESS', 1, 10_000_000),
    streamLeaseMs: int('STREAM_LEASE_MS', 1_000, 600_000),
    streamKeepaliveMs: int('STREAM_KEEPALIVE_MS', 100, 600_000),
    streamRetryMs: int('STREAM_RETRY_MS', 0, 600_000),
    streamBackfillMax: int('STREAM_BACKFILL_MAX', 1, 10_000_000),
    streamMaxBufferBytes: int('STREAM_MAX_BUFFER_BYTES', 1024, 1024 * 1024 * 1024),
    streamBackfillBudgetBytes: int('STREAM_BACKFILL_BUDGET_BYTES', 65_536, 16 * 1024 * 1024 * 1024),
    streamHeapGrowthPercent: int('STREAM_HEAP_GROWTH_PERCENT', 0, 1000),
    webhooksEnabled: bool('SERVICE_WEBHOOKS_ENABLED'),
    webhooksAllowInsecureUrls: bool('SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS'),
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 100, 600_000),
    kubeconfig: optional('KUBECONFIG'),
    operatorNamespace: raw('OPERATOR_NAMESPACE'),
    operatorLeaseName: raw('OPERATOR_LEASE_NAME'),
    operatorLeaseDurationSeconds: int('OPERATOR_LEASE_DURATION_SECONDS', 2, 3600),
    operatorIdentity: optional('OPERATOR_IDENTITY'),
    operatorConcurrency: int('OPERATOR_CONCURRENCY', 1, 256),
    operatorStatusRefreshMs: int('OPERATOR_STATUS_REFRESH_MS', 100, 3_600_000),
    operatorWatchNamespaces: raw('OPERATOR_WATCH_NAMESPACES')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    operatorQueueQps: int('OPERATOR_QUEUE_QPS', 1, 100_000),
    operatorQueueBurst: int('OPERATOR_QUEUE_BURST', 1, 100_000),
    operatorKubeApiQps: int('OPERATOR_KUBE_API_QPS', 1, 100_000),
    operatorKubeApiBurst: int('OPERATOR_KUBE_API_BURST', 1, 100_000),
    operatorReconcileTimeoutSeconds: int('OPERATOR_RECONCILE_TIMEOUT_SECONDS', 1, 3600),
    operatorWatchFailureUnreadySeconds: int('OPERATOR_WATCH_FAILURE_UNREADY_SECONDS', 1, 86_400),
    operatorWorkerAutoscale: bool('OPERATOR_WORKER_AUTOSCALE'),
    operatorWorkerDeployment: raw('OPERATOR_WORKER_DEPLOYMENT'),
    operatorWorkerMinReplicas: int('OPERATOR_WORKER_MIN_REPLICAS', 0, 10_000),
    operatorWorkerMaxReplicas: int('OPERATOR_WORKER_MAX_REPLICAS', 1, 10_000),
    operatorWorkerPendingPerReplica: int('OPERATOR_WORKER_PENDING_PER_REPLICA', 1, 100_000_000),
    operatorWorkerSubscriptionsPerReplica: int('OPERATOR_WORKER_SUBSCRIPTIONS_PER_REPLICA', 1, 100_000_000),
    operatorWorkerScaleDownCooldownSeconds: int('OPERATOR_WORKER_SCALE_DOWN_COOLDOWN_SECONDS', 0, 86_400),
    operatorWorkerAutoscaleIntervalSeconds: int('OPERATOR_WORKER_AUTOSCALE_INTERVAL_SECONDS', 1, 3600),
    webhookRetryWaitsMs: durations('WEBHOOK_RETRY_WAITS'),
    webhookProbeWaitsMs: durations('WEBHOOK_PROBE_WAITS'),
    webhookDisableAfter: int('WEBHOOK_DISABLE_AFTER', 1, 1_000_000),
    webhookConcurrency: int('WEBHOOK_CONCURRENCY', 1, 100_000),
    webhookConcurrencyPerSubscription: int('WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION', 1, 10_000),
    webhookConcurrencyPerMap: int('WEBHOOK_CONCURRENCY_PER_MAP', 1, 100_000),
    webhookAttemptsRetentionDays: int('WEBHOOK_ATTEMPTS_RETENTION_DAYS', 1, 3650),
    rateLimitPerMinute: int('SERVICE_RATE_LIMIT_PER_MINUTE', 1, 1_000_000),
    trustedProxies: raw('SERVICE_TRUSTED_PROXIES')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    maxBodyBytes: int('SERVICE_MAX_BODY_BYTES', 1024, 100 * 1024 * 1024),
    metricsPublic: bool('SERVICE_METRICS_PUBLIC'),
    readCacheBytes: int('SERVICE_READ_CACHE_MB', 0, 65_536) * 1024 * 1024,
    requestTimeoutMs: int('SERVICE_REQUEST_TIMEOUT_MS', 100, 600_000),
    shutdownDelayMs: int('SERVICE_SHUTDOWN_DELAY_MS', 0, 600_000),
    shutdownTimeoutMs: int('SERVICE_SHUTDOWN_TIMEOUT_MS', 0, 600_000),
    logLevel,
    eventsRelayEnabled: bool('EVENTS_RELAY_ENABLED'),
    eventsRelayPartitions: int('EVENTS_RELAY_PARTITIONS', 1, 1024),
    eventsRelayBatch: int('EVENTS_RELAY_BATCH', 1, 10_000),
    eventsRelayPollMs: int('EVENTS_RELAY_POLL_MS', 10, 60_000),
    eventsRetentionDays: int('EVENTS_RETENTION_DAYS', 1, 3650),
    eventsHotHistory: int('EVENTS_HOT_HISTORY', 100, 10_000_000),
    eventsPartitions: int('EVENTS_PARTITIONS', 1, 1024),
    killsRetentionDays: int('KILLS_RETENTION_DAYS', 1, 3650),
  };
  if (config.operatorWorkerMinReplicas > config.operatorWorkerMaxReplicas)
    problems.push('OPERATOR_WORKER_MIN_REPLICAS must not be more than OPERATOR_WORKER_MAX_REPLICAS');
  if (problems.length) throw new ConfigError(problems);
  return config;
}
