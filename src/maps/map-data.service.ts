import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../errors.js';
import { tsMicro, tsSeconds } from '../db/sql.js';
import { CHARACTER_COLUMNS, toCharacterDto } from '../characters/character.repository.js';
import type {
  CharacterActivityDto,
  ConnectionDto,
  KillDto,
  StructureTimerDto,
  SystemDto,
  SystemKillsDto,
  TrackedCharacterDto,
  UserCharactersDto,
} from './map.dto.js';
import type { AclListItemDto } from '../acls/acl.dto.js';
import type { SignatureDto } from './map-edit.dto.js';

export const SYSTEM_COLUMNS = `s.id, s.name, s.status::int as status, s.tag, s.visible, s.description, s.labels,
  ${tsMicro('s.inserted_at')} as inserted_at, ${tsMicro('s.updated_at')} as updated_at, s.locked,
  s.solar_system_id, s.map_id, s.custom_name, s.position_x, s.position_y`;

export const CONNECTION_COLUMNS = `c.id, c.type::int as type, c.mass_status::int as mass_status, c.ship_size_type::int as ship_size_type,
  c.time_status::int as time_status, c.map_id, ${tsMicro('c.inserted_at')} as inserted_at, ${tsMicro('c.updated_at')} as updated_at,
  c.solar_system_source, c.solar_system_target, c.wormhole_type`;


const KILL_COLUMNS = `k.killmail_id::float8 as killmail_id, ${tsSeconds('k.kill_time')} as kill_time, k.solar_system_id, k.attacker_count,
  k.npc, k.total_value, k.final_blow_alliance_id::float8 as final_blow_alliance_id, k.final_blow_char_id::float8 as final_blow_char_id,
  k.final_blow_corp_id::float8 as final_blow_corp_id, k.final_blow_ship_type_id::float8 as final_blow_ship_type_id,
  k.final_blow_alliance_ticker, k.final_blow_char_name, k.final_blow_corp_ticker, k.final_blow_ship_name,
  k.victim_alliance_id::float8 as victim_alliance_id, k.victim_char_id::float8 as victim_char_id,
  k.victim_corp_id::float8 as victim_corp_id, k.victim_ship_type_id::float8 as victim_ship_type_id,
  k.victim_char_name, k.victim_corp_ticker, k.victim_ship_name, k.zkb`;

export const STRUCTURE_COLUMNS = `st.id, st.system_id, st.solar_system_id, st.solar_system_name, st.structure_type_id, st.structure_type,
  st.character_eve_id, st.name, st.notes, st.owner_name, st.owner_ticker, st.owner_id, st.status,
  ${tsMicro('st.end_time')} as end_time, ${tsMicro('st.inserted_at')} as inserted_at, ${tsMicro('st.updated_at')} as updated_at`;

export const SIGNATURE_COLUMNS = `sg.id, sg.solar_system_id, sg.eve_id as signature_id, sg.name, sg.kind, sg.group_name as "group", sg.type,
  sg.description, sg.character_eve_id, sg.linked_system_id, ${tsMicro('sg.inserted_at')} as inserted_at, ${tsMicro('sg.updated_at')} as updated_at`;

/** GET /api/map/systems-kills without `hours`: the last day. */
export const KILLS_DEFAULT_HOURS = 24;
/** Kills per system in one systems-kills answer (the newest). */
export const KILLS_PER_SYSTEM_MAX = 100;
/** Kills in one systems-kills answer (the newest), about 1 MB of JSON. */
export const KILLS_RESPONSE_MAX = 1000;


/** Read side of map data (spec 4.1). Queries are hand-written SQL shaped like the DTOs. */
export class MapDataService {
  async systems(em: EntityManager, mapId: string, all: boolean): Promise<SystemDto[]> {
    return em
      .getConnection()
      .execute<SystemDto[]>(
        `select ${SYSTEM_COLUMNS} from map_systems s where s.map_id = ? ${all ? '' : 'and s.visible'} order by s.name, s.solar_system_id`,
        [mapId],
      );
  }

