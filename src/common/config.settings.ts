/**
 * Every setting of the service, declared once: name, meaning, default (as the docs write it) and unit.
 * src/common/config.ts reads them; docs/configuration.md lists the same table and a test keeps the two in step.
 */

import { OPERATOR_SETTINGS } from './config.settings.operator.js';
import type { Setting } from './setting.js';

export type { Setting } from './setting.js';

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
  {
    name: 'DATABASE_SESSION_URL',
    meaning:
      "PostgreSQL connection string of a session (a direct connection, or a pooler in session mode) to the same database, for what needs one: the event relay's LISTEN and partition locks, the webhook workers' partition leases and the migrations' lock. Set it when DATABASE_URL goes through a connection pooler in transaction mode (PgBouncer's pool_mode = transaction): DATABASE_URL connections then send no startup parameters, and the process refuses to start unless statement_timeout, lock_timeout, idle_in_transaction_session_timeout and search_path come from the role or database (docs/operations.md#connection-poolers)",
    default: '',
    unit: 'URL',
  },
  {
    name: 'DATABASE_SSL_MODE',
    meaning:
      "TLS to PostgreSQL, as libpq's sslmode: disable, require (encrypted, the server not verified unless DATABASE_CA_FILE is set), verify-ca (its certificate signed by DATABASE_CA_FILE, or a public root), verify-full (verify-ca and the host name matches). Unset: what DATABASE_URL's own sslmode says (plain without one). Every connection alike, DATABASE_SESSION_URL's too; refused beside an sslmode in either URL",
    default: '',
    unit: 'mode',
  },
  {
    name: 'DATABASE_CA_FILE',
    meaning:
      "PEM file of the CA certificates PostgreSQL's server certificate is checked against (with DATABASE_SSL_MODE require, verify-ca or verify-full); unset: the public roots",
    default: '',
    unit: 'path',
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
  {
    name: 'REDIS_CA_FILE',
    meaning:
      "PEM file of the CA certificates Redis's server certificate is checked against, with a rediss:// REDIS_URL (TLS; the host name must match); unset: the public roots",
    default: '',
    unit: 'path',
  },
  { name: 'REDIS_KEY_PREFIX', meaning: 'Prefix of every Redis key this service writes', default: 'mapintel:', unit: 'string' },
  {
    name: 'REDIS_CLUSTER',
    meaning: 'REDIS_URL names a node of a Redis Cluster (any node; the others are discovered); a process refuses to start when this does not match the server',
    default: 'false',
    unit: 'boolean',
  },
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
    name: 'STREAM_BACKFILL_BUDGET_BYTES',
    meaning:
      'Bytes of replay pages one stream process holds at once for resuming clients (each reads about 256 KB at a time, after its client took the page before); a resume waits for room',
    default: '67108864',
    unit: 'bytes',
  },
  {
    name: 'STREAM_HEAP_GROWTH_PERCENT',
    meaning:
      "How far a process running the stream role lets its JavaScript heap grow past what was live after a full collection before the next one (V8's `--heap-growing-percent`); 0 leaves V8's own factor (up to 4 ×). Stream connections live long: a low factor keeps what a burst of connects leaves behind near what the connections hold",
    default: '20',
    unit: 'percent',
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
    name: 'WEBHOOK_PROBE_WAITS',
    meaning:
      'A subscription disabled after failures is probed with a signed ping this long after the disable, then after each wait in turn (the last repeats), for a day; a 2xx answer resumes it',
    default: '1m,5m,15m,30m,1h,2h,4h,8h',
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
  {
    name: 'WEBHOOK_CONCURRENCY_PER_MAP',
    meaning:
      "Delivery attempts in flight per map (all its subscriptions) and worker process, so one map's slow receivers leave the other slots to other maps (half the default WEBHOOK_CONCURRENCY)",
    default: '64',
    unit: 'requests',
  },
  { name: 'WEBHOOK_ATTEMPTS_RETENTION_DAYS', meaning: 'Days the delivery attempt log is kept', default: '7', unit: 'days' },
  ...OPERATOR_SETTINGS,
  {
    name: 'SERVICE_RATE_LIMIT_PER_MINUTE',
    meaning: 'API requests allowed per valid API key (or per client address without a valid key) per minute',
    default: '100',
    unit: 'requests/minute',
  },
  {
    name: 'SERVICE_TRUSTED_PROXIES',
    meaning:
      "Comma-separated proxy addresses/CIDRs whose X-Forwarded-For is trusted for the client address; set it behind any proxy or Ingress (the chart requires it with its Ingress: `ingress.trustedProxies`), else every client shares the proxy's address for rate limits",
    default: '',
    unit: 'list',
  },
  {
    name: 'SERVICE_MAX_BODY_BYTES',
    meaning:
      'Largest accepted request body of the batch endpoints (kill import, system batch, signature batch); every other endpoint takes at most 128 KiB (or this, when smaller). Larger bodies get 413',
    default: '1048576',
    unit: 'bytes',
  },
  {
    name: 'SERVICE_METRICS_PUBLIC',
    meaning: 'Also serve /metrics on the public port (PORT), unauthenticated and without a rate limit; off, it is served on the ops port only',
    default: 'false',
    unit: 'boolean',
  },
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
    name: 'SERVICE_SHUTDOWN_DELAY_MS',
    meaning:
      'After SIGTERM, how long the public port keeps serving before the shutdown proper: /readyz answers 503 at once and every response closes its connection, so a load balancer or a Kubernetes Service stops sending new requests first (the chart sets 5000)',
    default: '0',
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
  {
    name: 'EVENTS_PARTITIONS',
    meaning:
      "Partition streams of the Redis transport: every event is copied to the stream of its map's partition, which the webhook workers read, each worker planning the partitions it holds; every process must use the same value",
    default: '16',
    unit: 'count',
  },
  { name: 'LOG_LEVEL', meaning: 'pino log level (fatal, error, warn, info, debug, trace, silent)', default: 'info', unit: 'level' },
] as const;
