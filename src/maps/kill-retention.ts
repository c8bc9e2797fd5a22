/**
 * Kill retention: kills are imported without end (a busy map gathers thousands a day) and only recent
 * ones are read, so kills older than KILLS_RETENTION_DAYS are deleted. The event relay's hourly prune
 * runs it (one process at a time); anything else may call it on its own schedule.
 */
import type pg from 'pg';

/**
 * Deletes kills (of every map) whose `kill_time` is older than `retentionDays`, `batch` rows per
 * statement so no transaction holds many locks or grows large; returns how many were deleted.
 */
export async function pruneKills(pool: Pick<pg.Pool, 'query'>, retentionDays: number, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    // No order: any old rows will do, and without one the scan stops at the batch's last match.
    const res = await pool.query(
      `delete from map_kills where id in (
         select id from map_kills where kill_time < now() - make_interval(days => $1::int) limit $2)`,
      [retentionDays, batch],
    );
    const n = res.rowCount ?? 0;
    total += n;
    if (n < batch) return total;
  }
}
