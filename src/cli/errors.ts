import { ConfigError } from '../common/config.js';
import { EmbeddedPostgresError } from '../db/embedded.js';
import { PendingMigrationsError } from '../core/core.js';
import { RoleSelectionError } from '../roles/registry.js';
import { RedisModeError } from '../redis/redis.js';

/** How a failed command ends: one line with the cause, maybe a hint, and an exit code. */
export interface Failure {
  line: string;
  hint: string | undefined;
  exitCode: number;
}

/** A message from any thrown value (an Error, a string, undefined, an object without fields…). */
function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string') return err;
  if (err && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') return (err as { message: string }).message;
  if (err === undefined || err === null) return 'the command failed without saying why';
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}

function codeOf(err: unknown): string | undefined {
  const code = err && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** Turns whatever a command threw into what the user reads. Never throws. */
export function describeFailure(err: unknown): Failure {
  if (err instanceof ConfigError) return { line: err.message, hint: 'settings are listed in docs/configuration.md', exitCode: 2 };
  if (err instanceof RoleSelectionError) return { line: `error: ${err.message}`, hint: undefined, exitCode: 2 };
  if (err instanceof EmbeddedPostgresError) return { line: `error: ${err.message}`, hint: err.hint, exitCode: 1 };
  if (err instanceof PendingMigrationsError) return { line: `error: ${err.message}`, hint: undefined, exitCode: 1 };
  if (err instanceof RedisModeError) return { line: `error: ${err.message}`, hint: 'settings are listed in docs/configuration.md', exitCode: 2 };
  const message = messageOf(err).split('\n')[0]!.trim();
  const code = codeOf(err);
  const port = err && typeof err === 'object' ? (err as { port?: unknown }).port : undefined;
  if (code === 'EADDRINUSE') {
    return {
      line: `error: ${message}`,
      hint: `port ${String(port ?? '')} is taken by another process: stop it, or choose another with PORT=<port> (OPS_PORT=<port> for the ops port)`,
      exitCode: 1,
    };
  }
  if (
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'ETIMEDOUT' ||
    /connect(ion)? (refused|timeout|terminated)|ECONNREFUSED|timeout expired/i.test(message)
  ) {
    return {
      line: `error: cannot reach a dependency: ${message}`,
      hint: 'check DATABASE_URL and REDIS_URL, and that PostgreSQL and Redis are running (without DATABASE_URL an embedded PostgreSQL runs under DATA_DIR)',
      exitCode: 1,
    };
  }
  if (/unsupported startup parameter/i.test(message)) {
    return {
      line: `error: the database refused the connection: ${message}`,
      hint: 'DATABASE_URL goes through a connection pooler in transaction mode (PgBouncer): set DATABASE_SESSION_URL to a direct connection and the timeouts on the role, see docs/operations.md#connection-poolers',
      exitCode: 1,
    };
  }
  if (/password authentication failed|role .* does not exist|database .* does not exist/i.test(message)) {
    return { line: `error: the database refused the connection: ${message}`, hint: 'check the user, password and database name in DATABASE_URL', exitCode: 1 };
  }
  return { line: `error: ${message}`, hint: undefined, exitCode: 1 };
}

/** Writes the failure to stderr, cause and hint on one line, and exits. */
export function exitWithFailure(err: unknown): never {
  const f = describeFailure(err);
  // The cause and what to do on one line: the last thing a user sees.
  process.stderr.write(`${f.line}${f.hint ? ` (${f.hint})` : ''}\n`);
  process.exit(f.exitCode);
}
