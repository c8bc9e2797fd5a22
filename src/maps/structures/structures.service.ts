import type { Db } from '../../db/db.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { BadRequestError, NotFoundError } from '../../common/errors.js';
import { UUID_RE } from '../../db/sql.js';
import { MapAccess, type MapReference } from '../map-access.js';
import { MapRefRepository } from '../map.repository.js';
import { actorEveId, systemNotFound } from '../edit-support.js';
import { SystemRepository } from '../systems/system.repository.js';
import type { CreateStructureRequest, StructureTimerDto, UpdateStructureRequest } from './structures.dto.js';
import { STRUCTURE_PLAIN_FIELDS, StructureRepository, type StructureSystem } from './structure.repository.js';

function structureIdOf(id: string): string {
  if (!UUID_RE.test(id)) throw new NotFoundError('Structure not found', 'structure_not_found');
  return id.toLowerCase();
}

/**
 * Structures (timers) of map systems. They emit no events (decisions §5); `character_eve_id` is the
 * character of the key that created or last changed the structure.
 */
export class StructuresService {
  private readonly access: MapAccess;

  constructor(
    private readonly db: Db,
    private readonly structures = new StructureRepository(),
    private readonly systems = new SystemRepository(),
    private readonly maps = new MapRefRepository(),
  ) {
    this.access = new MapAccess(db, maps);
  }

  /** Every structure of the map (any status, with or without a timer). */
  async list(principal: MapKeyPrincipal, ref: MapReference): Promise<StructureTimerDto[]> {
    const map = await this.access.resolve(principal, ref);
    return this.structures.list(this.db, map.id);
  }

  /** Timers: Anchoring or Reinforced with an end time, soonest first; `systemId` (a map system's record id) keeps one system's. */
  async timers(principal: MapKeyPrincipal, ref: MapReference, systemId?: string): Promise<StructureTimerDto[]> {
    if (systemId !== undefined && !UUID_RE.test(systemId)) {
      throw new BadRequestError('validation_failed', 'Request validation failed', [{ field: 'system_id', message: 'must be a UUID' }]);
    }
    const map = await this.access.resolve(principal, ref);
    return this.structures.timers(this.db, map.id, systemId);
  }

  async create(principal: MapKeyPrincipal, ref: MapReference, req: CreateStructureRequest): Promise<StructureTimerDto> {
    const map = await this.access.resolve(principal, ref);
    return this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const system = await this.visibleSystem(tx, map.id, req.solar_system_id);
      const id = await this.structures.insert(tx, map.id, system, req, await actorEveId(tx, principal.characterId));
      return this.structures.dto(tx, id);
    });
  }

  /** Changes the given fields (others are kept); `solar_system_id` moves the structure to another system of the map. */
  async update(principal: MapKeyPrincipal, ref: MapReference, id: string, req: UpdateStructureRequest): Promise<StructureTimerDto> {
    const map = await this.access.resolve(principal, ref);
    const structureId = structureIdOf(id);
    return this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      if (!(await this.structures.exists(tx, map.id, structureId))) throw new NotFoundError('Structure not found', 'structure_not_found');
      const system = req.solar_system_id !== undefined ? await this.visibleSystem(tx, map.id, req.solar_system_id) : undefined;
      if (system || STRUCTURE_PLAIN_FIELDS.some((f) => req[f] !== undefined)) {
        await this.structures.update(tx, structureId, system, req, await actorEveId(tx, principal.characterId));
      }
      return this.structures.dto(tx, structureId);
    });
  }

  async remove(principal: MapKeyPrincipal, ref: MapReference, id: string): Promise<void> {
    const map = await this.access.resolve(principal, ref);
    if (!(await this.structures.delete(this.db, map.id, structureIdOf(id)))) throw new NotFoundError('Structure not found', 'structure_not_found');
  }

  private async visibleSystem(tx: Db, mapId: string, solarSystemId: number): Promise<StructureSystem> {
    const row = await this.systems.visible(tx, mapId, solarSystemId);
    if (!row) throw systemNotFound([{ field: 'solar_system_id', message: `${solarSystemId} is not a system on this map` }]);
    return row;
  }
}
