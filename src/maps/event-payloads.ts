/**
 * Payloads of the map content events, exactly as decisions §5 lists them. Every writer (the seeding
 * MapContentService and the editing API) builds its events here, so the shapes cannot drift apart.
 */
import type {
  ConnectionPayload,
  MapCharacterPayload,
  OutboxEvent,
  RallyPointAddedPayload,
  SignatureAddedPayload,
  SystemMetadataChangedPayload,
} from '../events/catalog.js';
import type { CharacterDto } from '../characters/character.dto.js';

/** Columns of a map_systems row that the system events carry: the event's fields, with the row id. */
export type SystemRow = Omit<SystemMetadataChangedPayload, 'system_id' | 'changed'> & { id: string };

/** Static data carried by add_system. */
export interface SystemStaticRow {
  type_description: string | null;
  class_title: string | null;
  statics: string[] | null;
}

/** Columns of a map_connections row that the connection events carry. */
export interface ConnectionRow {
  id: string;
  solar_system_source: number;
  solar_system_target: number;
  type: number;
  mass_status: number;
  ship_size_type: number;
  time_status: number;
  wormhole_type: string | null;
  locked: boolean;
}

export function addSystemEvent(
  mapId: string,
  s: Pick<SystemRow, 'id' | 'solar_system_id' | 'name' | 'position_x' | 'position_y'>,
  info: SystemStaticRow | undefined,
): OutboxEvent {
  return {
    mapId,
    type: 'add_system',
    payload: {
      solar_system_id: s.solar_system_id,
      name: s.name,
      type: info?.type_description ?? null,
      class: info?.class_title ?? null,
      statics: info?.statics ?? [],
      system_id: s.id,
      position_x: s.position_x,
      position_y: s.position_y,
    },
  };
}

export function deletedSystemEvent(mapId: string, s: Pick<SystemRow, 'id' | 'solar_system_id' | 'name'>): OutboxEvent {
  return { mapId, type: 'deleted_system', payload: { solar_system_id: s.solar_system_id, name: s.name, system_id: s.id } };
}

export function systemMetadataChangedEvent(mapId: string, s: SystemRow, changed: string[]): OutboxEvent {
  return {
    mapId,
    type: 'system_metadata_changed',
    payload: {
      system_id: s.id,
      solar_system_id: s.solar_system_id,
      name: s.name,
      custom_name: s.custom_name,
      tag: s.tag,
      status: s.status,
      labels: s.labels,
      description: s.description,
      locked: s.locked,
      visible: s.visible,
      position_x: s.position_x,
      position_y: s.position_y,
      changed,
    },
  };
}

/** Names of the two ends, by solar system id (null when the system is not on the map). */
export type NameOf = (solarSystemId: number) => string | null;

function connectionFields(c: ConnectionRow, nameOf: NameOf): ConnectionPayload {
  return {
    connection_id: c.id,
    solar_system_source: c.solar_system_source,
    solar_system_target: c.solar_system_target,
    from_name: nameOf(c.solar_system_source),
    to_name: nameOf(c.solar_system_target),
    type: c.type,
    mass_status: c.mass_status,
    ship_size_type: c.ship_size_type,
    time_status: c.time_status,
    wormhole_type: c.wormhole_type,
  };
}

export function connectionAddedEvent(mapId: string, c: ConnectionRow, nameOf: NameOf): OutboxEvent {
  return { mapId, type: 'connection_added', payload: connectionFields(c, nameOf) };
}

export function connectionUpdatedEvent(mapId: string, c: ConnectionRow, nameOf: NameOf, changed: string[]): OutboxEvent {
  return { mapId, type: 'connection_updated', payload: { ...connectionFields(c, nameOf), changed } };
}

export function connectionRemovedEvent(
  mapId: string,
  c: Pick<ConnectionRow, 'id' | 'solar_system_source' | 'solar_system_target'>,
  nameOf: NameOf,
): OutboxEvent {
  return {
    mapId,
    type: 'connection_removed',
    payload: {
      connection_id: c.id,
      solar_system_source: c.solar_system_source,
      solar_system_target: c.solar_system_target,
      from_name: nameOf(c.solar_system_source),
      to_name: nameOf(c.solar_system_target),
    },
  };
}