  async system(em: EntityManager, mapId: string, solarSystemId: number): Promise<SystemDto> {
    const rows = await em
      .getConnection()
      .execute<SystemDto[]>(`select ${SYSTEM_COLUMNS} from map_systems s where s.map_id = ? and s.solar_system_id = ?`, [
        mapId,
        solarSystemId,
      ]);
    const row = rows[0];
    if (!row) throw new NotFoundError('System not found', 'system_not_found');
    return row;
  }

  async connections(em: EntityManager, mapId: string): Promise<ConnectionDto[]> {
    return em
      .getConnection()
      .execute<ConnectionDto[]>(`select ${CONNECTION_COLUMNS} from map_connections c where c.map_id = ? order by c.inserted_at, c.id`, [mapId]);
  }

  async trackedCharacters(em: EntityManager, mapId: string): Promise<TrackedCharacterDto[]> {
    const rows = await em
      .getConnection()
      .execute<Record<string, unknown>[]>(
        `select mc.id, mc.tracked, mc.map_id, ${CHARACTER_COLUMNS}
         from map_characters mc join characters ch on ch.id = mc.character_id
         where mc.map_id = ? order by ch.name, ch.eve_id`,
        [mapId],
      );
    return rows.map((r) => ({
      id: r.id as string,
      character: toCharacterDto(r),
      tracked: r.tracked as boolean,
      map_id: r.map_id as string,
    }));
  }

  /**
   * One entry per visible system, kills newest first, within the last `hours` hours (default
   * KILLS_DEFAULT_HOURS). At most KILLS_PER_SYSTEM_MAX kills per system and KILLS_RESPONSE_MAX in all,
   * the newest: a busy map could otherwise answer tens of MiB to every caller.
   */
  async systemsKills(em: EntityManager, mapId: string, hours = KILLS_DEFAULT_HOURS): Promise<SystemKillsDto[]> {
    const conn = em.getConnection();
    const systems = await conn.execute<{ solar_system_id: number }[]>(
      'select solar_system_id from map_systems where map_id = ? and visible order by solar_system_id',
      [mapId],
    );
    const kills = await conn.execute<KillDto[]>(
      `select ${KILL_COLUMNS} from (
         select k.*, row_number() over (partition by k.solar_system_id order by k.kill_time desc, k.killmail_id desc) as rank
         from map_kills k
         join map_systems s on s.map_id = k.map_id and s.solar_system_id = k.solar_system_id and s.visible
         where k.map_id = ? and k.kill_time >= now() - make_interval(hours => ?)
       ) k
       where k.rank <= ?
       order by k.kill_time desc, k.killmail_id desc
       limit ?`,
      [mapId, hours, KILLS_PER_SYSTEM_MAX, KILLS_RESPONSE_MAX],
    );
    const bySystem = new Map<number, KillDto[]>();
    for (const s of systems) bySystem.set(s.solar_system_id, []);
    for (const k of kills) bySystem.get(k.solar_system_id)?.push(k);
    return [...bySystem].map(([solar_system_id, list]) => ({ solar_system_id, kills: list }));
  }

