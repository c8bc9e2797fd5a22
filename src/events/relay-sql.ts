import type pg from 'pg';

// The relay's SQL helpers: connection options, retention and error classification (relay.ts).

/** Deletes published events (at or below their map's cursor) older than `retentionMs` in batches; returns how many. */
export async function pruneEvents(pool: pg.Pool, retentionMs: number, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const res = await pool.query(
      `delete from map_events where seq in (
         select e.seq from map_events e join map_event_cursors c on c.map_id = e.map_id
         where e.event_id <= c.published_event_id and e.created_at < now() - make_interval(secs => $1::double precision / 1000)
         order by e.seq limit $2)`,
      [retentionMs, batch],
    );
    total += res.rowCount ?? 0;
    if ((res.rowCount ?? 0) < batch) return total;
  }
}

/**
 * Every event row is updated once (its id), and the update is not HOT, so the partial index the relay
 * reads (unassigned events) fills with entries of rows it already moved on. For the small result sets it
 * expects the planner picks bitmap scans, which never mark such entries dead: every relay query then
 * visits every row changed since the last vacuum (measured: ~4,000 dead entries → 1–7 ms per query).
 * Plain index scans mark them dead on first visit and skip them after, so the relay's connections run
 * without bitmap scans.
 */
export function poolOptions(schema: string): string {
  return [searchPath(schema), '-c enable_bitmapscan=off'].filter(Boolean).join(' ');
}

export function searchPath(schema: string): string | undefined {
  return schema === 'public' ? undefined : `-c search_path=${schema},public`;
}

export function isSessionError(err: unknown): boolean {
  const msg = (err as Error)?.message ?? '';
  return /terminat|closed|ECONNRE|Connection/i.test(msg);
}
