import type { Db } from '../db/db.js';
import type { EventEnvelope } from '../events/envelope.js';
import { AttemptLogRepository, attemptsJson, logAttemptsSql, type AttemptLogEntry } from './attempt-log.repository.js';
import { recordSuccessSql } from './subscription.repository.js';
import { recoveredNoticesSql } from './webhook-notices.repository.js';
import { NO_SETTINGS_VERSION } from './subscription-cache.js';
import type { QueuedDelivery } from './planned-queue.js';

/** The body of a delivery: the envelope's JSON in the field order of spec 2.11 (also what the stream sends). */
export function serializeEnvelope(e: Pick<EventEnvelope, 'id' | 'type' | 'map_id' | 'ts' | 'payload'>): string {
  return JSON.stringify({ id: e.id, type: e.type, map_id: e.map_id, ts: e.ts, payload: e.payload });
}

export interface PlannedDelivery {
  subscriptionId: string;
  mapId: string;
  eventId: string;
  eventType: string;
  eventAtMs: number;
  body: string;
}

/** A planned delivery in the column names of webhook_deliveries (and of ClaimedDelivery). */
function deliveryRow(r: PlannedDelivery) {
  return {
    subscription_id: r.subscriptionId,
    map_id: r.mapId,
    event_id: r.eventId,
    event_type: r.eventType,
    event_at_ms: r.eventAtMs,
    body: r.body,
    recovered: false,
  };
}

/**
 * A delivery leased to one worker for its next attempt. `attempts` counts attempts begun, this one included:
 * each lease adds one before anything is sent, so a repeat after a worker died carries the next number.
 */
export interface ClaimedDelivery {
  id: string;
  subscription_id: string;
  map_id: string;
  event_id: string;
  event_type: string;
  event_at_ms: number;
  body: string;
  /** Attempts begun, this one included (its attempt number). */
  attempts: number;
  /** The `webhook-sequence` number, given when the delivery was planned; null for rows planned before numbers existed. */
  sequence: number | null;
  /** Made again by a recover. */
  recovered: boolean;
  url: string;
  secret_encrypted: string;
}

/** What a lease returns of a delivery and its subscription (`d` and `s`): a ClaimedDelivery. */
const CLAIMED_COLUMNS = `d.id::text as id, d.subscription_id, d.map_id, d.event_id, d.event_type,
         (extract(epoch from d.event_at) * 1000)::float8 as event_at_ms, d.body, d.attempts, d.sequence::float8 as sequence, d.recovered,
         s.url, s.secret_encrypted`;

/** How an attempt ends for its delivery. */
export interface DeliveryOutcome {
  id: string;
  state: 'pending' | 'delivered' | 'failed' | 'dropped';
  attempts: number;
  nextAttemptAtMs: number | null;
  lastStatus: number | null;
  lastError: string | null;
}

/** How attempts ended, `$outcomes` a JSON array (`outcomesJson`); only rows still leased by `$owner` change (a lease that expired was taken over). */
function finishSql(outcomes: string, owner: string): string {
  return `update webhook_deliveries d set state = v.state, attempts = v.attempts,
         next_attempt_at = coalesce(to_timestamp(v.next_ms / 1000.0), d.next_attempt_at),
         lease_owner = null, lease_until = null, last_status = v.last_status, last_error = v.last_error,
         finished_at = case when v.state = 'pending' then null else now() end
       from json_to_recordset(${outcomes}::json) as v(id bigint, state text, attempts int, next_ms float8, last_status int, last_error text)
       where d.id = v.id and d.lease_owner = ${owner}::text`;
}

function outcomesJson(outcomes: readonly DeliveryOutcome[]): string {
  return JSON.stringify(
    outcomes.map((o) => ({ id: o.id, state: o.state, attempts: o.attempts, next_ms: o.nextAttemptAtMs, last_status: o.lastStatus, last_error: o.lastError })),
  );
}

/** The webhook_deliveries (durable queue) and webhook_attempts (attempt log) tables. */
export class DeliveryRepository {
  /** The attempt log, which `recordSuccesses` and `prune` write with the queue. */
  readonly log = new AttemptLogRepository();

