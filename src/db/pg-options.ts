/**
 * Deadlines and keepalive for every PostgreSQL connection the process opens: the ORM pool, the event
 * relay's pool and LISTEN session, and the one-off client of ensureSchema all build their options here.
 *
 * A database that stops answering on an open connection (TCP up, no bytes back) would otherwise hold
 * a request, a pooled connection and shutdown forever. Two layers bound that:
 * - server side, PostgreSQL cancels a statement itself (statement_timeout, lock_timeout) and ends a
 *   session left in an open transaction (idle_in_transaction_session_timeout): the connection survives;
 * - client side, a query with no answer at its deadline destroys its connection (DeadlineClient), so
 *   the caller gets an error at once and the pool replaces the connection instead of reusing it.
 */
import pg from 'pg';
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { loadConfig, type Config, type DatabaseSslMode } from '../common/config.js';
import { preparedName } from './prepared.js';

export interface DatabaseTimeouts {
  /** Opening a connection, or waiting for a free one in a pool. */
  connectTimeoutMs: number;
  /** Client-side deadline of each query; 0 = none (and no statement_timeout either). */
  queryTimeoutMs: number;
  /** lock_timeout; 0 = not set. */
  lockTimeoutMs: number;
  /** idle_in_transaction_session_timeout; 0 = not set. */
  idleInTransactionTimeoutMs: number;
  /** Not a timeout, but a setting of every connection alike: registered statements run as named prepared statements (default false). */
  preparedStatements?: boolean;
  /**
   * The connection goes through a pooler in transaction mode (DATABASE_SESSION_URL is set): it sends
   * no startup parameters (PgBouncer refuses `options`, or drops it with ignore_startup_parameters, and
   * a `SET` would leak onto other clients' server connections); the role or database carries them
   * instead, checked at start (server-settings.ts).
   */
  transactionPooler?: boolean;
  /** DATABASE_SSL_MODE and the PEM text of DATABASE_CA_FILE; undefined: as the URL says. */
  tls?: { mode: DatabaseSslMode; ca?: string };
}

/**
 * node-postgres's `ssl` for a libpq sslmode. As libpq: `require` with a CA file verifies the chain
 * (like verify-ca), without one it only encrypts; verify-ca checks the chain and not the host name.
 */
export function pgSsl(tls: NonNullable<DatabaseTimeouts['tls']>): false | ConnectionOptions {
  if (tls.mode === 'disable') return false;
  const ca = tls.ca !== undefined ? { ca: tls.ca } : {};
  if (tls.mode === 'require' && tls.ca === undefined) return { rejectUnauthorized: false };
  if (tls.mode === 'verify-full') return { ...ca, rejectUnauthorized: true };
  return { ...ca, rejectUnauthorized: true, checkServerIdentity: () => undefined };
}

export function databaseTimeouts(config: Config): DatabaseTimeouts {
  return {
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    lockTimeoutMs: config.databaseLockTimeoutMs,
    idleInTransactionTimeoutMs: config.databaseIdleInTransactionTimeoutMs,
    preparedStatements: config.databasePreparedStatements,
    transactionPooler: config.databaseSessionUrl !== undefined,
    tls: config.databaseSslMode
      ? { mode: config.databaseSslMode, ...(config.databaseCaFile ? { ca: readFileSync(config.databaseCaFile, 'utf8') } : {}) }
      : undefined,
  };
}

/** The same settings for a session connection (DATABASE_SESSION_URL, or DATABASE_URL without a pooler). */
export function sessionTimeouts(t: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS): DatabaseTimeouts {
  return { ...t, transactionPooler: false };
}

/** The documented defaults (SETTINGS), for callers built without a Config (tests, tools). */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = databaseTimeouts(loadConfig({}));

/**
 * Idle time before the first keepalive probe. Node then probes 10 times 1 s apart, so a peer that
 * vanished (failover, dropped NAT entry) errors an idle connection, such as the relay's LISTEN session,
 * in about 20 s instead of the kernel's two hours.
 */
