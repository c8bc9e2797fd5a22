import type { Db } from '../../db/db.js';
import { tsSeconds } from '../../db/sql.js';
import { Outbox } from '../../events/outbox.js';
import type { KillDto, ZkbDto } from './kills.dto.js';

/** zKillboard's block of a killmail, stored as it came (jsonb). */
export type Zkb = ZkbDto;

/** A killmail to store. */
export interface NewKill {
  killmailId: number;
  killTime: Date;
  solarSystemId: number;
  attackerCount: number;
  npc: boolean;
  totalValue: number;
  finalBlowAllianceId?: number | null;
  finalBlowCharId?: number | null;
  finalBlowCorpId?: number | null;
  finalBlowShipTypeId?: number | null;
  finalBlowAllianceTicker?: string | null;
  finalBlowCharName?: string | null;
  finalBlowCorpTicker?: string | null;
  finalBlowShipName?: string | null;
  victimAllianceId?: number | null;
  victimCharId?: number | null;
  victimCorpId?: number | null;
  victimShipTypeId?: number | null;
  victimCharName?: string | null;
  victimCorpTicker?: string | null;
  victimShipName?: string | null;
  zkb: Zkb;
}

const DTO_COLUMNS = `k.killmail_id::float8 as killmail_id, ${tsSeconds('k.kill_time')} as kill_time, k.solar_system_id, k.attacker_count,
  k.npc, k.total_value, k.final_blow_alliance_id::float8 as final_blow_alliance_id, k.final_blow_char_id::float8 as final_blow_char_id,
  k.final_blow_corp_id::float8 as final_blow_corp_id, k.final_blow_ship_type_id::float8 as final_blow_ship_type_id,
  k.final_blow_alliance_ticker, k.final_blow_char_name, k.final_blow_corp_ticker, k.final_blow_ship_name,
  k.victim_alliance_id::float8 as victim_alliance_id, k.victim_char_id::float8 as victim_char_id,
  k.victim_corp_id::float8 as victim_corp_id, k.victim_ship_type_id::float8 as victim_ship_type_id,
  k.victim_char_name, k.victim_corp_ticker, k.victim_ship_name, k.zkb`;

const INSERT_COLUMN_COUNT = 23;

/** `insert into map_kills … on conflict do nothing` of `count` kills (parameters: insertKillsParams). */
function insertKillsSql(count: number): string {
  const row = `(${Array.from({ length: INSERT_COLUMN_COUNT }, (_, i) => (i === INSERT_COLUMN_COUNT - 1 ? '?::jsonb' : '?')).join(', ')})`;
  return `insert into map_kills (map_id, killmail_id, kill_time, solar_system_id, attacker_count, npc, total_value,
         final_blow_alliance_id, final_blow_char_id, final_blow_corp_id, final_blow_ship_type_id,
         final_blow_alliance_ticker, final_blow_char_name, final_blow_corp_ticker, final_blow_ship_name,
         victim_alliance_id, victim_char_id, victim_corp_id, victim_ship_type_id,
         victim_char_name, victim_corp_ticker, victim_ship_name, zkb)
       values ${Array.from({ length: count }, () => row).join(', ')}
       on conflict (map_id, killmail_id) do nothing`;
}

function insertKillsParams(mapId: string, kills: readonly NewKill[]): unknown[] {
  return kills.flatMap((k) => [
    mapId,
    k.killmailId,
    k.killTime,
    k.solarSystemId,
    k.attackerCount,
    k.npc,
    k.totalValue,
    k.finalBlowAllianceId ?? null,
    k.finalBlowCharId ?? null,
    k.finalBlowCorpId ?? null,
    k.finalBlowShipTypeId ?? null,
    k.finalBlowAllianceTicker ?? null,
    k.finalBlowCharName ?? null,
    k.finalBlowCorpTicker ?? null,
    k.finalBlowShipName ?? null,
    k.victimAllianceId ?? null,
    k.victimCharId ?? null,
    k.victimCorpId ?? null,
    k.victimShipTypeId ?? null,
    k.victimCharName ?? null,
    k.victimCorpTicker ?? null,
    k.victimShipName ?? null,
    JSON.stringify(k.zkb),
  ]);
}

