import type { Db } from '../../db/db.js';
import { tsMicro } from '../../db/sql.js';
import type { NameOf, SystemRow } from '../event-payloads.js';
import { placeholders, setClause } from '../edit-support.js';
import type { SystemDto } from './systems.dto.js';
import type { SystemField } from './systems.rules.js';

const DTO_COLUMNS = `s.id, s.name, s.status::int as status, s.tag, s.visible, s.description, s.labels,
  ${tsMicro('s.inserted_at')} as inserted_at, ${tsMicro('s.updated_at')} as updated_at, s.locked,
  s.solar_system_id, s.map_id, s.custom_name, s.position_x, s.position_y`;

const ROW_COLUMNS = `id, solar_system_id, name, custom_name, tag, status::int as status, labels, description, locked, visible, position_x, position_y`;

/** Values of a system's editable fields, as columns take them (status as its integer). */
export type SystemValues = Partial<Record<SystemField, unknown>>;

/** The map_systems table: its one writer (editing API and seeding alike) and its reads. */
export class SystemRepository {
  async list(db: Db, mapId: string, all: boolean): Promise<SystemDto[]> {
    return db.all<SystemDto>(`select ${DTO_COLUMNS} from map_systems s where s.map_id = ? ${all ? '' : 'and s.visible'} order by s.name, s.solar_system_id`, [
      mapId,
    ]);
  }

  async dto(db: Db, mapId: string, solarSystemId: number): Promise<SystemDto | undefined> {
    return db.one<SystemDto>(`select ${DTO_COLUMNS} from map_systems s where s.map_id = ? and s.solar_system_id = ?`, [mapId, solarSystemId]);
  }

  /** DTOs by record id, in the order of `ids`. */
  async dtosByIds(db: Db, ids: readonly string[]): Promise<SystemDto[]> {
    const rows = await db.all<SystemDto>(`select ${DTO_COLUMNS} from map_systems s where s.id in (${placeholders(ids.length)})`, ids);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)!);
  }

  /** Rows (visible or not) of the given solar systems on the map, by solar system id. */
  async rows(db: Db, mapId: string, solarSystemIds: readonly number[]): Promise<Map<number, SystemRow>> {
    const rows = await db.all<SystemRow>(
      `select ${ROW_COLUMNS} from map_systems where map_id = ? and solar_system_id in (${placeholders(solarSystemIds.length)})`,
      [mapId, ...solarSystemIds],
    );
    return new Map(rows.map((r) => [r.solar_system_id, r]));
  }

  async visible(db: Db, mapId: string, solarSystemId: number): Promise<SystemRow | undefined> {
    return db.one<SystemRow>(`select ${ROW_COLUMNS} from map_systems where map_id = ? and solar_system_id = ? and visible`, [mapId, solarSystemId]);
  }

  /** The solar system ids among `ids` that are visible systems of the map. */
  async visibleAmong(db: Db, mapId: string, ids: readonly number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await db.all<{ solar_system_id: number }>(
      `select solar_system_id from map_systems where map_id = ? and visible and solar_system_id in (${placeholders(ids.length)})`,
      [mapId, ...ids],
    );
    return new Set(rows.map((r) => r.solar_system_id));
  }

  /** Solar system ids of the map's visible systems, ascending. */
  async visibleIds(db: Db, mapId: string): Promise<number[]> {
    return (
      await db.all<{ solar_system_id: number }>('select solar_system_id from map_systems where map_id = ? and visible order by solar_system_id', [mapId])
    ).map((r) => r.solar_system_id);
  }

  /** Names of systems on the map (visible or not), for events; null for a system not on the map. */
  async names(db: Db, mapId: string, ids: readonly number[]): Promise<NameOf> {
    if (ids.length === 0) return () => null;
    const unique = [...new Set(ids)];
    const rows = await db.all<{ solar_system_id: number; name: string }>(
      `select solar_system_id, name from map_systems where map_id = ? and solar_system_id in (${placeholders(unique.length)})`,
      [mapId, ...unique],
    );
    const byId = new Map(rows.map((r) => [r.solar_system_id, r.name]));
    return (sid) => byId.get(sid) ?? null;
  }

  /**
   * Places a solar system on the map. `name` is the static data's (seeding may name a system the static
   * data does not know); `visible: false` adds it hidden (seeding only: the editing API always shows it).
   */
  async insert(db: Db, mapId: string, solarSystemId: number, name: string, v: SystemValues, visible = true): Promise<SystemRow> {
    return (await db.one<SystemRow>(
      `insert into map_systems (map_id, solar_system_id, name, custom_name, description, tag, labels, status, visible, locked, position_x, position_y)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning ${ROW_COLUMNS}`,
      [
        mapId,
        solarSystemId,
        name,
        v.custom_name ?? null,
        v.description ?? null,
        v.tag ?? null,
        v.labels ?? null,
        v.status ?? 0,
        visible,
        v.locked ?? false,
        v.position_x ?? 0,
        v.position_y ?? 0,
      ],
    ))!;
  }

  /** Sets the given fields (and `visible` when given); the row after the change. */
  async update(db: Db, id: string, v: SystemValues, visible?: boolean): Promise<SystemRow> {
    const fields = Object.keys(v) as SystemField[];
    const columns = [...(visible === undefined ? [] : ['visible']), ...fields];
    const values = [...(visible === undefined ? [] : [visible]), ...fields.map((f) => v[f])];
    return (await db.one<SystemRow>(
      `update map_systems set ${columns.length ? `${setClause(columns)}, ` : ''}updated_at = now() where id = ? returning ${ROW_COLUMNS}`,
      [...values, id],
    ))!;
  }

  /** Copies every system of `from` (hidden ones too, with their settings) onto the empty map `to`. */
  async copyMap(db: Db, from: string, to: string): Promise<number> {
    return db.run(
      `insert into map_systems (map_id, solar_system_id, name, custom_name, description, tag, labels, status, visible, locked, position_x, position_y)
       select ?, solar_system_id, name, custom_name, description, tag, labels, status, visible, locked, position_x, position_y
       from map_systems where map_id = ? order by inserted_at, id`,
      [to, from],
    );
  }
}