  /**
   * One pending delivery per event and subscription; a pair already planned (by this worker before a
   * restart, or by another worker) is left alone. The rows flagged in `lease` are inserted leased to
   * `owner` already (the planning worker has slots for them and sends them at once, with no claim in
   * between); they come back with what sending needs. Returns how many rows were new, the leased, and
   * the ids of the new rows not leased (`queued`, in insertion order).
   *
   * With `versions` (per map of the events, the version of its webhook settings the rows were matched
   * against), nothing is inserted unless every map is still at that version: `stale` then names the
   * maps that moved, and the caller matches again. The check and the insert are one statement, so a
   * worker plans with one round trip while its cached subscriptions are current.
   */
  async plan(
    db: Db,
    rows: readonly PlannedDelivery[],
    lease?: { owner: string; leaseMs: number; rows: ReadonlySet<number> },
    versions?: ReadonlyMap<string, string>,
  ): Promise<{ added: number; leased: ClaimedDelivery[]; queued: QueuedDelivery[]; stale: string[] }> {
    if (rows.length === 0 && !versions?.size) return { added: 0, leased: [], queued: [], stale: [] };
    // Each event's body travels once (a map has up to five subscriptions), as bind parameters: the
    // events as columns, then the (event, subscription, leased now) pairs in the order given.
    const events: PlannedDelivery[] = [];
    const eventIndex = new Map<string, number>();
    const pairs = { event: [] as number[], subscription: [] as string[], lease: [] as boolean[] };
    for (const [i, r] of rows.entries()) {
      const key = `${r.mapId} ${r.eventId}`;
      let e = eventIndex.get(key);
      if (e === undefined) {
        e = events.push(r);
        eventIndex.set(key, e);
      }
      pairs.event.push(e);
      pairs.subscription.push(r.subscriptionId);
      pairs.lease.push(lease?.rows.has(i) ?? false);
    }
    const inserted = await db.allBound<{
      stale: string[] | null;
      id: string | null;
      leased: boolean | null;
      url: string | null;
      secret_encrypted: string | null;
      subscription_id: string | null;
      event_id: string | null;
      sequence: number | null;
    }>(
      `with cur as (
         select x.map_id, x.version as expected, coalesce(w.version::text, '${NO_SETTINGS_VERSION}') as actual
         from unnest($11::uuid[], $12::text[]) as x(map_id, version)
         left join webhook_map_state w on w.map_id = x.map_id),
       moved as (select array_agg(map_id::text) filter (where expected <> actual) as stale from cur),
       ev as (
         select * from unnest($3::uuid[], $4::text[], $5::text[], $6::float8[], $7::text[]) with ordinality
           as e(map_id, event_id, event_type, event_at_ms, body, n)),
       -- The new pairs: one planned already (a replay) takes no sequence number.
       p as (
         select p.n, p.subscription_id, p.lease, ev.map_id, ev.event_id, ev.event_type, ev.event_at_ms, ev.body
         from unnest($8::int[], $9::uuid[], $10::boolean[]) with ordinality as p(e, subscription_id, lease, n)
         join ev on ev.n = p.e
         where (select stale from moved) is null
           and not exists (select 1 from webhook_deliveries d where d.subscription_id = p.subscription_id and d.event_id = ev.event_id)),
       -- Each subscription's numbers for this batch, taken under its counter's row lock (in subscription
       -- order, so concurrent plans cannot deadlock): a pair that still conflicts below (another worker
       -- planned it meanwhile) leaves a gap, never a number given twice.
       counted as (
         insert into webhook_queue_state (subscription_id, last_sequence)
         select subscription_id, count(*) from p group by subscription_id order by subscription_id
         on conflict (subscription_id) do update set last_sequence = webhook_queue_state.last_sequence + excluded.last_sequence
         returning subscription_id, last_sequence, hold_until),
       numbered as (
         select p.*, c.last_sequence - count(*) over (partition by p.subscription_id) + row_number() over (partition by p.subscription_id order by p.n) as sequence,
           -- A receiver's Retry-After still running: the row waits for it, unleased.
           c.hold_until > now() as held, c.hold_until
         from p join counted c on c.subscription_id = p.subscription_id),
       ins as (
         insert into webhook_deliveries (subscription_id, map_id, event_id, event_type, event_at, body, lease_owner, lease_until, attempts, sequence, next_attempt_at)
         select q.subscription_id, q.map_id, q.event_id, q.event_type, to_timestamp(q.event_at_ms / 1000.0), q.body,
           case when q.lease and q.held is not true then $1::text end,
           case when q.lease and q.held is not true then now() + make_interval(secs => $2::float8 / 1000.0) end,
           case when q.lease and q.held is not true then 1 else 0 end,
           q.sequence, case when q.held then q.hold_until else now() end
         from numbered q
         order by q.n
         on conflict (subscription_id, event_id) do nothing
         returning id, subscription_id, event_id, lease_owner is not null as leased, sequence)
       select moved.stale, i.* from moved left join lateral (
         select ins.id::text as id, ins.leased, s.url, s.secret_encrypted, ins.subscription_id::text as subscription_id, ins.event_id,
           ins.sequence::float8 as sequence
         from ins left join webhook_subscriptions s on ins.leased and s.id = ins.subscription_id
         order by ins.id) i on true`,
      [
        lease?.owner ?? null,
        lease?.leaseMs ?? 0,
        events.map((e) => e.mapId),
        events.map((e) => e.eventId),
        events.map((e) => e.eventType),
        events.map((e) => e.eventAtMs),
        events.map((e) => e.body),
        pairs.event,
        pairs.subscription,
        pairs.lease,
        [...(versions?.keys() ?? [])],
        [...(versions?.values() ?? [])],
      ],
    );
    const stale = inserted[0]?.stale ?? [];
    const byPair = new Map(rows.map((r) => [`${r.subscriptionId} ${r.eventId}`, r]));
    const leased: ClaimedDelivery[] = [];
    const queued: QueuedDelivery[] = [];
    let added = 0;
    for (const row of inserted) {
      if (row.id === null) continue;
      added++;
      if (!row.leased) {
        queued.push({ id: row.id, subscriptionId: row.subscription_id! });
        continue;
      }
      if (row.url === null || row.secret_encrypted === null) continue;
      const r = byPair.get(`${row.subscription_id} ${row.event_id}`)!;
      leased.push({ ...deliveryRow(r), id: row.id, attempts: 1, sequence: row.sequence, url: row.url, secret_encrypted: row.secret_encrypted });
    }
    return { added, leased, queued, stale };
  }

