import type { Db } from '../db/db.js';

/** What a map's owner hears on its streams about a subscription (not an event: no id, not in the log, never delivered). */
export type WebhookNoticeKind = 'webhook_failing' | 'webhook_disabled' | 'webhook_recovered';

export interface WebhookNotice {
  mapId: string;
  kind: WebhookNoticeKind;
  payload: Record<string, unknown>;
}

export interface StoredNotice {
  id: string;
  map_id: string;
  kind: WebhookNoticeKind;
  payload: Record<string, unknown>;
  at: string;
}

/**
 * `webhook_recovered` notices for the rows of `succeeded` (a CTE of `recordSuccessSql`) that had a
 * failure warning: a subscription warned of failures that delivers again, never disabled.
 */
export function recoveredNoticesSql(succeeded: string): string {
  return `insert into webhook_notices (map_id, kind, payload)
       select map_id, 'webhook_recovered', jsonb_build_object('subscription_id', id, 'missed_events', 0, 'since', null)
       from ${succeeded} where was_warned`;
}

/** The webhook_notices table: written by the workers, read by the stream role (webhook-notice-feed.ts), kept a day. */
export class WebhookNoticeRepository {
  async add(db: Db, notices: readonly WebhookNotice[]): Promise<void> {
    if (notices.length === 0) return;
    await db.runBound(
      `insert into webhook_notices (map_id, kind, payload)
       select n.map_id, n.kind, n.payload from unnest($1::uuid[], $2::text[], $3::jsonb[]) with ordinality as n(map_id, kind, payload, i) order by n.i`,
      [notices.map((n) => n.mapId), notices.map((n) => n.kind), notices.map((n) => JSON.stringify(n.payload))],
    );
  }

  /** Notices after `afterId`, oldest first. */
  async after(db: Db, afterId: string, limit: number): Promise<StoredNotice[]> {
    return db.allBound<StoredNotice>(
      `select id::text as id, map_id::text as map_id, kind, payload, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at
       from webhook_notices where id > $1::bigint order by id limit $2`,
      [afterId, limit],
    );
  }

  /** Id of the newest notice ('0' when none): a feed starts after it. */
  async newestId(db: Db): Promise<string> {
    return (await db.one<{ id: string | null }>('select max(id)::text as id from webhook_notices'))?.id ?? '0';
  }

  /** Deletes notices older than a day; returns how many. */
  async prune(db: Db): Promise<number> {
    return db.run(`delete from webhook_notices where at < now() - interval '1 day'`);
  }
}