/** The map_kills table: its one writer (editing API, seeding and retention alike) and its reads. */
export class KillRepository {
  /**
   * Stores kills with one multi-row insert; a killmail the map already has is left as it is. Returns
   * the killmail ids that were new. `kills` must not repeat a killmail id.
   */
  async insertNew(db: Db, mapId: string, kills: readonly NewKill[]): Promise<Set<number>> {
    if (kills.length === 0) return new Set();
    const inserted = await db.all<{ killmail_id: number }>(
      `${insertKillsSql(kills.length)} returning killmail_id::float8 as killmail_id`,
      insertKillsParams(mapId, kills),
    );
    return new Set(inserted.map((r) => Number(r.killmail_id)));
  }

  /**
   * Stores kills as insertNew does and, in the same statement, appends a map_kill event per new kill in
   * input order: `payloads[i]` is the event payload of `kills[i]`, whose `system_name` is filled here
   * (the map system's name, else the static name, as systemNames says). Returns how many kills were new.
   */
  async insertNewWithEvents(db: Db, mapId: string, kills: readonly NewKill[], payloads: readonly object[]): Promise<number> {
    if (kills.length === 0) return 0;
    return db.run(
      `with fresh as (${insertKillsSql(kills.length)} returning killmail_id),
            ev as (select x.doc, x.ord, (x.doc->>'solar_system_id')::int as sid from jsonb_array_elements(?::jsonb) with ordinality as x(doc, ord))
       ${Outbox.insertFrom(`select ?::uuid, 'map_kill', jsonb_set(ev.doc, '{system_name}', coalesce(to_jsonb(coalesce(
             (select name from map_systems s where s.map_id = ?::uuid and s.solar_system_id = ev.sid),
             (select solar_system_name from solar_systems ss where ss.solar_system_id = ev.sid))), 'null'::jsonb))
         from ev join fresh on fresh.killmail_id = (ev.doc->>'killmail_id')::bigint
         order by ev.ord`)}`,
      [...insertKillsParams(mapId, kills), JSON.stringify(payloads), mapId, mapId],
    );
  }

  /** The name a kill's system goes by: the map system's name, else the static name (null when neither). */
  async systemNames(db: Db, mapId: string, solarSystemIds: readonly number[]): Promise<Map<number, string | null>> {
    if (solarSystemIds.length === 0) return new Map();
    const names = await db.all<{ sid: number; name: string | null }>(
      `select v.sid, coalesce((select name from map_systems where map_id = ? and solar_system_id = v.sid),
                              (select solar_system_name from solar_systems where solar_system_id = v.sid)) as name
       from (values ${solarSystemIds.map(() => '(?::int)').join(', ')}) as v(sid)`,
      [mapId, ...solarSystemIds],
    );
    return new Map(names.map((n) => [n.sid, n.name]));
  }

  /** Kills of visible systems of the last `hours` hours, newest first: at most `perSystem` per system and `max` in all. */
  async recentOfVisibleSystems(db: Db, mapId: string, hours: number, perSystem: number, max: number): Promise<KillDto[]> {
    return db.all<KillDto>(
      `select ${DTO_COLUMNS} from (
         select k.*, row_number() over (partition by k.solar_system_id order by k.kill_time desc, k.killmail_id desc) as rank
         from map_kills k
         join map_systems s on s.map_id = k.map_id and s.solar_system_id = k.solar_system_id and s.visible
         where k.map_id = ? and k.kill_time >= now() - make_interval(hours => ?)
       ) k
       where k.rank <= ?
       order by k.kill_time desc, k.killmail_id desc
       limit ?`,
      [mapId, hours, perSystem, max],
    );
  }

  /** Deletes the map's kill with this killmail id; whether there was one. */
  async deleteOne(db: Db, mapId: string, killmailId: number): Promise<boolean> {
    return (await db.run('delete from map_kills where map_id = ? and killmail_id = ?', [mapId, killmailId])) > 0;
  }

  /**
   * Deletes kills (of every map) whose `kill_time` is older than `retentionDays`, `batch` rows per
   * statement so no transaction holds many locks or grows large; returns how many were deleted.
   */
  async pruneOlderThan(db: Db, retentionDays: number, batch: number): Promise<number> {
    let total = 0;
    for (;;) {
      // No order: any old rows will do, and without one the scan stops at the batch's last match.
      const n = await db.run(
        `delete from map_kills where id in (
           select id from map_kills where kill_time < now() - make_interval(days => ?::int) limit ?)`,
        [retentionDays, batch],
      );
      total += n;
      if (n < batch) return total;
    }
  }
}
