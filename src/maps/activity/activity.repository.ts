import type { Db } from '../../db/db.js';
import { INT32_MAX, tsSeconds } from '../../db/sql.js';

/** Increments of a character's counters for one UTC day. */
export interface ActivityIncrement {
  passages: number;
  connections: number;
  signatures: number;
}

/** A character_activity day after an increment. */
export interface ActivityDayRow extends ActivityIncrement {
  day: string;
  timestamp: string;
}

/** Activity of one group (a user, or a character without one), summed; `character_id` shows the group. */
export interface ActivitySumRow {
  group_key: string;
  character_id: string;
  /** bigint, as text. */
  passages: string;
  connections: string;
  signatures: string;
  timestamp: string;
}

/** Each counter saturates at the int column's maximum instead of failing the write. */
const capped = (column: string) => `least(character_activity.${column}::bigint + excluded.${column}, ${INT32_MAX})::int`;

/** The character_activity table: its one writer (editing API and seeding alike) and its reads. */
export class ActivityRepository {
  /**
   * Adds to a character's counters for the UTC day of `at` (default: now), each saturating at
   * 2147483647; the day's counters after the increment.
   */
  async add(db: Db, mapId: string, characterId: string, inc: ActivityIncrement, at?: Date): Promise<ActivityDayRow> {
    const when = at ? '?::timestamptz' : 'now()';
    return (await db.one<ActivityDayRow>(
      `insert into character_activity (map_id, character_id, day, passages, connections, signatures, last_activity_at)
       values (?, ?, (${when} at time zone 'UTC')::date, ?, ?, ?, ${when})
       on conflict (map_id, character_id, day) do update set
         passages = ${capped('passages')}, connections = ${capped('connections')}, signatures = ${capped('signatures')},
         last_activity_at = greatest(character_activity.last_activity_at, excluded.last_activity_at)
       returning to_char(day, 'YYYY-MM-DD') as day, passages, connections, signatures, ${tsSeconds('last_activity_at')} as timestamp`,
      at ? [mapId, characterId, at, inc.passages, inc.connections, inc.signatures, at] : [mapId, characterId, inc.passages, inc.connections, inc.signatures],
    ))!;
  }

  /**
   * Activity summed per user (characters without a user stand alone), in 64 bits: counters are int and
   * may each sit at their cap, so sums over days and characters pass 2^31; the group is shown as the
   * user's main character (even when only the user's other characters have activity in the window),
   * else its most active character. `days` limits to the last N days.
   */
  async sumsPerUser(db: Db, mapId: string, days?: number): Promise<ActivitySumRow[]> {
    return db.all<ActivitySumRow>(
      `with per_character as (
         select a.character_id, sum(a.passages)::bigint as passages, sum(a.connections)::bigint as connections,
                sum(a.signatures)::bigint as signatures, max(a.last_activity_at) as last_at
         from character_activity a
         where a.map_id = ? ${days !== undefined ? `and a.day >= (now() at time zone 'UTC')::date - (? - 1)` : ''}
         group by a.character_id
         having sum(a.passages) + sum(a.connections) + sum(a.signatures) > 0
       ), grouped as (
         select coalesce(ch.user_id::text, ch.id::text) as group_key, pc.*, ch.user_id, main.id as main_id,
                row_number() over (partition by coalesce(ch.user_id::text, ch.id::text)
                  order by (u.main_character_id = ch.id) desc nulls last, pc.passages + pc.connections + pc.signatures desc, ch.name) as rank
         from per_character pc
         join characters ch on ch.id = pc.character_id
         left join users u on u.id = ch.user_id
         left join characters main on main.id = u.main_character_id and main.user_id = u.id
       )
       select g.group_key, sum(g.passages)::bigint as passages, sum(g.connections)::bigint as connections, sum(g.signatures)::bigint as signatures,
              ${tsSeconds('max(g.last_at)')} as timestamp,
              coalesce((array_agg(g.main_id))[1], (array_agg(g.character_id order by g.rank))[1]) as character_id
       from grouped g group by g.group_key`,
      days !== undefined ? [mapId, days] : [mapId],
    );
  }
}
