import type { Db } from '../../db/db.js';
import type { Outbox, OutboxEvent } from '../../events/outbox.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { AppError, ConflictError, NotFoundError, ValidationError, type ErrorDetail } from '../../common/errors.js';
import { SolarSystemRepository } from '../../static-data/solar-system.repository.js';
import { MapAccess, type MapReference } from '../map-access.js';
import { MapRefRepository } from '../map.repository.js';
import { addSystemEvent, connectionRemovedEvent, deletedSystemEvent, systemMetadataChangedEvent, type SystemRow } from '../event-payloads.js';
import { changedFields, solarSystemsNotFound, systemNotFound } from '../edit-support.js';
import { ConnectionRepository } from '../connections/connection.repository.js';
import type {
  AddSystemRequest,
  AddSystemsRequest,
  DeletedCountDto,
  DeleteSystemsAndConnectionsRequest,
  SystemDto,
  SystemFieldsInput,
  SystemsAndConnectionsDto,
} from './systems.dto.js';
import { refuseRepeatedSystems, SYSTEM_FIELDS, systemValues } from './systems.rules.js';
import { SystemRepository } from './system.repository.js';

/**
 * Systems of a map: reads, and the editing API's writes. Every change writes its rows and its events
 * (decisions §5) in one transaction; a refused request writes nothing.
 */
