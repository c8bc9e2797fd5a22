import type { Db } from '../db/db.js';
import { tsMicro } from '../db/sql.js';
import { recoveredNoticesSql } from './webhook-notices.repository.js';

/** A webhook subscription as stored (the secret stays encrypted; callers decrypt when they need it). */
export interface SubscriptionRow {
  id: string;
  map_id: string;
  url: string;
  events: string[];
  active: boolean;
  secret_encrypted: string;
  last_delivery_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  consecutive_failures: number;
  managed_by: string | null;
  /** When it last became active, in epoch milliseconds: events committed earlier are never sent to it. */
  active_since_ms: number;
  /** The failure warning last given, per cent of the disable threshold (0, 50, 90); cleared by a success. */
  warned_level: number;
  inserted_at: string;
  updated_at: string;
}

const COLUMNS = `s.id, s.map_id, s.url, s.events, s.active, s.secret_encrypted,
  ${tsMicro('s.last_delivery_at')} as last_delivery_at, s.last_error, ${tsMicro('s.last_error_at')} as last_error_at,
  s.consecutive_failures, s.managed_by, (extract(epoch from s.active_since) * 1000)::float8 as active_since_ms, s.warned_level,
  ${tsMicro('s.inserted_at')} as inserted_at, ${tsMicro('s.updated_at')} as updated_at`;

/** Per map: the version of its webhook settings (bumped by every change) and when the toggle was last switched on. */
export interface MapWebhookState {
  map_id: string;
  version: string;
  enabled: boolean;
  enabled_at_ms: number | null;
}

export interface SubscriptionFields {
  url?: string;
  events?: readonly string[];
  active?: boolean;
  secretEncrypted?: string;
}

/** The webhook_subscriptions and webhook_map_state tables. */
/**
 * Successes of the subscriptions `$ids` (a uuid[] parameter). A busy subscription succeeds many times a
 * second: its row is written at most once a second (last_delivery_at is current to within that), and
 * at once when it has failures to clear. Returns the rows written, `was_warned` for those that had a
 * failure warning (`recoveredNoticesSql`).
 */
export function recordSuccessSql(ids: string): string {
  return `update webhook_subscriptions s set last_delivery_at = now(), consecutive_failures = 0, warned_level = 0
       from webhook_subscriptions old
       where old.id = s.id and s.id = any(${ids}::uuid[])
         and (s.last_delivery_at is null or s.last_delivery_at < now() - interval '1 second' or s.consecutive_failures <> 0)
       returning s.id, s.map_id, old.warned_level > 0 as was_warned`;
}

export class SubscriptionRepository {
  async list(db: Db, mapId: string): Promise<SubscriptionRow[]> {
    return db.all<SubscriptionRow>(`select ${COLUMNS} from webhook_subscriptions s where s.map_id = ? order by s.inserted_at, s.id`, [mapId]);
  }

  async byId(db: Db, mapId: string, id: string): Promise<SubscriptionRow | undefined> {
    return db.one<SubscriptionRow>(`select ${COLUMNS} from webhook_subscriptions s where s.map_id = ? and s.id = ?`, [mapId, id]);
  }

  async byManagedBy(db: Db, managedBy: string): Promise<SubscriptionRow | undefined> {
    return db.one<SubscriptionRow>(`select ${COLUMNS} from webhook_subscriptions s where s.managed_by = ?`, [managedBy]);
  }

  /** Subscriptions whose managed_by starts with the prefix, oldest first. */
  async listManaged(db: Db, prefix: string): Promise<SubscriptionRow[]> {
    return db.all<SubscriptionRow>(`select ${COLUMNS} from webhook_subscriptions s where s.managed_by like ? || '%' order by s.inserted_at, s.id`, [
      prefix.replace(/[\\%_]/g, (c) => `\\${c}`),
    ]);
  }

  /** Active subscriptions of the given maps. */
  async activeOf(db: Db, mapIds: readonly string[]): Promise<SubscriptionRow[]> {
    if (mapIds.length === 0) return [];
    return db.all<SubscriptionRow>(
      `select ${COLUMNS} from webhook_subscriptions s where s.active and s.map_id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`,
      [JSON.stringify(mapIds)],
    );
  }

  async count(db: Db, mapId: string): Promise<number> {
    return Number((await db.one<{ n: string }>('select count(*) as n from webhook_subscriptions where map_id = ?', [mapId]))!.n);
  }

