/**
 * The start-up check that the PostgreSQL sessions behind DATABASE_URL carry the settings the process
 * relies on: server-side timeouts and the schema. Through a connection pooler in transaction mode
 * they cannot come from the connection (pg-options.ts), and a pooler that silently drops startup
 * parameters (PgBouncer's ignore_startup_parameters = options) would leave every statement without a
 * server deadline and the relay's locks on shared connections, with nothing logged. So the process
 * asks the server what it got and refuses to start, saying what to set, when it is not what it needs.
 */
import { ConfigError } from '../common/config.js';
import { statementTimeoutMs, type DatabaseTimeouts } from './pg-options.js';

export interface ServerSettings {
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  /** current_schema(): the first schema of search_path that exists. */
  schema: string | null;
  user: string;
  database: string;
}

/** The query that reads them (each `*_timeout` in milliseconds). */
export const SERVER_SETTINGS_SQL = `select
  extract(epoch from current_setting('statement_timeout')::interval) * 1000 as statement_timeout_ms,
  extract(epoch from current_setting('lock_timeout')::interval) * 1000 as lock_timeout_ms,
  extract(epoch from current_setting('idle_in_transaction_session_timeout')::interval) * 1000 as idle_ms,
  current_schema() as schema, current_user as "user", current_database() as database`;

export function parseServerSettings(row: Record<string, unknown>): ServerSettings {
  return {
    statementTimeoutMs: Math.round(Number(row.statement_timeout_ms)),
    lockTimeoutMs: Math.round(Number(row.lock_timeout_ms)),
    idleInTransactionTimeoutMs: Math.round(Number(row.idle_ms)),
    schema: (row.schema as string | null) ?? null,
    user: String(row.user),
    database: String(row.database),
  };
}

const POOLER_DOC = 'docs/operations.md#connection-poolers';

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Problems with what the server gave (empty: fine). `timeouts.transactionPooler` says whether the
 * connection sent its settings itself (no pooler: they must have arrived as sent) or relies on the
 * role or database (pooler: each must be set, and the schema must be found).
 */
export function serverSettingProblems(got: ServerSettings, want: DatabaseTimeouts, schema: string): string[] {
  const statement = want.queryTimeoutMs ? statementTimeoutMs(want.queryTimeoutMs) : 0;
  if (!want.transactionPooler) {
    // Only what was sent can be compared: 0 sends nothing, and a role's own default applies then.
    const dropped =
      (statement > 0 && got.statementTimeoutMs !== statement) ||
      (want.lockTimeoutMs > 0 && got.lockTimeoutMs !== want.lockTimeoutMs) ||
      (want.idleInTransactionTimeoutMs > 0 && got.idleInTransactionTimeoutMs !== want.idleInTransactionTimeoutMs) ||
      (schema !== 'public' && got.schema !== schema);
    if (!dropped) return [];
    return [
      `DATABASE_URL lost the connection's startup parameters (statement_timeout ${got.statementTimeoutMs} ms where ${statement} ms was sent, ` +
        `schema ${got.schema ?? 'none'} where ${schema} was asked): a connection pooler in transaction mode that ignores them ` +
        `(PgBouncer with ignore_startup_parameters = options) sits in between. Set DATABASE_SESSION_URL to a direct connection ` +
        `to the same database and the settings on the role (${POOLER_DOC})`,
    ];
  }
  const missing: string[] = [];
  if (statement > 0 && got.statementTimeoutMs === 0) missing.push(`statement_timeout = '${statement}ms'`);
  if (want.lockTimeoutMs > 0 && got.lockTimeoutMs === 0) missing.push(`lock_timeout = '${want.lockTimeoutMs}ms'`);
  if (want.idleInTransactionTimeoutMs > 0 && got.idleInTransactionTimeoutMs === 0) {
    missing.push(`idle_in_transaction_session_timeout = '${want.idleInTransactionTimeoutMs}ms'`);
  }
  if (got.schema !== schema) missing.push(`search_path = ${quoteIdent(schema)}, public`);
  if (!missing.length) return [];
  const target = `ROLE ${quoteIdent(got.user)} IN DATABASE ${quoteIdent(got.database)}`;
  return [
    `DATABASE_URL goes through a connection pooler (DATABASE_SESSION_URL is set), so these settings must come from the role or database, ` +
      `and the server has none of them: ${missing.map((m) => `ALTER ${target} SET ${m};`).join(' ')} (${POOLER_DOC})`,
  ];
}

/** Reads the settings with `query` (a statement on a DATABASE_URL connection) and throws ConfigError on a problem. */
export async function checkServerSettings(query: (sql: string) => Promise<Record<string, unknown>[]>, want: DatabaseTimeouts, schema: string): Promise<void> {
  const rows = await query(SERVER_SETTINGS_SQL);
  const problems = serverSettingProblems(parseServerSettings(rows[0] ?? {}), want, schema);
  if (problems.length) throw new ConfigError(problems);
}
