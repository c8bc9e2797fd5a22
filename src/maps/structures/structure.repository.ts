import type { Db } from '../../db/db.js';
import { tsMicro } from '../../db/sql.js';
import type { StructureTimerDto } from './structures.dto.js';

const DTO_COLUMNS = `st.id, st.system_id, st.solar_system_id, st.solar_system_name, st.structure_type_id, st.structure_type,
  st.character_eve_id, st.name, st.notes, st.owner_name, st.owner_ticker, st.owner_id, st.status,
  ${tsMicro('st.end_time')} as end_time, ${tsMicro('st.inserted_at')} as inserted_at, ${tsMicro('st.updated_at')} as updated_at`;

/** Structure fields a write sets directly (API name = column). */
export const STRUCTURE_PLAIN_FIELDS = [
  'structure_type_id',
  'structure_type',
  'name',
  'status',
  'end_time',
  'notes',
  'owner_name',
  'owner_ticker',
  'owner_id',
] as const;
export type StructurePlainField = (typeof STRUCTURE_PLAIN_FIELDS)[number];

/** The map system a structure stands in. */
export interface StructureSystem {
  id: string;
  solar_system_id: number;
  name: string;
}

/** The map_structures table: its one writer (editing API and seeding alike) and its reads. */
export class StructureRepository {
  /** Every structure of the map. */
  async list(db: Db, mapId: string): Promise<StructureTimerDto[]> {
    return db.all<StructureTimerDto>(`select ${DTO_COLUMNS} from map_structures st where st.map_id = ? order by st.solar_system_name, st.name, st.id`, [mapId]);
  }

  /** Timers: Anchoring or Reinforced with an end time, soonest first (decisions §4); `systemId` keeps one map system's. */
  async timers(db: Db, mapId: string, systemId?: string): Promise<StructureTimerDto[]> {
    return db.all<StructureTimerDto>(
      `select ${DTO_COLUMNS} from map_structures st
       where st.map_id = ? and st.status in ('Anchoring', 'Reinforced') and st.end_time is not null
       ${systemId ? 'and st.system_id = ?' : ''}
       order by st.end_time, st.id`,
      systemId ? [mapId, systemId] : [mapId],
    );
  }

  async dto(db: Db, id: string): Promise<StructureTimerDto> {
    return (await db.one<StructureTimerDto>(`select ${DTO_COLUMNS} from map_structures st where st.id = ?`, [id]))!;
  }

  async exists(db: Db, mapId: string, id: string): Promise<boolean> {
    return (await db.one('select id from map_structures where map_id = ? and id = ?', [mapId, id])) !== undefined;
  }

  /** Adds a structure to a map system; its record id. `actorEveId` is the character it is attributed to. */
  async insert(db: Db, mapId: string, system: StructureSystem, v: Partial<Record<StructurePlainField, unknown>>, actorEveId: string | null): Promise<string> {
    const row = await db.one<{ id: string }>(
      `insert into map_structures (map_id, system_id, solar_system_id, solar_system_name, structure_type_id, structure_type,
         character_eve_id, name, notes, owner_name, owner_ticker, owner_id, status, end_time)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
      [
        mapId,
        system.id,
        system.solar_system_id,
        system.name,
        v.structure_type_id,
        v.structure_type,
        actorEveId,
        v.name,
        v.notes ?? null,
        v.owner_name ?? null,
        v.owner_ticker ?? null,
        v.owner_id ?? null,
        v.status ?? 'Powered',
        v.end_time ?? null,
      ],
    );
    return row!.id;
  }

  /** Sets the given fields (moving it when `system` is given) and attributes the change to `actorEveId`. */
  async update(db: Db, id: string, system: StructureSystem | undefined, v: Partial<Record<StructurePlainField, unknown>>, actorEveId: string): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [];
    if (system) {
      sets.push('system_id = ?', 'solar_system_id = ?', 'solar_system_name = ?');
      params.push(system.id, system.solar_system_id, system.name);
    }
    for (const f of STRUCTURE_PLAIN_FIELDS) {
      if (v[f] === undefined) continue;
      sets.push(`${f} = ?`);
      params.push(v[f]);
    }
    await db.run(`update map_structures set ${sets.join(', ')}, character_eve_id = ?, updated_at = now() where id = ?`, [...params, actorEveId, id]);
  }

  /** True when the structure was there. */
  async delete(db: Db, mapId: string, id: string): Promise<boolean> {
    return (await db.run('delete from map_structures where map_id = ? and id = ?', [mapId, id])) > 0;
  }

  /** Copies every structure of `from` onto the same systems of the map `to` (whose systems are already copied). */
  async copyMap(db: Db, from: string, to: string): Promise<number> {
    return db.run(
      `insert into map_structures (map_id, system_id, solar_system_id, solar_system_name, structure_type_id, structure_type, character_eve_id,
         name, notes, owner_name, owner_ticker, owner_id, status, end_time)
       select ?, ns.id, st.solar_system_id, st.solar_system_name, st.structure_type_id, st.structure_type, st.character_eve_id,
         st.name, st.notes, st.owner_name, st.owner_ticker, st.owner_id, st.status, st.end_time
       from map_structures st join map_systems ns on ns.map_id = ? and ns.solar_system_id = st.solar_system_id
       where st.map_id = ? order by st.inserted_at, st.id`,
      [to, to, from],
    );
  }
}
