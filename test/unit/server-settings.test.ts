/**
 * The start-up check of what the server gave DATABASE_URL's sessions (src/db/server-settings.ts):
 * without a pooler every setting sent must have arrived; through one (DATABASE_SESSION_URL set) each
 * must come from the role or database, and the refusal names the statements to run.
 */
import { describe, expect, it } from 'vitest';
import { parseServerSettings, serverSettingProblems, type ServerSettings } from '../../src/db/server-settings.js';
import { DEFAULT_DATABASE_TIMEOUTS } from '../../src/db/pg-options.js';

const sent: ServerSettings = {
  statementTimeoutMs: 14_000,
  lockTimeoutMs: 5000,
  idleInTransactionTimeoutMs: 60_000,
  schema: 'public',
  user: 'app',
  database: 'maps',
};
const none: ServerSettings = { ...sent, statementTimeoutMs: 0, lockTimeoutMs: 0, idleInTransactionTimeoutMs: 0 };
const pooled = { ...DEFAULT_DATABASE_TIMEOUTS, transactionPooler: true };

describe('server settings check', () => {
  it('parses the query row: intervals in milliseconds, the schema, user and database', () => {
    expect(parseServerSettings({ statement_timeout_ms: '14000', lock_timeout_ms: 5000.0, idle_ms: '0', schema: null, user: 'u', database: 'd' })).toEqual({
      statementTimeoutMs: 14_000,
      lockTimeoutMs: 5000,
      idleInTransactionTimeoutMs: 0,
      schema: null,
      user: 'u',
      database: 'd',
    });
  });

  it('without a pooler: fine when the server has what was sent', () => {
    expect(serverSettingProblems(sent, DEFAULT_DATABASE_TIMEOUTS, 'public')).toEqual([]);
    // 0 sends nothing: whatever the role has is not compared.
    expect(serverSettingProblems(none, { ...DEFAULT_DATABASE_TIMEOUTS, queryTimeoutMs: 0, lockTimeoutMs: 0, idleInTransactionTimeoutMs: 0 }, 'public')).toEqual(
      [],
    );
  });

  it('without a pooler: lost startup parameters (or the schema) are refused, naming DATABASE_SESSION_URL', () => {
    const [problem, ...rest] = serverSettingProblems(none, DEFAULT_DATABASE_TIMEOUTS, 'public');
    expect(rest).toEqual([]);
    expect(problem).toContain(
      "DATABASE_URL lost the connection's startup parameters (statement_timeout 0 ms where 14000 ms was sent, schema public where public was asked)",
    );
    expect(problem).toContain('Set DATABASE_SESSION_URL');
    expect(serverSettingProblems({ ...sent, schema: 'public' }, DEFAULT_DATABASE_TIMEOUTS, 'tenant_a')[0]).toContain('schema public where tenant_a was asked');
  });

  it('through a pooler: any value set on the role is enough; each missing one is named as an ALTER ROLE', () => {
    expect(serverSettingProblems({ ...sent, statementTimeoutMs: 30_000 }, pooled, 'public')).toEqual([]);
    const [problem] = serverSettingProblems({ ...none, schema: 'public' }, pooled, 'tenant_a');
    expect(problem).toBe(
      'DATABASE_URL goes through a connection pooler (DATABASE_SESSION_URL is set), so these settings must come from the role or database, and the server has none of them: ' +
        `ALTER ROLE "app" IN DATABASE "maps" SET statement_timeout = '14000ms'; ` +
        `ALTER ROLE "app" IN DATABASE "maps" SET lock_timeout = '5000ms'; ` +
        `ALTER ROLE "app" IN DATABASE "maps" SET idle_in_transaction_session_timeout = '60000ms'; ` +
        `ALTER ROLE "app" IN DATABASE "maps" SET search_path = "tenant_a", public; (docs/operations.md#connection-poolers)`,
    );
  });
});