export class SystemsService {
  private readonly access: MapAccess;

  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    private readonly systems = new SystemRepository(),
    private readonly connections = new ConnectionRepository(),
    private readonly solarSystems = new SolarSystemRepository(),
    private readonly maps = new MapRefRepository(),
  ) {
    this.access = new MapAccess(db, maps);
  }

  /** The map's systems (visible ones, or all with `all`) and its connections. */
  async listWithConnections(principal: MapKeyPrincipal, ref: MapReference, all: boolean): Promise<SystemsAndConnectionsDto> {
    const map = await this.access.resolve(principal, ref);
    return { systems: await this.systems.list(this.db, map.id, all), connections: await this.connections.list(this.db, map.id) };
  }

  async list(principal: MapKeyPrincipal, ref: MapReference, all: boolean): Promise<SystemDto[]> {
    const map = await this.access.resolve(principal, ref);
    return this.systems.list(this.db, map.id, all);
  }

  /** One system of the map (hidden ones too); 404 `system_not_found`. */
  async get(principal: MapKeyPrincipal, ref: MapReference, solarSystemId: number): Promise<SystemDto> {
    const map = await this.access.resolve(principal, ref);
    const system = await this.systems.dto(this.db, map.id, solarSystemId);
    if (!system) throw new NotFoundError('System not found', 'system_not_found');
    return system;
  }

  /** The body of POST …/systems: one system (answered as one) or `{systems}` (answered as a list, in request order). */
  async addFromBody(principal: MapKeyPrincipal, ref: MapReference, body: AddSystemRequest | AddSystemsRequest): Promise<SystemDto | SystemDto[]> {
    const batch = 'systems' in body;
    const systems = await this.add(principal, ref, batch ? body.systems : [body], batch);
    return batch ? systems : systems[0]!;
  }

  /**
   * Adds systems (or shows hidden ones again, keeping their earlier settings unless given). A system
   * already visible is updated with the given fields instead. Events: add_system for each system
   * that appears, system_metadata_changed (with `changed`) for each visible one that changed.
   * With `batch`, error details name the body path as `systems[0].…`.
   */
  async add(principal: MapKeyPrincipal, ref: MapReference, inputs: AddSystemRequest[], batch: boolean): Promise<SystemDto[]> {
    const map = await this.access.resolve(principal, ref);
    const where = (i: number) => (batch ? `systems[${i}].` : '');
    const ids = inputs.map((s) => s.solar_system_id);
    refuseRepeatedSystems(ids, where);
    const values = inputs.map((s, i) => systemValues(s, where(i)));

    return this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const statics = await this.solarSystems.byIds(tx, ids);
      const unknown = ids.flatMap((id, i) => (statics.has(id) ? [] : [{ field: `${where(i)}solar_system_id`, message: `${id} is not a known solar system` }]));
      if (unknown.length) throw solarSystemsNotFound(unknown);

      const existing = await this.systems.rows(tx, map.id, ids);
      const events: OutboxEvent[] = [];
      const resultIds: string[] = [];
      for (const [i, id] of ids.entries()) {
        const info = statics.get(id)!;
        const v = values[i]!;
        const row = existing.get(id);
        if (!row || !row.visible) {
          const shown = row ? await this.systems.update(tx, row.id, v, true) : await this.systems.insert(tx, map.id, id, info.solar_system_name, v);
          events.push(addSystemEvent(map.id, shown, info));
          resultIds.push(shown.id);
        } else {
          const changed = changedFields(SYSTEM_FIELDS, row, v);
          if (changed.length) {
            const updated = await this.systems.update(tx, row.id, Object.fromEntries(changed.map((f) => [f, v[f]])));
            events.push(systemMetadataChangedEvent(map.id, updated, changed));
          }
          resultIds.push(row.id);
        }
      }
      await this.outbox.append(tx.em, events);
      return this.systems.dtosByIds(tx, resultIds);
    });
  }

  /** Changes a visible system's fields; system_metadata_changed lists the fields that changed (no event when none did). */
  async update(principal: MapKeyPrincipal, ref: MapReference, solarSystemId: number, input: SystemFieldsInput): Promise<SystemDto> {
    const map = await this.access.resolve(principal, ref);
    const v = systemValues(input, '');
    return this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const row = await this.systems.visible(tx, map.id, solarSystemId);
      if (!row) throw systemNotFound();
      const changed = changedFields(SYSTEM_FIELDS, row, v);
      if (changed.length) {
        const updated = await this.systems.update(tx, row.id, Object.fromEntries(changed.map((f) => [f, v[f]])));
        await this.outbox.append(tx.em, [systemMetadataChangedEvent(map.id, updated, changed)]);
      }
      return (await this.systems.dtosByIds(tx, [row.id]))[0]!;
    });
  }

  /**
   * Hides a visible system (visible=false, settings kept) and removes its connections. Events, in one
   * transaction: connection_removed for each removed connection, then deleted_system. A locked
   * system is refused (409 `system_locked`).
   */
  async remove(principal: MapKeyPrincipal, ref: MapReference, solarSystemId: number): Promise<void> {
    const map = await this.access.resolve(principal, ref);
    await this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const row = await this.systems.visible(tx, map.id, solarSystemId);
      if (!row) throw systemNotFound();
      if (row.locked) throw new ConflictError('system_locked', 'System is locked; unlock it before deleting it');
      await this.outbox.append(tx.em, await this.hide(tx, map.id, row, new Set()));
    });
  }

  /**
   * Deletes listed systems (hidden, with their connections, as `remove` does) and listed connections in
   * one transaction. Ids not on the map are skipped; a locked system or connection refuses the whole
   * batch (409, details naming it). Events: connection_removed for each listed connection, then for each
   * system connection_removed for each of its remaining connections and deleted_system.
   */
  async removeMany(principal: MapKeyPrincipal, ref: MapReference, body: DeleteSystemsAndConnectionsRequest): Promise<DeletedCountDto> {
    const map = await this.access.resolve(principal, ref);
    const systemIds = [...new Set(body.system_ids ?? [])];
    const connectionIds = [...new Set((body.connection_ids ?? []).map((id) => id.toLowerCase()))];
    if (systemIds.length + connectionIds.length === 0) {
      throw new ValidationError([{ field: 'system_ids', message: 'name at least one system in system_ids or connection in connection_ids' }]);
    }
    return this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const listed = await this.connections.rows(tx, map.id, connectionIds);
      const systems = systemIds.length ? [...(await this.systems.rows(tx, map.id, systemIds)).values()].filter((r) => r.visible) : [];
      refuseLocked(
        'system_locked',
        'A listed system is locked; unlock it before deleting it',
        systems
          .filter((r) => r.locked)
          .map((r) => ({ field: `system_ids[${(body.system_ids ?? []).indexOf(r.solar_system_id)}]`, message: `${r.solar_system_id} is locked` })),
      );
      refuseLocked(
        'connection_locked',
        'A listed connection is locked; unlock it before deleting it',
        listed.filter((c) => c.locked).map((c) => ({ field: `connection_ids[${connectionIds.indexOf(c.id)}]`, message: `${c.id} is locked` })),
      );
      const removed = new Set(listed.map((c) => c.id));
      await this.connections.delete(tx, [...removed]);
      const nameOf = await this.systems.names(
        tx,
        map.id,
        listed.flatMap((c) => [c.solar_system_source, c.solar_system_target]),
      );
      const events: OutboxEvent[] = listed.map((c) => connectionRemovedEvent(map.id, c, nameOf));
      // In request order, so the events follow the order the client named the systems in.
      systems.sort((a, b) => systemIds.indexOf(a.solar_system_id) - systemIds.indexOf(b.solar_system_id));
      for (const row of systems) events.push(...(await this.hide(tx, map.id, row, removed)));
      await this.outbox.append(tx.em, events);
      return { deleted_count: listed.length + systems.length, deleted_systems: systems.length, deleted_connections: listed.length };
    });
  }

  /** Hides a visible system and removes its connections not in `removed` (adding them to it); its events. */
  private async hide(tx: Db, mapId: string, row: SystemRow, removed: Set<string>): Promise<OutboxEvent[]> {
    const touching = (await this.connections.touching(tx, mapId, row.solar_system_id)).filter((c) => !removed.has(c.id));
    for (const c of touching) removed.add(c.id);
    await this.connections.delete(
      tx,
      touching.map((c) => c.id),
    );
    const nameOf = await this.systems.names(
      tx,
      mapId,
      touching.flatMap((c) => [c.solar_system_source, c.solar_system_target]),
    );
    await this.systems.update(tx, row.id, {}, false);
    return [...touching.map((c) => connectionRemovedEvent(mapId, c, nameOf)), deletedSystemEvent(mapId, row)];
  }
}

/** 409 with `code` naming each locked item, when there is one. */
function refuseLocked(code: string, message: string, details: ErrorDetail[]): void {
  if (details.length) throw new AppError(409, code, message, details);
}
