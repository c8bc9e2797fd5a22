import type { Db } from '../db/db.js';
import type { PlannedDelivery } from './delivery.repository.js';

/**
 * Deliveries made again on request: one event (redeliver) or every event since a time (recover), as
 * rows of webhook_deliveries that the workers claim like any other.
 */
export class RedeliveryRepository {
  /**
   * A new series of attempts for each event of one subscription (redeliver, recover), due now in the
   * order given (a microsecond apart, so claims take them in that order) or when the receiver's
   * `Retry-After` ends. A delivery keeps the sequence number it was first planned with (from its queue
   * row, else from the attempt log, `known`); an event never planned for the subscription takes the
   * next numbers of its counter. Returns how many rows were queued.
   */
  async requeue(
    db: Db,
    subscriptionId: string,
    rows: readonly PlannedDelivery[],
    opts: { recovered: boolean; known: ReadonlyMap<string, number> },
  ): Promise<number> {
    if (rows.length === 0) return 0;
    const present = new Map(
      (
        await db.allBound<{ event_id: string; sequence: number | null }>(
          `select event_id, sequence::float8 as sequence from webhook_deliveries where subscription_id = $1 and event_id = any($2::text[])`,
          [subscriptionId, rows.map((r) => r.eventId)],
        )
      ).map((r) => [r.event_id, r.sequence]),
    );
    const sequences = rows.map((r) => present.get(r.eventId) ?? opts.known.get(r.eventId) ?? null);
    const fresh = sequences.filter((n) => n === null).length;
    if (fresh > 0) {
      const [last] = await db.allBound<{ last: number }>(
        `insert into webhook_queue_state (subscription_id, last_sequence) values ($1, $2)
         on conflict (subscription_id) do update set last_sequence = webhook_queue_state.last_sequence + excluded.last_sequence
         returning last_sequence::float8 as last`,
        [subscriptionId, fresh],
      );
      let next = last!.last - fresh;
      for (const [i, n] of sequences.entries()) if (n === null) sequences[i] = ++next;
    }
    return db.runBound(
      `insert into webhook_deliveries (subscription_id, map_id, event_id, event_type, event_at, body, sequence, recovered, next_attempt_at)
       select $1::uuid, r.map_id, r.event_id, r.event_type, to_timestamp(r.event_at_ms / 1000.0), r.body, r.sequence, $2::boolean,
         greatest(now(), (select hold_until from webhook_queue_state where subscription_id = $1::uuid)) + make_interval(secs => r.n / 1e6)
       from unnest($3::uuid[], $4::text[], $5::text[], $6::float8[], $7::text[], $8::bigint[]) with ordinality
         as r(map_id, event_id, event_type, event_at_ms, body, sequence, n)
       order by r.n
       on conflict (subscription_id, event_id) do update set state = 'pending', attempts = 0, next_attempt_at = excluded.next_attempt_at,
         lease_owner = null, lease_until = null, finished_at = null, last_status = null, last_error = null,
         recovered = excluded.recovered, sequence = coalesce(webhook_deliveries.sequence, excluded.sequence)`,
      [
        subscriptionId,
        opts.recovered,
        rows.map((r) => r.mapId),
        rows.map((r) => r.eventId),
        rows.map((r) => r.eventType),
        rows.map((r) => r.eventAtMs),
        rows.map((r) => r.body),
        sequences,
      ],
    );
  }

  /** Serialises recovers of one subscription until the transaction ends. */
  async lockRecover(db: Db, subscriptionId: string): Promise<void> {
    await db.run(`select pg_advisory_xact_lock(hashtext('webhook-recover'), hashtext(?))`, [subscriptionId]);
  }

  /** Whether a recover of the subscription still has deliveries waiting (a second one is refused meanwhile). */
  async recovering(db: Db, subscriptionId: string): Promise<boolean> {
    return !!(await db.one(`select 1 from webhook_deliveries where subscription_id = ? and state = 'pending' and recovered limit 1`, [subscriptionId]));
  }
}