  async urlTaken(db: Db, mapId: string, url: string, exceptId?: string): Promise<boolean> {
    return !!(await db.one('select 1 from webhook_subscriptions where map_id = ? and url = ? and id is distinct from ?::uuid', [mapId, url, exceptId ?? null]));
  }

  /** Inserts; undefined when the map already has a subscription to that URL (a concurrent insert won). */
  async insert(
    db: Db,
    s: { mapId: string; url: string; events: readonly string[]; active: boolean; secretEncrypted: string; managedBy: string | null },
  ): Promise<string | undefined> {
    return (
      await db.one<{ id: string }>(
        `insert into webhook_subscriptions (map_id, url, events, active, secret_encrypted, managed_by)
         values (?, ?, array(select jsonb_array_elements_text(?::jsonb)), ?, ?, ?)
         on conflict (map_id, url) do nothing returning id`,
        [s.mapId, s.url, JSON.stringify(s.events), s.active, s.secretEncrypted, s.managedBy],
      )
    )?.id;
  }

  /**
   * Updates the given fields. Becoming active again resets the failure count and restarts
   * `active_since` (events committed while it was inactive are not sent).
   */
  async update(db: Db, id: string, f: SubscriptionFields): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [];
    if (f.url !== undefined) {
      sets.push('url = ?');
      params.push(f.url);
    }
    if (f.events !== undefined) {
      sets.push('events = array(select jsonb_array_elements_text(?::jsonb))');
      params.push(JSON.stringify(f.events));
    }
    if (f.active !== undefined) {
      sets.push(
        // `active: true` resets the failure count, whether the subscription was off (disabled after
        // failures) or still on; `active_since` moves only when it comes back on.
        'consecutive_failures = case when ? then 0 else consecutive_failures end',
        'active_since = case when ? and not active then now() else active_since end',
        // The owner's word replaces the automatic one: no warning, no probes of a disable for failures.
        'warned_level = case when ? then 0 else warned_level end',
        'disabled_reason = null',
        'probe_at = null',
        'active = ?',
      );
      params.push(f.active, f.active, f.active, f.active);
    }
    if (f.secretEncrypted !== undefined) {
      sets.push('secret_encrypted = ?');
      params.push(f.secretEncrypted);
    }
    if (sets.length) await db.run(`update webhook_subscriptions set ${sets.join(', ')}, updated_at = now() where id = ?`, [...params, id]);
  }

  async remove(db: Db, id: string): Promise<boolean> {
    return (await db.run('delete from webhook_subscriptions where id = ?', [id])) > 0;
  }

  /**
   * Bumps the map's webhook version (and, with `switchedOn`, records that the toggle went on now).
   * Taken at the start of every change to a map's subscriptions, it also serialises those changes
   * per map, so the per-map limit cannot be raced past.
   */
  async bumpMap(db: Db, mapId: string, switchedOn = false): Promise<void> {
    await db.run(
      `insert into webhook_map_state (map_id, version, enabled_at) values (?, 1, case when ? then now() end)
       on conflict (map_id) do update set version = webhook_map_state.version + 1,
         enabled_at = case when ? then now() else webhook_map_state.enabled_at end`,
      [mapId, switchedOn, switchedOn],
    );
  }

  /** The map's toggle (the maps.webhooks_enabled column belongs to the webhook settings). */
  async setEnabled(db: Db, mapId: string, enabled: boolean): Promise<boolean> {
    const row = await db.one<{ was: boolean }>(
      'update maps m set webhooks_enabled = ? from maps old where old.id = m.id and m.id = ? returning old.webhooks_enabled as was',
      [enabled, mapId],
    );
    return row?.was ?? false;
  }

  /** Versions and toggle state of the given maps (maps never touched are absent). */
  async mapStates(db: Db, mapIds: readonly string[]): Promise<MapWebhookState[]> {
    if (mapIds.length === 0) return [];
    return db.all<MapWebhookState>(
      `select w.map_id, w.version::text as version, m.webhooks_enabled as enabled,
              (extract(epoch from w.enabled_at) * 1000)::float8 as enabled_at_ms
       from webhook_map_state w join maps m on m.id = w.map_id
       where w.map_id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`,
      [JSON.stringify(mapIds)],
    );
  }

  /** A delivery succeeded: failures reset. */
  async recordSuccess(db: Db, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    // A subscription warned of failures that delivers again: the owner hears it recovered.
    await db.runBound(`with succeeded as (${recordSuccessSql('$1')}) ${recoveredNoticesSql('succeeded')}`, [ids]);
  }

  /** An attempt failed (the event may still be retried). */
  async recordError(db: Db, id: string, error: string): Promise<void> {
    await db.run('update webhook_subscriptions set last_error = ?, last_error_at = now() where id = ?', [error, id]);
  }

  /**
   * An event exhausted its attempts: one more consecutive failure; at `disableAfter` the subscription
   * is set inactive, disabled for failures (probed from `firstProbeMs` on, and missing deliveries from
   * its oldest pending event on). Returns whether this call disabled it, the failures, and the warning
   * level reached (per cent of `disableAfter`: 50 or 90) when this call crossed one, else 0.
   */
  async recordExhausted(
    db: Db,
    id: string,
    error: string,
    disableAfter: number,
    firstProbeMs = 60_000,
  ): Promise<{ disabled: boolean; failures: number; warned: number }> {
    const row = await db.one<{ disabled: boolean; failures: number; warned: number; was_warned: number }>(
      `update webhook_subscriptions s set consecutive_failures = s.consecutive_failures + 1, last_error = ?, last_error_at = now(),
         active = s.active and s.consecutive_failures + 1 < ?, updated_at = now(),
         warned_level = greatest(s.warned_level, case when (s.consecutive_failures + 1) * 10 >= ? * 9 then 90
                                                      when (s.consecutive_failures + 1) * 2 >= ? then 50 else 0 end),
         disabled_reason = case when s.active and s.consecutive_failures + 1 >= ? then 'failures' else s.disabled_reason end,
         disabled_at = case when s.active and s.consecutive_failures + 1 >= ? then now() else s.disabled_at end,
         probe_at = case when s.active and s.consecutive_failures + 1 >= ? then now() + make_interval(secs => ? / 1000.0) else s.probe_at end,
         probe_step = case when s.active and s.consecutive_failures + 1 >= ? then 0 else s.probe_step end,
         resume_since = case when s.active and s.consecutive_failures + 1 >= ?
           then coalesce((select min(d.event_at) from webhook_deliveries d where d.subscription_id = s.id and d.state = 'pending'), now())
           else s.resume_since end
       from webhook_subscriptions old where old.id = s.id and s.id = ?
       returning (old.active and not s.active) as disabled, s.consecutive_failures as failures, s.warned_level as warned, old.warned_level as was_warned`,
      [error, disableAfter, disableAfter, disableAfter, disableAfter, disableAfter, disableAfter, firstProbeMs, disableAfter, disableAfter, id],
    );
    if (!row) return { disabled: false, failures: 0, warned: 0 };
    return { disabled: row.disabled, failures: row.failures, warned: row.warned > row.was_warned ? row.warned : 0 };
  }

  /** The next probe of a subscription disabled after failures (null: no more), and how many were made. */
  async scheduleProbe(db: Db, id: string, atMs: number | null, step: number): Promise<void> {
    await db.run(`update webhook_subscriptions set probe_at = to_timestamp(?::float8 / 1000.0), probe_step = ? where id = ? and not active`, [atMs, step, id]);
  }

  /**
   * A probe succeeded: the subscription disabled after failures is active again (its failures and
   * warnings cleared, active from now). False when it is not in that state any more (its owner acted).
   */
  async resume(db: Db, id: string): Promise<boolean> {
    return (
      (await db.run(
        `update webhook_subscriptions set active = true, consecutive_failures = 0, warned_level = 0, disabled_reason = null, probe_at = null,
           probe_step = 0, active_since = now(), updated_at = now()
         where id = ? and not active and disabled_reason = 'failures'`,
        [id],
      )) > 0
    );
  }

  /** Sets the subscription inactive with the reason (410 Gone, or too many failures). */
  async disable(db: Db, id: string, error: string): Promise<boolean> {
    return (
      (await db.run('update webhook_subscriptions set active = false, last_error = ?, last_error_at = now(), updated_at = now() where id = ? and active', [
        error,
        id,
      ])) > 0
    );
  }

  /** Subscriptions by state, for the metrics: active, inactive, and active on maps whose toggle is off. */
  async countByState(db: Db): Promise<{ state: string; n: string }[]> {
    return db.all(
      `select case when not s.active then 'inactive' when m.webhooks_enabled then 'active' else 'map_disabled' end as state, count(*)::text as n
       from webhook_subscriptions s join maps m on m.id = s.map_id group by 1`,
    );
  }
}