export const KEEPALIVE_INITIAL_DELAY_MS = 10_000;

/**
 * PostgreSQL cancels a statement a little before the client gives up on it (a tenth, at most 1 s):
 * a statement that is merely slow then fails with 57014 and its connection stays usable; only a
 * connection that does not answer at all reaches the client deadline and is dropped.
 */
export function statementTimeoutMs(queryTimeoutMs: number): number {
  return queryTimeoutMs - Math.min(1000, Math.ceil(queryTimeoutMs / 10));
}

/** `-c name=value` startup parameters for the server side of a connection, after `base` (search_path …). */
export function serverOptions(t: DatabaseTimeouts, base?: string): string {
  // 0 sends nothing rather than `=0`: a default the operator set on the role or database still applies.
  const params: [string, number][] = [
    ['statement_timeout', t.queryTimeoutMs ? statementTimeoutMs(t.queryTimeoutMs) : 0],
    ['lock_timeout', t.lockTimeoutMs],
    ['idle_in_transaction_session_timeout', t.idleInTransactionTimeoutMs],
    // The server's keepalive, in seconds: a session whose client vanished (the relay's, holding its
    // partition lock) ends in about 20 s instead of the kernel's two hours.
    ['tcp_keepalives_idle', KEEPALIVE_INITIAL_DELAY_MS / 1000],
    ['tcp_keepalives_interval', 1],
    ['tcp_keepalives_count', 10],
  ];
  // No JIT compilation: every statement here is short, and a planner estimate far above the real cost
  // (the consumer's catch-up read over thousands of maps, say) made PostgreSQL compile first, 180 ms.
  return [base, ...params.filter(([, v]) => v > 0).map(([name, v]) => `-c ${name}=${v}`), '-c jit=off'].filter(Boolean).join(' ');
}

export interface DeadlineClientConfig extends pg.ClientConfig {
  /** Client-side deadline of each query (ms); 0 = none. */
  queryDeadlineMs?: number;
  /** How long a goodbye (end()) may take before the socket is destroyed (ms). */
  closeGraceMs?: number;
  /** Texts registered with `prepared` (src/db/prepared.ts) run as named prepared statements. */
  preparedStatements?: boolean;
}

/**
 * Connection options for pg.Pool (whose options reach each client) and pg.Client: keepalive, connect
 * timeout, server-side timeouts, and DeadlineClient as the pool's client class. `baseOptions` are the
 * caller's own `-c` startup parameters (search_path, planner settings).
 */
export function pgConnectionOptions(
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
  baseOptions?: string,
): DeadlineClientConfig & { Client: typeof DeadlineClient } {
  return {
    Client: DeadlineClient,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    options: timeouts.transactionPooler ? undefined : serverOptions(timeouts, baseOptions),
    queryDeadlineMs: timeouts.queryTimeoutMs,
    // A goodbye that takes longer than connecting may take is not coming.
    closeGraceMs: timeouts.connectTimeoutMs,
    preparedStatements: timeouts.preparedStatements,
    ...(timeouts.tls ? { ssl: pgSsl(timeouts.tls) } : {}),
  };
}

/** A single connection (not pooled) with the same options. */
export function pgClient(connectionString: string, timeouts?: DatabaseTimeouts, baseOptions?: string): DeadlineClient {
  const { Client: _client, ...config } = pgConnectionOptions(timeouts, baseOptions);
  return new DeadlineClient({ connectionString, ...config });
}

/** The error a query rejects with when its connection gave no answer by the deadline. */
export class QueryDeadlineError extends Error {
  /** Translated to 503 dependency_unavailable by toAppError. */
  readonly code = 'query_deadline_exceeded';
  constructor(readonly deadlineMs: number) {
    super(`Database query got no answer within ${deadlineMs} ms; connection dropped`);
    this.name = 'QueryDeadlineError';
  }
}

/** Every DeadlineClient of the process with an open socket (see dropDatabaseConnections). */
const openClients = new Set<DeadlineClient>();

