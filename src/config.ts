/**
 * The one typed configuration module. Nothing else reads `process.env`.
 * Every setting is declared once in SETTINGS (name, meaning, default, unit); docs/configuration.md
 * lists the same table and a test keeps the two in step.
 */

import { BEARER_TOKEN_CHARACTERS, BEARER_TOKEN_RE } from './crypto.js';

export interface Setting {
  name: string;
  meaning: string;
  /** Default as written in the docs; '' means unset. */
  default: string;
  unit: string;
}

export const SETTINGS: readonly Setting[] = [
  { name: 'PORT', meaning: 'TCP port the HTTP server listens on', default: '8080', unit: 'port' },
  { name: 'HOST', meaning: 'Address the HTTP server binds to', default: '0.0.0.0', unit: 'address' },
  {
    name: 'OPS_PORT',
    meaning: 'Internal ops port of every process, whatever its roles: /healthz, /readyz and /metrics (0 picks a free port)',
    default: '8081',
    unit: 'port',
  },
  { name: 'OPS_HOST', meaning: 'Address the ops port binds to', default: '0.0.0.0', unit: 'address' },
  {
    name: 'PUBLIC_BASE_URL',
    meaning: 'Base URL printed for humans (swagger address, demo output); derived from HOST and PORT when unset',
    default: '',
    unit: 'URL',
  },
  {
    name: 'DATABASE_URL',
    meaning: 'PostgreSQL connection string; when unset an embedded PostgreSQL runs under DATA_DIR',
    default: '',
    unit: 'URL',
  },
  { name: 'DATABASE_POOL_MAX', meaning: 'Maximum PostgreSQL connections per process', default: '10', unit: 'connections' },
  {
    name: 'DATABASE_POOL_MIN',
    meaning:
      'PostgreSQL connections per process kept open while idle (at most DATABASE_POOL_MAX; the event relay keeps one more of its own when this is above 0): the first statement after a quiet spell does not wait for a new connection and its cold caches. 0 closes every idle connection after 30 s',
    default: '2',
    unit: 'connections',
  },
  {
    name: 'DATABASE_PREPARED_STATEMENTS',
    meaning:
      "Run the webhook worker's and the event relay's frequent statements as named prepared statements, parsed once per connection: a fifth to a third less PostgreSQL CPU per webhook delivery (docs/benchmarks.md). Off by default: a connection pooler in transaction mode may not keep prepared statements (PgBouncer before 1.21, or without max_prepared_statements), and in the co-located benchmark the worker's own saturation fell",
    default: 'false',
    unit: 'boolean',
  },
  {
    name: 'DATABASE_CONNECT_TIMEOUT_MS',
    meaning: 'How long opening a PostgreSQL connection, or waiting for a free one in the pool, may take before the request answers 503',
    default: '5000',
    unit: 'milliseconds',
  },
  {
    name: 'DATABASE_QUERY_TIMEOUT_MS',
    meaning:
      'Deadline of every query: PostgreSQL cancels a statement shortly before it (statement_timeout), and a connection that has not answered by then is dropped and replaced; the request answers 503. 0 switches both off',
    default: '15000',
    unit: 'milliseconds',
  },
  {
    name: 'DATABASE_LOCK_TIMEOUT_MS',
    meaning: 'Longest wait of a statement for a row or table lock (lock_timeout) before it fails with 503; 0 leaves it to the query deadline',
    default: '5000',
    unit: 'milliseconds',
  },
  {
    name: 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS',
    meaning:
      'PostgreSQL ends a session left this long in an open transaction without a statement, releasing its locks (idle_in_transaction_session_timeout); 0 switches it off',
    default: '60000',
    unit: 'milliseconds',
  },
  {
    name: 'DATABASE_SCHEMA',
    meaning: 'PostgreSQL schema holding the tables (tests use one per file)',
    default: 'public',
    unit: 'identifier',
  },
  {
    name: 'DATA_DIR',
    meaning: 'Directory of the embedded default: PostgreSQL data, generated encryption key and admin token',
    default: './data',
    unit: 'path',
  },
  {
    name: 'EMBEDDED_PG_PORT',
    meaning: 'Port of the embedded PostgreSQL (loopback only); below 32768, where no system hands out ports to outgoing connections',
    default: '25432',
    unit: 'port',
  },
  {
    name: 'REDIS_URL',
    meaning: 'Redis connection string; when unset rate limits and the event transport run in-process (single process only)',
    default: '',
    unit: 'URL',
  },
  { name: 'REDIS_KEY_PREFIX', meaning: 'Prefix of every Redis key this service writes', default: 'mapintel:', unit: 'string' },
  {
    name: 'SERVICE_ADMIN_TOKEN',
    meaning: 'Bearer token of the /api/admin surface; with the embedded default one is generated and kept under DATA_DIR',
    default: '',
    unit: 'secret',
  },
  {
    name: 'SERVICE_ENCRYPTION_KEY',
    meaning: 'Key encrypting ACL keys and webhook secrets at rest: 32 bytes, base64; with the embedded default one is generated and kept under DATA_DIR',
    default: '',
    unit: 'base64',
  },
  {
    name: 'SERVICE_CHARACTER_API_DISABLED',
    meaning: 'Switches GET /api/characters off (403 character_api_disabled)',
    default: 'false',
    unit: 'boolean',
  },
  { name: 'SERVICE_SSE_ENABLED', meaning: 'Enables the event stream endpoint', default: 'false', unit: 'boolean' },
  { name: 'STREAM_MAX_PER_MAP', meaning: 'Live stream connections allowed per map, across every stream process', default: '50', unit: 'connections' },
  { name: 'STREAM_MAX_PER_KEY', meaning: 'Live stream connections allowed per API key, across every stream process', default: '10', unit: 'connections' },
  { name: 'STREAM_MAX_PER_PROCESS', meaning: 'Live stream connections one process holds at most', default: '20000', unit: 'connections' },
  {
    name: 'STREAM_LEASE_MS',
    meaning:
      "How long a stream connection's cap slot outlives its process: the lease is renewed every third of this while the connection is open, and a dead process's slots are free again within it",
    default: '25000',
    unit: 'milliseconds',
  },
  {
    name: 'STREAM_KEEPALIVE_MS',
    meaning:
      'A `: keepalive` comment goes to a stream after this long without a frame; a client that takes no byte of its replay for twice this long is disconnected (it resumes with its last id)',
    default: '15000',
    unit: 'milliseconds',
  },
  { name: 'STREAM_RETRY_MS', meaning: 'Reconnection delay sent to stream clients (`retry:`)', default: '3000', unit: 'milliseconds' },
  {
    name: 'STREAM_BACKFILL_MAX',
    meaning: 'Events a resuming stream client may be behind; further behind it gets `event: reset`',
    default: '10000',
    unit: 'events',
  },
  {
    name: 'STREAM_MAX_BUFFER_BYTES',
    meaning: 'A stream client whose unsent bytes pass this is disconnected (it resumes with its last id)',
    default: '1048576',
    unit: 'bytes',
  },
  { name: 'SERVICE_WEBHOOKS_ENABLED', meaning: 'Enables webhook management and delivery', default: 'false', unit: 'boolean' },
  {
    name: 'SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS',
    meaning:
      'Development and tests only: accept http:// webhook URLs and addresses that are not public (loopback, private, link-local…); `mapintel demo` (`make run`) defaults it to true',
    default: 'false',
    unit: 'boolean',
  },
  {
    name: 'WEBHOOK_TIMEOUT_MS',
    meaning: 'A delivery attempt fails when the receiver has not answered with a 2xx within this time',
    default: '10000',
    unit: 'milliseconds',
  },
  {
    name: 'WEBHOOK_RETRY_WAITS',
    meaning: 'Waits before attempts 2, 3, … (comma list; each gets 0–20 % jitter); their count + 1 is the number of attempts',
    default: '1s,5s,30s,2m,10m,30m,1h,3h,6h',
    unit: 'durations',
  },
  {
    name: 'WEBHOOK_DISABLE_AFTER',
    meaning: 'A subscription is set inactive after this many consecutive events exhausted their attempts',
    default: '10',
    unit: 'events',
  },
  { name: 'WEBHOOK_CONCURRENCY', meaning: 'Delivery attempts in flight per worker process', default: '128', unit: 'requests' },
  {
    name: 'WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION',
    meaning:
      'Delivery attempts in flight per subscription and worker process, so one slow receiver cannot take every slot (a quarter of the default WEBHOOK_CONCURRENCY)',
    default: '32',
    unit: 'requests',
  },
  { name: 'WEBHOOK_ATTEMPTS_RETENTION_DAYS', meaning: 'Days the delivery attempt log is kept', default: '7', unit: 'days' },
  {
    name: 'KUBECONFIG',
    meaning: 'Operator: kubeconfig file of the cluster to reconcile; when unset, the in-cluster ServiceAccount (or ~/.kube/config outside a cluster)',
    default: '',
    unit: 'path',
  },
  {
    name: 'OPERATOR_NAMESPACE',
    meaning: 'Operator: namespace of its leader-election Lease (the chart sets the release namespace)',
    default: 'default',
    unit: 'name',
  },
  { name: 'OPERATOR_LEASE_NAME', meaning: 'Operator: name of the leader-election Lease', default: 'mapintel-operator', unit: 'name' },
  {
    name: 'OPERATOR_LEASE_DURATION_SECONDS',
    meaning: 'Operator: a leader that stops renewing loses the Lease after this long; the leader renews every fifth of it',
    default: '15',
    unit: 'seconds',
  },
  {
    name: 'OPERATOR_IDENTITY',
    meaning: 'Operator: holder identity in the Lease (the chart sets the pod name); host name and process id when unset',
    default: '',
    unit: 'string',
  },
  { name: 'OPERATOR_CONCURRENCY', meaning: 'Operator: resources reconciled at once', default: '4', unit: 'reconciles' },
  {
    name: 'OPERATOR_STATUS_REFRESH_MS',
    meaning: 'Operator: how often delivery state (last delivery, failures, last error) is compared with the resources’ status',
    default: '5000',
    unit: 'milliseconds',
  },
  {
    name: 'SERVICE_RATE_LIMIT_PER_MINUTE',
    meaning: 'API requests allowed per valid API key (or per client address without a valid key) per minute',
    default: '100',
    unit: 'requests/minute',
  },
  {
    name: 'SERVICE_TRUSTED_PROXIES',
    meaning: 'Comma-separated proxy addresses/CIDRs whose X-Forwarded-For is trusted for the client address',
    default: '',
    unit: 'list',
  },
  { name: 'SERVICE_MAX_BODY_BYTES', meaning: 'Largest accepted request body; larger bodies get 413', default: '1048576', unit: 'bytes' },
  {
    name: 'SERVICE_READ_CACHE_MB',
    meaning:
      'Memory of each api process for serialised map reads, kept while the map is unchanged (least recently used first out); 0 switches the cache off (ETags stay)',
    default: '64',
    unit: 'MiB',
  },
  {
    name: 'SERVICE_REQUEST_TIMEOUT_MS',
    meaning: 'Time a client has to send a whole request (headers and body); a slower one gets 408 and its connection is closed',
    default: '30000',
    unit: 'milliseconds',
  },
  {
    name: 'SERVICE_SHUTDOWN_TIMEOUT_MS',
    meaning:
      'How long SIGTERM may take: in-flight requests finish, then the relay and the pools close (closing gets at least 1 s); connections still open after that are dropped',
    default: '10000',
    unit: 'milliseconds',
  },
  {
    name: 'EVENTS_RELAY_ENABLED',
    meaning: 'Run the event relay (outbox → transport) in this process; one relay per partition is active across all processes',
    default: 'true',
    unit: 'boolean',
  },
  { name: 'EVENTS_RELAY_PARTITIONS', meaning: 'Partitions of maps for the relay (each has one active relay)', default: '1', unit: 'count' },
  { name: 'EVENTS_RELAY_BATCH', meaning: 'Events the relay assigns and publishes per round trip', default: '500', unit: 'events' },
  {
    name: 'EVENTS_RELAY_POLL_MS',
    meaning: 'Safety poll of the relay when no NOTIFY arrives',
    default: '1000',
    unit: 'milliseconds',
  },
  { name: 'EVENTS_RETENTION_DAYS', meaning: 'Days the event log keeps published events in PostgreSQL', default: '7', unit: 'days' },
  {
    name: 'KILLS_RETENTION_DAYS',
    meaning: 'Days kills are kept (by kill_time); older ones are deleted hourly, in batches, by the relay holding partition 0',
    default: '30',
    unit: 'days',
  },
  { name: 'EVENTS_HOT_HISTORY', meaning: 'Events kept per map in the transport (Redis stream MAXLEN ~)', default: '10000', unit: 'events' },
  { name: 'LOG_LEVEL', meaning: 'pino log level (fatal, error, warn, info, debug, trace, silent)', default: 'info', unit: 'level' },
] as const;

