import type { Db } from '../../db/db.js';
import { tsMicro } from '../../db/sql.js';
import type { RallyPointAddedPayload } from '../../events/catalog.js';
import type { RallyPointDto } from './rally-points.dto.js';

const COLUMNS = `r.id, r.solar_system_id, r.system_id, s.name as system_name, ch.eve_id as character_eve_id, ch.name as character_name,
  r.message, ${tsMicro('r.inserted_at')} as inserted_at, r.character_id`;

const FROM = `map_rally_points r join map_systems s on s.id = r.system_id join characters ch on ch.id = r.character_id`;

/** A rally point row with what its events carry. */
export type RallyPointRow = RallyPointDto & { character_id: string };

/** The map_rally_points table: its one writer and its reads. */
export class RallyPointRepository {
  /** The map's rally points, oldest first. */
  async list(db: Db, mapId: string): Promise<RallyPointDto[]> {
    const rows = await db.all<RallyPointRow>(`select ${COLUMNS} from ${FROM} where r.map_id = ? order by r.inserted_at, r.id`, [mapId]);
    return rows.map(toDto);
  }

  async row(db: Db, mapId: string, id: string): Promise<RallyPointRow | undefined> {
    return db.one<RallyPointRow>(`select ${COLUMNS} from ${FROM} where r.map_id = ? and r.id = ?`, [mapId, id]);
  }

  async insert(db: Db, r: { mapId: string; systemId: string; solarSystemId: number; characterId: string; message: string | null }): Promise<string> {
    return (await db.one<{ id: string }>(
      'insert into map_rally_points (map_id, system_id, solar_system_id, character_id, message) values (?, ?, ?, ?, ?) returning id',
      [r.mapId, r.systemId, r.solarSystemId, r.characterId, r.message],
    ))!.id;
  }

  async delete(db: Db, id: string): Promise<void> {
    await db.run('delete from map_rally_points where id = ?', [id]);
  }
}

export function toDto(r: RallyPointRow): RallyPointDto {
  return {
    id: r.id,
    solar_system_id: r.solar_system_id,
    system_id: r.system_id,
    system_name: r.system_name,
    character_eve_id: r.character_eve_id,
    character_name: r.character_name,
    message: r.message,
    inserted_at: r.inserted_at,
  };
}

/** What rally_point_added carries, from the row. */
export function toAddedPayload(r: RallyPointRow): RallyPointAddedPayload {
  return {
    rally_point_id: r.id,
    solar_system_id: r.solar_system_id,
    system_id: r.system_id,
    system_name: r.system_name,
    character_id: r.character_id,
    character_name: r.character_name,
    character_eve_id: r.character_eve_id,
    message: r.message,
    created_at: r.inserted_at,
  };
}