  /**
   * Leases the given deliveries (ids of rows planned earlier, `PlannedQueue`) that are still due and
   * unleased, of active subscriptions on maps whose webhooks are on: one update by primary key, checked
   * under the row lock like a claim. Rows another worker leased or finished meanwhile are left out.
   * Returned in id order.
   */
  async leaseIds(db: Db, owner: string, leaseMs: number, ids: readonly string[]): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    return db.allBound<ClaimedDelivery>(
      `with leased as (
         update webhook_deliveries d set lease_owner = $2::text, lease_until = now() + make_interval(secs => $3::float8 / 1000.0),
           attempts = d.attempts + 1
         from webhook_subscriptions s, maps m
         where d.id = any($1::bigint[]) and s.id = d.subscription_id and s.active and m.id = s.map_id and m.webhooks_enabled
           and not exists (select 1 from webhook_queue_state q where q.subscription_id = s.id and q.hold_until > now())
           and d.state = 'pending' and d.next_attempt_at <= now() and (d.lease_until is null or d.lease_until < now())
         returning ${CLAIMED_COLUMNS})
       select * from leased order by id::bigint`,
      [ids, owner, leaseMs],
    );
  }

  /**
   * Leases due deliveries of active subscriptions on maps whose webhooks are on: at most the
   * subscription's entry in `allowances` (else `allowance`) per subscription, and `limit` in all. Candidates are read without
   * locks and leased by one update that checks them again under the row lock, so a row another worker
   * leased meanwhile is skipped and rows not handed out are never locked. Every subscription with
   * pending deliveries is looked at (one index probe each), however old the others' backlogs are.
   */
  async claim(db: Db, owner: string, leaseMs: number, limit: number, allowance: number, allowances: ReadonlyMap<string, number>): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return [];
    return db.allBound<ClaimedDelivery>(
      `with allow as (select * from jsonb_to_recordset($1::jsonb) as b(id uuid, n int)),
       -- Subscriptions with pending deliveries, one index probe each (a skip scan of the pending index):
       -- a backlog of one subscription cannot hide the others.
       due as (
         with recursive subs(id) as (
           (select subscription_id from webhook_deliveries where state = 'pending' order by subscription_id limit 1)
           union all
           select (select d.subscription_id from webhook_deliveries d
                   where d.state = 'pending' and d.subscription_id > subs.id order by d.subscription_id limit 1)
           from subs where subs.id is not null)
         select id as subscription_id from subs where id is not null),
       picked as (
         select x.id, x.next_attempt_at from due
         join webhook_subscriptions s on s.id = due.subscription_id and s.active
         join maps m on m.id = s.map_id and m.webhooks_enabled
         -- A receiver's Retry-After still running holds every attempt of its subscription.
         left join webhook_queue_state q on q.subscription_id = s.id
         left join allow on allow.id = s.id
         cross join lateral (
           select d.id, d.next_attempt_at from webhook_deliveries d
           where d.subscription_id = s.id and d.state = 'pending' and d.next_attempt_at <= now()
             and (d.lease_until is null or d.lease_until < now())
           order by d.next_attempt_at limit greatest(0, coalesce(allow.n, $2::int))) x
         where q.hold_until is null or q.hold_until <= now()
         order by x.next_attempt_at limit $3::int)
       update webhook_deliveries d set lease_owner = $4::text, lease_until = now() + make_interval(secs => $5::float8 / 1000.0),
         attempts = d.attempts + 1
       from picked, webhook_subscriptions s
       where d.id = picked.id and s.id = d.subscription_id
         -- Re-checked under the row lock: a row another worker leased meanwhile is left to it.
         and d.state = 'pending' and (d.lease_until is null or d.lease_until < now())
       returning ${CLAIMED_COLUMNS}`,
      [JSON.stringify([...allowances].map(([id, n]) => ({ id, n }))), allowance, limit, owner, leaseMs],
    );
  }

  /** Pending deliveries of the map's subscriptions are dropped (its webhooks were switched off). */
  async dropPendingOfMap(db: Db, mapId: string): Promise<void> {
    await db.run(
      `update webhook_deliveries set state = 'dropped', finished_at = now(), lease_owner = null, lease_until = null
       where subscription_id in (select id from webhook_subscriptions where map_id = ?) and state = 'pending'`,
      [mapId],
    );
  }

  /** Ends this worker's leases of deliveries it did not send (their counts go back): another worker may take them at once. */
  async release(db: Db, owner: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await db.runBound(
      `update webhook_deliveries set lease_owner = null, lease_until = null, attempts = greatest(attempts - 1, 0)
       where id = any($1::bigint[]) and lease_owner = $2::text and state = 'pending'`,
      [ids, owner],
    );
  }

  /** Records how attempts ended; only rows still leased by `owner` change (a lease that expired was taken over). */
  async finish(db: Db, owner: string, outcomes: readonly DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await db.runBound(finishSql('$1', '$2'), [outcomesJson(outcomes), owner]);
  }

  /**
   * A batch of successes in one statement: `finish`, `logAttempts` and the subscriptions' success
   * (`recordSuccessSql`), atomic as one statement is. For batches without failures, which have nothing
   * else to record.
   */
  async recordSuccesses(
    db: Db,
    owner: string,
    outcomes: readonly DeliveryOutcome[],
    entries: readonly AttemptLogEntry[],
    subscriptionIds: readonly string[],
  ): Promise<void> {
    if (outcomes.length === 0) return;
    await db.runBound(
      `with finished as (${finishSql('$1', '$2')}), logged as (${logAttemptsSql('$3')}), succeeded as (${recordSuccessSql('$4')}),
       recovered as (${recoveredNoticesSql('succeeded')}) select 1`,
      [outcomesJson(outcomes), owner, attemptsJson(entries), subscriptionIds],
    );
  }

  /**
   * A receiver's `Retry-After` (429 or 503): each subscription's attempts wait until the given time
   * (epoch ms). Claims and leases skip a held subscription's deliveries, and planning queues its new
   * deliveries due then.
   */
  async holdUntil(db: Db, holds: ReadonlyMap<string, number>): Promise<void> {
    if (holds.size === 0) return;
    const ids = [...holds.keys()].sort();
    await db.runBound(
      `insert into webhook_queue_state (subscription_id, hold_until)
       select h.subscription_id, to_timestamp(h.until_ms / 1000.0)
       from unnest($1::uuid[], $2::float8[]) as h(subscription_id, until_ms) join webhook_subscriptions s on s.id = h.subscription_id
       order by 1
       on conflict (subscription_id) do update set hold_until = greatest(webhook_queue_state.hold_until, excluded.hold_until)`,
      [ids, ids.map((id) => holds.get(id)!)],
    );
  }

  /** Pending deliveries of a subscription that is no longer active are dropped. */
  async dropPending(db: Db, subscriptionId: string): Promise<void> {
    await db.run(
      `update webhook_deliveries set state = 'dropped', finished_at = now(), lease_owner = null, lease_until = null where subscription_id = ? and state = 'pending'`,
      [subscriptionId],
    );
  }

  /** Pending deliveries: how many, and the age of the oldest event among them (seconds). */
  async backlog(db: Db): Promise<{ pending: number; oldestAgeS: number }> {
    const r = await db.one<{ n: string; age: number | null }>(
      `select count(*)::text as n, extract(epoch from now() - min(event_at))::float8 as age from webhook_deliveries where state = 'pending'`,
    );
    return { pending: Number(r?.n ?? 0), oldestAgeS: r?.age ?? 0 };
  }

  /**
   * Deletes, in batches, attempts older than `days` and finished deliveries older than `finishedMinutes`
   * (a finished delivery only guards against planning its event again, which happens only for events
   * just read).
   */
  async prune(db: Db, days: number, finishedMinutes = 60, batch = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const n =
        (await this.log.pruneBatch(db, days, batch)) +
        (await db.run(
          `delete from webhook_deliveries where id in (select id from webhook_deliveries where state <> 'pending' and finished_at < now() - make_interval(mins => ?) limit ?)`,
          [finishedMinutes, batch],
        ));
      total += n;
      if (n < batch) return total;
    }
  }
}