export interface Config {
  port: number;
  host: string;
  opsPort: number;
  opsHost: string;
  publicBaseUrl: string;
  databaseUrl: string | undefined;
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
  /** Waits before attempts 2, 3, … in milliseconds. */
  webhookRetryWaitsMs: number[];
  webhookDisableAfter: number;
  webhookConcurrency: number;
  webhookConcurrencyPerSubscription: number;
  webhookAttemptsRetentionDays: number;
  rateLimitPerMinute: number;
  trustedProxies: string[];
  maxBodyBytes: number;
  /** Bytes of serialised map reads each api process keeps (0: no cache). */
  readCacheBytes: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  logLevel: string;
  eventsRelayEnabled: boolean;
  eventsRelayPartitions: number;
  eventsRelayBatch: number;
  eventsRelayPollMs: number;
  eventsRetentionDays: number;
  eventsHotHistory: number;
  killsRetentionDays: number;
}

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
  const redisUrl = optional('REDIS_URL');
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
    webhookRetryWaitsMs: durations('WEBHOOK_RETRY_WAITS'),
    webhookDisableAfter: int('WEBHOOK_DISABLE_AFTER', 1, 1_000_000),
    webhookConcurrency: int('WEBHOOK_CONCURRENCY', 1, 100_000),
    webhookConcurrencyPerSubscription: int('WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION', 1, 10_000),
    webhookAttemptsRetentionDays: int('WEBHOOK_ATTEMPTS_RETENTION_DAYS', 1, 3650),
    rateLimitPerMinute: int('SERVICE_RATE_LIMIT_PER_MINUTE', 1, 1_000_000),
    trustedProxies: raw('SERVICE_TRUSTED_PROXIES')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    maxBodyBytes: int('SERVICE_MAX_BODY_BYTES', 1024, 100 * 1024 * 1024),
    readCacheBytes: int('SERVICE_READ_CACHE_MB', 0, 65_536) * 1024 * 1024,
    requestTimeoutMs: int('SERVICE_REQUEST_TIMEOUT_MS', 100, 600_000),
    shutdownTimeoutMs: int('SERVICE_SHUTDOWN_TIMEOUT_MS', 0, 600_000),
    logLevel,
    eventsRelayEnabled: bool('EVENTS_RELAY_ENABLED'),
    eventsRelayPartitions: int('EVENTS_RELAY_PARTITIONS', 1, 1024),
    eventsRelayBatch: int('EVENTS_RELAY_BATCH', 1, 10_000),
    eventsRelayPollMs: int('EVENTS_RELAY_POLL_MS', 10, 60_000),
    eventsRetentionDays: int('EVENTS_RETENTION_DAYS', 1, 3650),
    eventsHotHistory: int('EVENTS_HOT_HISTORY', 100, 10_000_000),
    killsRetentionDays: int('KILLS_RETENTION_DAYS', 1, 3650),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}
