import type { Db } from '../../db/db.js';
import type { Outbox } from '../../events/outbox.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { UUID_RE } from '../../db/sql.js';
import { NotFoundError } from '../../common/errors.js';
import { CharacterRepository } from '../../characters/character.repository.js';
import { MapAccess, type MapReference } from '../map-access.js';
import { MapRefRepository } from '../map.repository.js';
import { rallyPointAddedEvent, rallyPointRemovedEvent } from '../event-payloads.js';
import { systemNotFound } from '../edit-support.js';
import { SystemRepository } from '../systems/system.repository.js';
import type { AddRallyPointRequest, RallyPointDto } from './rally-points.dto.js';
import { RallyPointRepository, toAddedPayload, toDto } from './rally-point.repository.js';

/** Rally points of a map; adding one emits rally_point_added, removing one rally_point_removed, in the change's transaction. */
export class RallyPointsService {
  private readonly access: MapAccess;

  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    private readonly rallyPoints = new RallyPointRepository(),
    private readonly systems = new SystemRepository(),
    private readonly characters = new CharacterRepository(),
    private readonly maps = new MapRefRepository(),
  ) {
    this.access = new MapAccess(db, maps);
  }

  async list(principal: MapKeyPrincipal, ref: MapReference): Promise<RallyPointDto[]> {
    const map = await this.access.resolve(principal, ref);
    return this.rallyPoints.list(this.db, map.id);
  }

  /** 404 `system_not_found` when the system is not visible on the map, `character_not_found` for an unknown character. */
  async add(principal: MapKeyPrincipal, ref: MapReference, req: AddRallyPointRequest): Promise<RallyPointDto> {
    const map = await this.access.resolve(principal, ref);
    return this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const system = await this.systems.visible(tx, map.id, req.solar_system_id);
      if (!system) throw systemNotFound([{ field: 'solar_system_id', message: `${req.solar_system_id} is not a system on this map` }]);
      const character = await this.characters.requireByEveId(tx, req.character_eve_id);
      const id = await this.rallyPoints.insert(tx, {
        mapId: map.id,
        systemId: system.id,
        solarSystemId: req.solar_system_id,
        characterId: character.id,
        message: req.message ?? null,
      });
      const row = (await this.rallyPoints.row(tx, map.id, id))!;
      await this.outbox.append(tx.em, [rallyPointAddedEvent(map.id, toAddedPayload(row))]);
      return toDto(row);
    });
  }

  /** 404 `rally_point_not_found` when the map has no such rally point. */
  async remove(principal: MapKeyPrincipal, ref: MapReference, id: string): Promise<void> {
    const map = await this.access.resolve(principal, ref);
    if (!UUID_RE.test(id)) throw rallyPointNotFound();
    await this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const row = await this.rallyPoints.row(tx, map.id, id.toLowerCase());
      if (!row) throw rallyPointNotFound();
      await this.rallyPoints.delete(tx, row.id);
      await this.outbox.append(tx.em, [rallyPointRemovedEvent(map.id, toAddedPayload(row))]);
    });
  }
}

function rallyPointNotFound(): NotFoundError {
  return new NotFoundError('Rally point not found', 'rally_point_not_found');
}