/**
 * Destroys the socket of every PostgreSQL connection this process still has open. For the end of a
 * shutdown whose orderly close ran out of time: whatever is left is not coming back.
 */
export function dropDatabaseConnections(): number {
  const n = openClients.size;
  for (const client of openClients) client.destroySocket();
  openClients.clear();
  return n;
}

type Callback = (err: Error | null, res?: unknown) => void;
type AnyQuery = (...args: unknown[]) => unknown;

/**
 * pg.Client whose queries have a deadline. pg's own `query_timeout` only rejects the caller: the
 * connection keeps waiting for the lost answer, goes back to the pool and blocks whoever takes it next.
 * Here the socket is destroyed instead; the query rejects with QueryDeadlineError, the client is no
 * longer queryable, and pg-pool discards it on release. end() is bounded the same way: on a silent
 * connection the goodbye would wait for a FIN that never comes.
 */
export class DeadlineClient extends pg.Client {
  private readonly queryDeadlineMs: number;
  private readonly closeGraceMs: number;
  private readonly preparedStatements: boolean;

  constructor(config: DeadlineClientConfig = {}) {
    // The config goes on as it is: pg-pool hands its clients options whose password is not enumerable,
    // so a copy ({ ...config }) would lose it. pg ignores the two keys of ours.
    super(config);
    this.queryDeadlineMs = config.queryDeadlineMs ?? 0;
    this.closeGraceMs = config.closeGraceMs ?? 5000;
    this.preparedStatements = config.preparedStatements ?? false;
  }

  override connect(): Promise<pg.Client>;
  override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
  override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
    openClients.add(this);
    this.once('end', () => openClients.delete(this));
    return callback ? super.connect(callback) : super.connect();
  }

  override query(...args: unknown[]): any {
    const base = super.query.bind(this) as AnyQuery;
    // A registered text with its values (how Kysely, and so the ORM, and pg.Pool#query call it) runs as a
    // named statement: pg parses it on this connection once and then only binds and executes it.
    // (DeadlineClient is the class of every pool and client built with pgConnectionOptions.)
    if (this.preparedStatements && typeof args[0] === 'string' && (args[1] === undefined || Array.isArray(args[1]))) {
      const name = preparedName(args[0]);
      // pg.Pool#query passes a callback third.
      if (name) args = [{ name, text: args[0], values: args[1] ?? [] }, ...(typeof args[2] === 'function' ? [args[2]] : [])];
    }
    const ms = this.queryDeadlineMs;
    const first = args[0] as { submit?: unknown } | undefined;
    // Submittables (cursors) stay open across round trips while the caller reads at its own pace:
    // statement_timeout still bounds each of their statements.
    if (!ms || typeof first?.submit === 'function') return base(...args);
    let settled = false;
    const settle = () => {
      settled = true;
      clearTimeout(timer);
    };
    const timer = setTimeout(() => {
      if (!settled) this.destroySocket(new QueryDeadlineError(ms));
    }, ms);
    const at = typeof args[2] === 'function' ? 2 : typeof args[1] === 'function' ? 1 : -1;
    if (at >= 0) {
      const callback = args[at] as Callback;
      args[at] = (err: Error | null, res?: unknown) => {
        settle();
        callback(err, res);
      };
    }
    const result = base(...args);
    if (at < 0) {
      if (result && typeof (result as Promise<unknown>).then === 'function') void (result as Promise<unknown>).then(settle, settle);
      else settle(); // a config-object callback we cannot see: leave it to statement_timeout
    }
    return result;
  }

  override end(): Promise<void>;
  override end(callback: (err: Error) => void): void;
  override end(callback?: (err: Error) => void): Promise<void> | void {
    const timer = setTimeout(() => this.destroySocket(), this.closeGraceMs);
    timer.unref();
    this.connection.once('end', () => clearTimeout(timer));
    return callback ? super.end(callback) : super.end();
  }

  /** Destroys the socket: pending queries reject (with `err` when given) and the client ends. */
  destroySocket(err?: Error): void {
    openClients.delete(this);
    this.connection.stream.destroy(err);
  }
}
