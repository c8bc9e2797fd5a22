import type { Logger } from '../common/log.js';
import { dropDatabaseConnections } from '../db/pg-options.js';
import { DeadlineExceededError, withDeadline } from '../common/deadline.js';

/** Closing gets at least this long, even when draining used the whole shutdown window. */
export const CLOSE_MIN_MS = 1000;

/**
 * Closes what a process runs (its roles, the relay among them, then pools and Redis) by `closeBy` (at least CLOSE_MIN_MS from now). A database
 * that stopped answering would hold a pool's end() forever, so past the deadline every PostgreSQL
 * connection still open is destroyed and shutdown goes on: the process is leaving either way.
 */
export async function closeWithin(platform: { close(): Promise<void>; log: Logger }, closeBy: number): Promise<void> {
  const ms = Math.max(closeBy - Date.now(), CLOSE_MIN_MS);
  try {
    await withDeadline(platform.close(), ms, 'closing connections');
  } catch (err) {
    if (!(err instanceof DeadlineExceededError)) throw err;
    const dropped = dropDatabaseConnections();
    platform.log.warn({ deadlineMs: ms, dropped }, 'connections did not close in time; dropped them');
  }
}
