import type { Db } from '../../db/db.js';
import { tsMicro } from '../../db/sql.js';
import { ConflictError } from '../../common/errors.js';
import type { ConnectionRow } from '../event-payloads.js';
import { placeholders, setClause } from '../edit-support.js';
import type { ConnectionDto } from './connections.dto.js';
import type { ConnectionField } from './connections.rules.js';

const DTO_COLUMNS = `c.id, c.type::int as type, c.mass_status::int as mass_status, c.ship_size_type::int as ship_size_type,
  c.time_status::int as time_status, c.map_id, ${tsMicro('c.inserted_at')} as inserted_at, ${tsMicro('c.updated_at')} as updated_at,
  c.solar_system_source, c.solar_system_target, c.wormhole_type`;

const ROW_COLUMNS = `id, solar_system_source, solar_system_target, type::int as type, mass_status::int as mass_status,
  ship_size_type::int as ship_size_type, time_status::int as time_status, wormhole_type, locked`;

/** A connection to write: the two ends and the fields given (defaults apply to the others). */
export interface ConnectionValues {
  solar_system_source: number;
  solar_system_target: number;
  type?: number | undefined;
  mass_status?: number | undefined;
  time_status?: number | undefined;
  ship_size_type?: number | undefined;
  wormhole_type?: string | null | undefined;
  locked?: boolean | undefined;
}

/** The map_connections table: its one writer (editing API and seeding alike) and its reads. */
export class ConnectionRepository {
  async list(db: Db, mapId: string): Promise<ConnectionDto[]> {
    return db.all<ConnectionDto>(`select ${DTO_COLUMNS} from map_connections c where c.map_id = ? order by c.inserted_at, c.id`, [mapId]);
  }

  /** The ends of the connections between two visible systems of the map, flat (`[source0, target0, source1, …]`). */
  async visibleEnds(db: Db, mapId: string): Promise<number[]> {
    const [row] = await db.all<{ ends: number[] | null }>(
      `select array_agg(array[c.solar_system_source, c.solar_system_target]) as ends from map_connections c
        where c.map_id = ?
          and exists (select 1 from map_systems s where s.map_id = c.map_id and s.solar_system_id = c.solar_system_source and s.visible)
          and exists (select 1 from map_systems s where s.map_id = c.map_id and s.solar_system_id = c.solar_system_target and s.visible)`,
      [mapId],
    );
    return (row?.ends ?? []).flat();
  }

  async dto(db: Db, id: string): Promise<ConnectionDto> {
    return (await db.one<ConnectionDto>(`select ${DTO_COLUMNS} from map_connections c where c.id = ?`, [id]))!;
  }

  async row(db: Db, mapId: string, id: string): Promise<ConnectionRow | undefined> {
    return db.one<ConnectionRow>(`select ${ROW_COLUMNS} from map_connections where map_id = ? and id = ?`, [mapId, id]);
  }

  /** The map's connections among `ids`, oldest first. */
  async rows(db: Db, mapId: string, ids: readonly string[]): Promise<ConnectionRow[]> {
    if (ids.length === 0) return [];
    return db.all<ConnectionRow>(
      `select ${ROW_COLUMNS} from map_connections where map_id = ? and id in (${placeholders(ids.length)}) order by inserted_at, id`,
      [mapId, ...ids],
    );
  }

  /**
   * The connection between two systems, in either orientation: the one from `a` to `b` when there is
   * one, else the one from `b` to `a`.
   */
  async byEnds(db: Db, mapId: string, a: number, b: number): Promise<ConnectionRow | undefined> {
    return db.one<ConnectionRow>(
      `select ${ROW_COLUMNS} from map_connections where map_id = ?
         and ((solar_system_source = ? and solar_system_target = ?) or (solar_system_source = ? and solar_system_target = ?))
       order by (solar_system_source = ?) desc, inserted_at, id limit 1`,
      [mapId, a, b, b, a, a],
    );
  }

  /** Connections with an end at the solar system, oldest first. */
  async touching(db: Db, mapId: string, solarSystemId: number): Promise<ConnectionRow[]> {
    return db.all<ConnectionRow>(
      `select ${ROW_COLUMNS} from map_connections where map_id = ? and (solar_system_source = ? or solar_system_target = ?) order by inserted_at, id`,
      [mapId, solarSystemId, solarSystemId],
    );
  }

  /**
   * Connects two systems; 409 `connection_exists` when they are already connected (either way), unless
   * `allowParallel` (seeding only: the same two systems connected more than once).
   */
  async insert(db: Db, mapId: string, c: ConnectionValues, allowParallel = false): Promise<ConnectionRow> {
    if (!allowParallel) {
      const dup = await db.one(
        `select id from map_connections where map_id = ?
           and ((solar_system_source = ? and solar_system_target = ?) or (solar_system_source = ? and solar_system_target = ?)) limit 1`,
        [mapId, c.solar_system_source, c.solar_system_target, c.solar_system_target, c.solar_system_source],
      );
      if (dup) throw new ConflictError('connection_exists', 'These systems are already connected');
    }
    return (await db.one<ConnectionRow>(
      `insert into map_connections (map_id, solar_system_source, solar_system_target, type, mass_status, time_status, ship_size_type, wormhole_type, locked)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning ${ROW_COLUMNS}`,
      [
        mapId,
        c.solar_system_source,
        c.solar_system_target,
        c.type ?? 0,
        c.mass_status ?? 0,
        c.time_status ?? 0,
        c.ship_size_type ?? 2,
        c.wormhole_type ?? null,
        c.locked ?? false,
      ],
    ))!;
  }

  /** Sets the given fields; the row after the change. */
  async update(db: Db, id: string, v: Partial<Record<ConnectionField, unknown>>): Promise<ConnectionRow> {
    const fields = Object.keys(v) as ConnectionField[];
    return (await db.one<ConnectionRow>(`update map_connections set ${setClause(fields)}, updated_at = now() where id = ? returning ${ROW_COLUMNS}`, [
      ...fields.map((f) => v[f]),
      id,
    ]))!;
  }

  async delete(db: Db, ids: readonly string[]): Promise<void> {
    if (ids.length) await db.run(`delete from map_connections where id in (${placeholders(ids.length)})`, ids);
  }

  /** Copies every connection of `from` onto the map `to` (whose systems are already copied). */
  async copyMap(db: Db, from: string, to: string): Promise<number> {
    return db.run(
      `insert into map_connections (map_id, solar_system_source, solar_system_target, type, mass_status, time_status, ship_size_type, wormhole_type, locked)
       select ?, solar_system_source, solar_system_target, type, mass_status, time_status, ship_size_type, wormhole_type, locked
       from map_connections where map_id = ? order by inserted_at, id`,
      [to, from],
    );
  }
}