/** What signature_added carries, as the signature writer has it. */
export type SignatureEventRow = SignatureAddedPayload;

export function signatureAddedEvent(mapId: string, s: SignatureEventRow): OutboxEvent {
  return {
    mapId,
    type: 'signature_added',
    payload: {
      solar_system_id: s.solar_system_id,
      signature_id: s.signature_id,
      name: s.name,
      kind: s.kind,
      group: s.group,
      type: s.type,
      character_eve_id: s.character_eve_id,
    },
  };
}

export function signatureRemovedEvent(mapId: string, solarSystemId: number, signatureId: string): OutboxEvent {
  return { mapId, type: 'signature_removed', payload: { solar_system_id: solarSystemId, signature_id: signatureId } };
}

export function signaturesUpdatedEvent(mapId: string, solarSystemId: number, counts: { added: number; updated: number; removed: number }): OutboxEvent {
  return {
    mapId,
    type: 'signatures_updated',
    payload: { solar_system_id: solarSystemId, added_count: counts.added, updated_count: counts.updated, removed_count: counts.removed },
  };
}

/** A character's entry on a map, as the character events carry it. */
export function mapCharacterPayload(entryId: string, characterId: string, c: CharacterDto, tracked: boolean): MapCharacterPayload {
  return {
    id: entryId,
    character_id: characterId,
    character_eve_id: c.eve_id,
    name: c.name,
    corporation_id: c.corporation_id,
    corporation_ticker: c.corporation_ticker,
    alliance_id: c.alliance_id,
    alliance_ticker: c.alliance_ticker,
    tracked,
    ship_type_id: null,
    ship_name: null,
    online: null,
    solar_system_id: null,
    structure_id: null,
    station_id: null,
  };
}

export function characterAddedEvent(mapId: string, payload: MapCharacterPayload): OutboxEvent {
  return { mapId, type: 'character_added', payload };
}

export function characterRemovedEvent(mapId: string, payload: MapCharacterPayload): OutboxEvent {
  return { mapId, type: 'character_removed', payload };
}

export function charactersUpdatedEvent(mapId: string, characters: MapCharacterPayload[], at: Date): OutboxEvent {
  return { mapId, type: 'characters_updated', payload: { characters, timestamp: at.toISOString() } };
}

export function rallyPointAddedEvent(mapId: string, p: RallyPointAddedPayload): OutboxEvent {
  return { mapId, type: 'rally_point_added', payload: p };
}

export function rallyPointRemovedEvent(mapId: string, p: RallyPointAddedPayload): OutboxEvent {
  return {
    mapId,
    type: 'rally_point_removed',
    payload: {
      id: p.rally_point_id,
      rally_point_id: p.rally_point_id,
      solar_system_id: p.solar_system_id,
      system_id: p.system_id,
      system_name: p.system_name,
      character_id: p.character_id,
      character_name: p.character_name,
      character_eve_id: p.character_eve_id,
    },
  };
}

export interface KillEventInput {
  killmailId: number;
  solarSystemId: number;
  killTime: Date;
  victimCharName?: string | null;
  victimShipName?: string | null;
  victimCorpTicker?: string | null;
  totalValue: number;
}

export function mapKillEvent(mapId: string, k: KillEventInput, systemName: string | null): OutboxEvent {
  return {
    mapId,
    type: 'map_kill',
    payload: {
      killmail_id: k.killmailId,
      system_name: systemName,
      solar_system_id: k.solarSystemId,
      kill_time: isoSeconds(k.killTime),
      victim: { name: k.victimCharName ?? null, ship: k.victimShipName ?? null, corporation: k.victimCorpTicker ?? null },
      value: k.totalValue,
    },
  };
}

/**
 * ISO 8601 UTC with seconds precision, as stored (`timestamptz(0)` rounds to the nearest second).
 */
export function isoSeconds(d: Date): string {
  return new Date(Math.round(d.getTime() / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