  /**
   * Activity summed per user (characters without a user stand alone), in 64 bits: counters are int and
   * may each sit at their cap, so sums over days and characters pass 2^31; the group is shown as the
   * user's main character (even when only the user's other characters have activity in the window),
   * else its most active character. `days` limits to the last N days.
   */
  async characterActivity(em: EntityManager, mapId: string, days?: number): Promise<CharacterActivityDto[]> {
    const rows = await em.getConnection().execute<Record<string, unknown>[]>(
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
    if (rows.length === 0) return [];
    const chars = await em
      .getConnection()
      .execute<Record<string, unknown>[]>(`select ch.id, ${CHARACTER_COLUMNS} from characters ch where ch.id in (${rows.map(() => '?').join(',')})`, [
        ...rows.map((r) => r.character_id),
      ]);
    const byId = new Map(chars.map((c) => [c.id as string, toCharacterDto(c)]));
    return rows
      .map((r) => ({
        character: byId.get(r.character_id as string)!,
        // bigint arrives as text; sums of int counters stay far below 2^53.
        passages: Number(r.passages),
        connections: Number(r.connections),
        signatures: Number(r.signatures),
        timestamp: r.timestamp as string,
      }))
      .sort((a, b) => b.passages - a.passages || b.connections - a.connections || a.character.name.localeCompare(b.character.name));
  }

  /** Characters on the map grouped by user; a character without a user forms its own group. */
  async userCharacters(em: EntityManager, mapId: string): Promise<UserCharactersDto[]> {
    const rows = await em.getConnection().execute<Record<string, unknown>[]>(
      `select coalesce(ch.user_id::text, ch.id::text) as group_key, main.eve_id as main_eve_id, ${CHARACTER_COLUMNS}
       from map_characters mc
       join characters ch on ch.id = mc.character_id
       left join users u on u.id = ch.user_id
       left join characters main on main.id = u.main_character_id and main.user_id = u.id
       where mc.map_id = ? order by ch.name, ch.eve_id`,
      [mapId],
    );
    const groups = new Map<string, UserCharactersDto>();
    for (const r of rows) {
      const key = r.group_key as string;
      let group = groups.get(key);
      if (!group) {
        group = { characters: [], main_character_eve_id: (r.main_eve_id as string | null) ?? null };
        groups.set(key, group);
      }
      group.characters.push(toCharacterDto(r));
    }
    return [...groups.values()];
  }

  /** Timers: Anchoring or Reinforced with an end time, soonest first (decisions §4). */
  async structureTimers(em: EntityManager, mapId: string, systemId?: string): Promise<StructureTimerDto[]> {
    return em.getConnection().execute<StructureTimerDto[]>(
      `select ${STRUCTURE_COLUMNS} from map_structures st
       where st.map_id = ? and st.status in ('Anchoring', 'Reinforced') and st.end_time is not null
       ${systemId ? 'and st.system_id = ?' : ''}
       order by st.end_time, st.id`,
      systemId ? [mapId, systemId] : [mapId],
    );
  }

  /** Every structure of the map (the /api/maps/{id}/structures collection). */
  async structures(em: EntityManager, mapId: string): Promise<StructureTimerDto[]> {
    return em
      .getConnection()
      .execute<StructureTimerDto[]>(`select ${STRUCTURE_COLUMNS} from map_structures st where st.map_id = ? order by st.solar_system_name, st.name, st.id`, [
        mapId,
      ]);
  }

  /**
   * Signatures of the map's visible systems (the /api/maps/{id}/signatures collection), by system
   * then signature id; `solarSystemId` keeps one system's.
   */
  async signatures(em: EntityManager, mapId: string, solarSystemId?: number): Promise<SignatureDto[]> {
    return em.getConnection().execute<SignatureDto[]>(
      `select ${SIGNATURE_COLUMNS} from map_signatures sg
       join map_systems s on s.id = sg.system_id and s.visible
       where sg.map_id = ? ${solarSystemId !== undefined ? 'and sg.solar_system_id = ?' : ''}
       order by sg.solar_system_id, sg.eve_id`,
      solarSystemId !== undefined ? [mapId, solarSystemId] : [mapId],
    );
  }

  /** ACLs linked to the map, in list form (owner_eve_id, no members, no api_key). */
  async acls(em: EntityManager, mapId: string): Promise<AclListItemDto[]> {
    return em.getConnection().execute<AclListItemDto[]>(
      `select a.id, a.name, a.description, ch.eve_id as owner_eve_id,
              ${tsMicro('a.inserted_at')} as inserted_at, ${tsMicro('a.updated_at')} as updated_at
       from map_acls ma join acls a on a.id = ma.acl_id join characters ch on ch.id = a.owner_id
       where ma.map_id = ? order by a.name, a.id`,
      [mapId],
    );
  }
}
