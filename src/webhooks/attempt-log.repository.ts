import type { Db } from '../db/db.js';
import type { AttemptResult } from './sender.js';
import type { DeliveryAttemptDto, WebhookStatsDto } from './webhook.dto.js';

/** One attempt as the attempt log keeps it. */
export interface AttemptLogEntry {
  subscriptionId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  attemptedAt: Date;
  result: AttemptResult;
  nextAttemptAt: Date | null;
  /** The delivery's `webhook-sequence` (null for pings, which are no event of the map). */
  sequence?: number | null | undefined;
  /** The attempt belongs to a delivery made again by a recover. */
  recovered?: boolean | undefined;
}

/** The attempt log rows of `$entries`, a JSON array (`attemptsJson`), for subscriptions that still exist. */
export function logAttemptsSql(entries: string): string {
  return `insert into webhook_attempts (subscription_id, event_id, event_type, attempt, attempted_at, duration_ms, status, outcome, error_class, error,
              next_attempt_at, sequence, recovered)
       select v.subscription_id, v.event_id, v.event_type, v.attempt, to_timestamp(v.at_ms / 1000.0), v.duration_ms, v.status, v.outcome, v.error_class, v.error,
              to_timestamp(v.next_ms / 1000.0), v.sequence, coalesce(v.recovered, false)
       from json_to_recordset(${entries}::json) as v(subscription_id uuid, event_id text, event_type text, attempt int, at_ms float8,
              duration_ms int, status int, outcome text, error_class text, error text, next_ms float8, sequence bigint, recovered boolean)
       where exists (select 1 from webhook_subscriptions s where s.id = v.subscription_id)`;
}

export function attemptsJson(entries: readonly AttemptLogEntry[]): string {
  return JSON.stringify(
    entries.map((e) => ({
      subscription_id: e.subscriptionId,
      event_id: e.eventId,
      event_type: e.eventType,
      attempt: e.attempt,
      at_ms: e.attemptedAt.getTime(),
      duration_ms: e.result.durationMs,
      status: e.result.status,
      outcome: e.result.ok ? 'success' : 'failure',
      error_class: e.result.errorClass,
      error: e.result.error,
      next_ms: e.nextAttemptAt?.getTime() ?? null,
      sequence: e.sequence ?? null,
      recovered: e.recovered ?? false,
    })),
  );
}

const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** The webhook_attempts table: every attempt made (kept WEBHOOK_ATTEMPTS_RETENTION_DAYS), read by the management API. */
export class AttemptLogRepository {
  async add(db: Db, entries: readonly AttemptLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await db.runBound(logAttemptsSql('$1'), [attemptsJson(entries)]);
  }

  /** The attempt log of a subscription, newest first, `before` an attempt id. */
  async page(
    db: Db,
    subscriptionId: string,
    q: { outcome?: 'success' | 'failure' | undefined; before?: number | undefined; limit: number },
  ): Promise<DeliveryAttemptDto[]> {
    const rows = await db.all<DeliveryAttemptDto & { id: string; sequence: string | null }>(
      `select a.id::text as id, a.event_id, a.event_type, a.attempt,
              to_char(a.attempted_at at time zone 'UTC', ${ISO_MS}) as attempted_at,
              a.status, a.duration_ms, a.outcome, a.error_class, a.error,
              to_char(a.next_attempt_at at time zone 'UTC', ${ISO_MS}) as next_attempt_at,
              a.sequence::text as sequence, a.recovered
       from webhook_attempts a
       where a.subscription_id = ? and (?::text is null or a.outcome = ?) and (?::bigint is null or a.id < ?)
       order by a.id desc limit ?`,
      [subscriptionId, q.outcome ?? null, q.outcome ?? null, q.before ?? null, q.before ?? null, q.limit],
    );
    return rows.map((r) => ({ ...r, id: Number(r.id), sequence: r.sequence === null ? null : Number(r.sequence) }));
  }

  /**
   * Health of a subscription over the last `windowSeconds`: attempts by outcome and failure class,
   * latency percentiles (of every attempt, answered or not), and its latest failure in the log.
   */
  async stats(db: Db, subscriptionId: string, windowSeconds: number): Promise<WebhookStatsDto> {
    const row = await db.one<{
      attempts: number;
      succeeded: number;
      failed: number;
      by_class: Record<string, number> | null;
      p50: number | null;
      p99: number | null;
    }>(
      `with w as (
         select outcome, error_class, duration_ms from webhook_attempts
         where subscription_id = ? and attempted_at > now() - make_interval(secs => ?))
       select count(*)::int as attempts,
              (count(*) filter (where outcome = 'success'))::int as succeeded,
              (count(*) filter (where outcome = 'failure'))::int as failed,
              (select jsonb_object_agg(c, n) from (select coalesce(error_class, 'other') as c, count(*)::int as n
                 from w where outcome = 'failure' group by 1) f) as by_class,
              percentile_disc(0.5) within group (order by duration_ms) as p50,
              percentile_disc(0.99) within group (order by duration_ms) as p99
       from w`,
      [subscriptionId, windowSeconds],
    );
    const last = await db.one<{ error: string | null; at: string }>(
      `select error, to_char(attempted_at at time zone 'UTC', ${ISO_MS}) as at from webhook_attempts
       where subscription_id = ? and outcome = 'failure' order by id desc limit 1`,
      [subscriptionId],
    );
    return {
      window_seconds: windowSeconds,
      attempts: row?.attempts ?? 0,
      succeeded: row?.succeeded ?? 0,
      failed: row?.failed ?? 0,
      failed_by_class: row?.by_class ?? {},
      latency_ms: { p50: row?.p50 ?? null, p99: row?.p99 ?? null },
      last_error: last ? (last.error ?? 'failure') : null,
      last_error_at: last?.at ?? null,
    };
  }

  /**
   * The `webhook-sequence` numbers the subscription's deliveries of these events carried, by event id
   * (a delivery made again keeps its number even after its queue row was pruned).
   */
  async sequencesOf(db: Db, subscriptionId: string, eventIds: readonly string[]): Promise<Map<string, number>> {
    if (eventIds.length === 0) return new Map();
    const rows = await db.allBound<{ event_id: string; sequence: string }>(
      `select distinct on (event_id) event_id, sequence::text as sequence from webhook_attempts
       where subscription_id = $1 and event_id = any($2::text[]) and sequence is not null order by event_id, id`,
      [subscriptionId, eventIds],
    );
    return new Map(rows.map((r) => [r.event_id, Number(r.sequence)]));
  }

  /** Deletes up to `batch` attempts older than `days`; returns how many. */
  async pruneBatch(db: Db, days: number, batch: number): Promise<number> {
    return db.run(`delete from webhook_attempts where id in (select id from webhook_attempts where attempted_at < now() - make_interval(days => ?) limit ?)`, [
      days,
      batch,
    ]);
  }
}
