import type { Db } from '../../db/db.js';
import type { Outbox } from '../../events/outbox.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { ConflictError, NotFoundError } from '../../common/errors.js';
import { MapAccess, type MapReference } from '../map-access.js';
import { MapRefRepository } from '../map.repository.js';
import { connectionAddedEvent, connectionRemovedEvent, connectionUpdatedEvent, type ConnectionRow } from '../event-payloads.js';
import { changedFields, systemNotFound } from '../edit-support.js';
import { SystemRepository } from '../systems/system.repository.js';
import type { AddConnectionRequest, ConnectionDto, UpdateConnectionRequest } from './connections.dto.js';
import { CONNECTION_FIELDS, connectionIdOf, connectionValues, normaliseWormholeType, refuseLoop } from './connections.rules.js';
import { ConnectionRepository } from './connection.repository.js';

/**
 * Connections of a map: reads, and the editing API's writes. Every change writes its rows and its
 * events (decisions §5) in one transaction; a refused request writes nothing.
 */
export class ConnectionsService {
  private readonly access: MapAccess;

  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    private readonly connections = new ConnectionRepository(),
    private readonly systems = new SystemRepository(),
    private readonly maps = new MapRefRepository(),
  ) {
    this.access = new MapAccess(db, maps);
  }

  /** The map's connections, oldest first. */
  async list(principal: MapKeyPrincipal, ref: MapReference): Promise<ConnectionDto[]> {
    const map = await this.access.resolve(principal, ref);
    return this.connections.list(this.db, map.id);
  }

  /**
   * Connects two visible systems of the map. Event connection_added. 404 `system_not_found` when an
   * end is not on the map; 409 `connection_exists` when the two are already connected (either way).
   */
  async add(principal: MapKeyPrincipal, ref: MapReference, body: AddConnectionRequest): Promise<ConnectionDto> {
    const map = await this.access.resolve(principal, ref);
    const input = normaliseWormholeType(body);
    refuseLoop(input.solar_system_source, input.solar_system_target);
    return this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const onMap = await this.systems.visibleAmong(tx, map.id, [input.solar_system_source, input.solar_system_target]);
      const missing = (['solar_system_source', 'solar_system_target'] as const)
        .filter((f) => !onMap.has(input[f]))
        .map((f) => ({ field: f, message: `${input[f]} is not a system on this map` }));
      if (missing.length) throw systemNotFound(missing);
      const row = await this.connections.insert(tx, map.id, input);
      await this.outbox.append(tx.em, [connectionAddedEvent(map.id, row, await this.endNames(tx, map.id, row))]);
      return this.connections.dto(tx, row.id);
    });
  }

  /** Changes a connection; connection_updated lists the fields that changed (no event when none did). */
  async update(principal: MapKeyPrincipal, ref: MapReference, id: string, body: UpdateConnectionRequest): Promise<ConnectionDto> {
    const map = await this.access.resolve(principal, ref);
    const connectionId = connectionIdOf(id);
    const v = connectionValues(normaliseWormholeType(body));
    return this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const row = await this.existing(tx, map.id, connectionId);
      const changed = changedFields(CONNECTION_FIELDS, row, v);
      if (changed.length) {
        const updated = await this.connections.update(tx, row.id, Object.fromEntries(changed.map((f) => [f, v[f]])));
        await this.outbox.append(tx.em, [connectionUpdatedEvent(map.id, updated, await this.endNames(tx, map.id, row), changed)]);
      }
      return this.connections.dto(tx, row.id);
    });
  }

  /** Removes a connection; event connection_removed. A locked connection is refused (409 `connection_locked`). */
  async remove(principal: MapKeyPrincipal, ref: MapReference, id: string): Promise<void> {
    const map = await this.access.resolve(principal, ref);
    const connectionId = connectionIdOf(id);
    await this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const row = await this.existing(tx, map.id, connectionId);
      if (row.locked) throw new ConflictError('connection_locked', 'Connection is locked; unlock it before deleting it');
      await this.connections.delete(tx, [row.id]);
      await this.outbox.append(tx.em, [connectionRemovedEvent(map.id, row, await this.endNames(tx, map.id, row))]);
    });
  }

  /** `update` of the connection between two systems, in either orientation; 404 `connection_not_found` when none. */
  async updateByEnds(principal: MapKeyPrincipal, ref: MapReference, source: number, target: number, body: UpdateConnectionRequest): Promise<ConnectionDto> {
    const map = await this.access.resolve(principal, ref);
    const row = await this.connections.byEnds(this.db, map.id, source, target);
    if (!row) throw connectionNotFound();
    return this.update(principal, ref, row.id, body);
  }

  /** `remove` of the connection between two systems, in either orientation; 404 `connection_not_found` when none. */
  async removeByEnds(principal: MapKeyPrincipal, ref: MapReference, source: number, target: number): Promise<void> {
    const map = await this.access.resolve(principal, ref);
    const row = await this.connections.byEnds(this.db, map.id, source, target);
    if (!row) throw connectionNotFound();
    await this.remove(principal, ref, row.id);
  }

  private async existing(tx: Db, mapId: string, id: string): Promise<ConnectionRow> {
    const row = await this.connections.row(tx, mapId, id);
    if (!row) throw connectionNotFound();
    return row;
  }

  private endNames(tx: Db, mapId: string, c: ConnectionRow) {
    return this.systems.names(tx, mapId, [c.solar_system_source, c.solar_system_target]);
  }
}

function connectionNotFound(): NotFoundError {
  return new NotFoundError('Connection not found', 'connection_not_found');
}
