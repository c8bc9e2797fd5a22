import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../errors.js';
import { UUID_RE } from '../db/sql.js';
import { STRUCTURE_COLUMNS } from './map-data.service.js';
import type { StructureTimerDto } from './map.dto.js';
import type { CreateStructureRequest, UpdateStructureRequest } from './map-edit.dto.js';
import { actorEveId, lockMap, queryIn, systemNotFound, type Query } from './edit-support.js';

/** Structure fields a write may set directly (API name = column). */
const PLAIN_FIELDS = ['structure_type_id', 'structure_type', 'name', 'status', 'end_time', 'notes', 'owner_name', 'owner_ticker', 'owner_id'] as const;

function structureIdOf(id: string): string {
  if (!UUID_RE.test(id)) throw new NotFoundError('Structure not found', 'structure_not_found');
  return id.toLowerCase();
}

async function visibleSystem(q: Query, mapId: string, solarSystemId: number): Promise<{ id: string; name: string }> {
  const rows = await q<{ id: string; name: string }>('select id, name from map_systems where map_id = ? and solar_system_id = ? and visible', [
    mapId,
    solarSystemId,
  ]);
  if (!rows[0]) throw systemNotFound([{ field: 'solar_system_id', message: `${solarSystemId} is not a system on this map` }]);
  return rows[0];
}

async function read(q: Query, id: string): Promise<StructureTimerDto> {
  const rows = await q<StructureTimerDto>(`select ${STRUCTURE_COLUMNS} from map_structures st where st.id = ?`, [id]);
  return rows[0]!;
}

/**
 * Structures (timers) of map systems. They emit no events (decisions §5); `character_eve_id` is the
 * character of the key that created or last changed the structure.
 */
export class StructureService {
  async create(em: EntityManager, mapId: string, actorCharacterId: string, req: CreateStructureRequest): Promise<StructureTimerDto> {
    return em.transactional(async (tx) => {
      const q = queryIn(tx);
      await lockMap(q, mapId);
      const system = await visibleSystem(q, mapId, req.solar_system_id);
      const actor = await actorEveId(q, actorCharacterId);
      const rows = await q<{ id: string }>(
        `insert into map_structures (map_id, system_id, solar_system_id, solar_system_name, structure_type_id, structure_type,
           character_eve_id, name, notes, owner_name, owner_ticker, owner_id, status, end_time)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
        [
          mapId,
          system.id,
          req.solar_system_id,
          system.name,
          req.structure_type_id,
          req.structure_type,
          actor,
          req.name,
          req.notes ?? null,
          req.owner_name ?? null,
          req.owner_ticker ?? null,
          req.owner_id ?? null,
          req.status ?? 'Powered',
          req.end_time ?? null,
        ],
      );
      return read(q, rows[0]!.id);
    });
  }

  /** Changes the given fields (others are kept); `solar_system_id` moves the structure to another system of the map. */
  async update(em: EntityManager, mapId: string, id: string, actorCharacterId: string, req: UpdateStructureRequest): Promise<StructureTimerDto> {
    const structureId = structureIdOf(id);
    return em.transactional(async (tx) => {
      const q = queryIn(tx);
      await lockMap(q, mapId);
      const found = await q('select id from map_structures where map_id = ? and id = ?', [mapId, structureId]);
      if (!found.length) throw new NotFoundError('Structure not found', 'structure_not_found');
      const sets: string[] = [];
      const params: unknown[] = [];
      if (req.solar_system_id !== undefined) {
        const system = await visibleSystem(q, mapId, req.solar_system_id);
        sets.push('system_id = ?', 'solar_system_id = ?', 'solar_system_name = ?');
        params.push(system.id, req.solar_system_id, system.name);
      }
      for (const f of PLAIN_FIELDS) {
        if (req[f] === undefined) continue;
        sets.push(`${f} = ?`);
        params.push(req[f]);
      }
      if (sets.length) {
        const actor = await actorEveId(q, actorCharacterId);
        await q(`update map_structures set ${sets.join(', ')}, character_eve_id = ?, updated_at = now() where id = ?`, [...params, actor, structureId]);
      }
      return read(q, structureId);
    });
  }

  async remove(em: EntityManager, mapId: string, id: string): Promise<void> {
    const structureId = structureIdOf(id);
    const rows = await em.getConnection().execute('delete from map_structures where map_id = ? and id = ? returning id', [mapId, structureId]);
    if (!rows.length) throw new NotFoundError('Structure not found', 'structure_not_found');
  }
}
