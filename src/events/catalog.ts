/**
 * The event catalog: the 13 map event types of spec section 6 with their payloads as decisions §5
 * gives them, then the reference server's character and rally point events (docs/decisions/0012). One discriminated union (`MapEvent`) that every payload builder returns, the relay
 * carries, and the stream and webhook payloads are documented from. Interfaces only (no mapped
 * types), so tsoa can read them into OpenAPI.
 */

/** Every event type, in the order of spec section 6. */
export const EVENT_TYPES = [
  'add_system',
  'deleted_system',
  'system_metadata_changed',
  'connection_added',
  'connection_removed',
  'connection_updated',
  'signature_added',
  'signature_removed',
  'signatures_updated',
  'map_kill',
  'acl_member_added',
  'acl_member_removed',
  'acl_member_updated',
  'character_added',
  'character_removed',
  'characters_updated',
  'rally_point_added',
  'rally_point_removed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(text: string): text is EventType {
  return (EVENT_TYPES as readonly string[]).includes(text);
}

/** A system was added to the map (or made visible again). */
export interface AddSystemPayload {
  solar_system_id: number;
  name: string;
  /** Static type description, e.g. "Wormhole"; null outside the static data. */
  type: string | null;
  /** Class title, e.g. "C5"; null when unknown. */
  class: string | null;
  /** Static wormhole types of the system. */
  statics: string[];
  /** @format uuid */
  system_id: string;
  position_x: number;
  position_y: number;
}

/** A system was removed from the map. */
export interface DeletedSystemPayload {
  solar_system_id: number;
  name: string;
  /** @format uuid */
  system_id: string;
}

/** Fields of a map system changed; `changed` names them. */
export interface SystemMetadataChangedPayload {
  /** @format uuid */
  system_id: string;
  solar_system_id: number;
  name: string;
  custom_name: string | null;
  tag: string | null;
  status: number;
  labels: string | null;
  description: string | null;
  locked: boolean;
  visible: boolean;
  position_x: number;
  position_y: number;
  /** Names of the fields that changed. */
  changed: string[];
}

/** The fields every connection event with full data carries. */
export interface ConnectionPayload {
  /** @format uuid */
  connection_id: string;
  solar_system_source: number;
  solar_system_target: number;
  /** Name of the source system on the map, or null. */
  from_name: string | null;
  /** Name of the target system on the map, or null. */
  to_name: string | null;
  type: number;
  mass_status: number;
  ship_size_type: number;
  time_status: number;
  wormhole_type: string | null;
}

/** A connection was added. */
export type ConnectionAddedPayload = ConnectionPayload;

/** Fields of a connection changed; `changed` names them. */
export interface ConnectionUpdatedPayload extends ConnectionPayload {
  changed: string[];
}

/** A connection was removed (also sent for each connection of a deleted system). */
export interface ConnectionRemovedPayload {
  /** @format uuid */
  connection_id: string;
  solar_system_source: number;
  solar_system_target: number;
  from_name: string | null;
  to_name: string | null;
}

/** A signature was added to a system. */
export interface SignatureAddedPayload {
  solar_system_id: number;
  signature_id: string;
  name: string | null;
  kind: string | null;
  group: string | null;
  type: string | null;
  character_eve_id: string | null;
}

/** A signature was removed from a system. */
export interface SignatureRemovedPayload {
  solar_system_id: number;
  signature_id: string;
}

/** A batch update of a system's signatures, with its counts. */
export interface SignaturesUpdatedPayload {
  solar_system_id: number;
  added_count: number;
  updated_count: number;
  removed_count: number;
}

export interface KillVictim {
  name: string | null;
  ship: string | null;
  corporation: string | null;
}

/** A kill happened in a system of the map. */
export interface MapKillPayload {
  killmail_id: number;
  system_name: string | null;
  solar_system_id: number;
  /** ISO 8601 UTC, seconds precision. */
  kill_time: string;
  victim: KillVictim;
  value: number;
}

/** An ACL member event, sent to every map linked to the ACL. */
export interface AclMemberPayload {
  /** @format uuid */
  acl_id: string;
  /** @format uuid */
  member_id: string;
  member_name: string;
  member_type: 'character' | 'corporation' | 'alliance';
  eve_id: string;
  role: string;
}

/**
 * A character of the map, as character_added, character_removed and characters_updated carry it: the
 * reference server's fields, each always present (location, ship and online state are not tracked
 * here, so they are null).
 */
export interface MapCharacterPayload {
  /** The character's entry on the map. @format uuid */
  id: string;
  /** The character's record id. @format uuid */
  character_id: string;
  character_eve_id: string;
  name: string;
  corporation_id: string;
  corporation_ticker: string;
  alliance_id: string | null;
  alliance_ticker: string | null;
  /** Whether the map tracks the character after the change. */
  tracked: boolean;
  ship_type_id: number | null;
  ship_name: string | null;
  online: boolean | null;
  solar_system_id: number | null;
  structure_id: number | null;
  station_id: number | null;
}

/** Characters of the map whose public fields changed, in one batch. */
export interface CharactersUpdatedPayload {
  characters: MapCharacterPayload[];
  /** When the change was made: ISO 8601 UTC, milliseconds. */
  timestamp: string;
}

/** A rally point was set in a system of the map. */
export interface RallyPointAddedPayload {
  /** @format uuid */
  rally_point_id: string;
  solar_system_id: number;
  /** The map system's record id. @format uuid */
  system_id: string;
  system_name: string;
  /** The character's record id. @format uuid */
  character_id: string;
  character_name: string;
  character_eve_id: string;
  message: string | null;
  /** ISO 8601 UTC, microseconds. */
  created_at: string;
}

/** A rally point was removed (cancelled). `id` as the reference server names it; `rally_point_id` the same value. */
export interface RallyPointRemovedPayload {
  /** @format uuid */
  id: string;
  /** @format uuid */
  rally_point_id: string;
  solar_system_id: number;
  /** @format uuid */
  system_id: string;
  system_name: string;
  /** @format uuid */
  character_id: string;
  character_name: string;
  character_eve_id: string;
}

export interface AddSystemEvent {
  type: 'add_system';
  payload: AddSystemPayload;
}
export interface DeletedSystemEvent {
  type: 'deleted_system';
  payload: DeletedSystemPayload;
}
export interface SystemMetadataChangedEvent {
  type: 'system_metadata_changed';
  payload: SystemMetadataChangedPayload;
}
export interface ConnectionAddedEvent {
  type: 'connection_added';
  payload: ConnectionAddedPayload;
}
export interface ConnectionRemovedEvent {
  type: 'connection_removed';
  payload: ConnectionRemovedPayload;
}
export interface ConnectionUpdatedEvent {
  type: 'connection_updated';
  payload: ConnectionUpdatedPayload;
}
export interface SignatureAddedEvent {
  type: 'signature_added';
  payload: SignatureAddedPayload;
}
export interface SignatureRemovedEvent {
  type: 'signature_removed';
  payload: SignatureRemovedPayload;
}
export interface SignaturesUpdatedEvent {
  type: 'signatures_updated';
  payload: SignaturesUpdatedPayload;
}
export interface MapKillEvent {
  type: 'map_kill';
  payload: MapKillPayload;
}
export interface AclMemberAddedEvent {
  type: 'acl_member_added';
  payload: AclMemberPayload;
}
export interface AclMemberRemovedEvent {
  type: 'acl_member_removed';
  payload: AclMemberPayload;
}
export interface AclMemberUpdatedEvent {
  type: 'acl_member_updated';
  payload: AclMemberPayload;
}

export interface CharacterAddedEvent {
  type: 'character_added';
  payload: MapCharacterPayload;
}
export interface CharacterRemovedEvent {
  type: 'character_removed';
  payload: MapCharacterPayload;
}
export interface CharactersUpdatedEvent {
  type: 'characters_updated';
  payload: CharactersUpdatedPayload;
}
export interface RallyPointAddedEvent {
  type: 'rally_point_added';
  payload: RallyPointAddedPayload;
}
export interface RallyPointRemovedEvent {
  type: 'rally_point_removed';
  payload: RallyPointRemovedPayload;
}

/** One map event: its type and the payload that type carries. */
export type MapEvent =
  | AddSystemEvent
  | DeletedSystemEvent
  | SystemMetadataChangedEvent
  | ConnectionAddedEvent
  | ConnectionRemovedEvent
  | ConnectionUpdatedEvent
  | SignatureAddedEvent
  | SignatureRemovedEvent
  | SignaturesUpdatedEvent
  | MapKillEvent
  | AclMemberAddedEvent
  | AclMemberRemovedEvent
  | AclMemberUpdatedEvent
  | CharacterAddedEvent
  | CharacterRemovedEvent
  | CharactersUpdatedEvent
  | RallyPointAddedEvent
  | RallyPointRemovedEvent;

/** The payload type of an event type. */
export type PayloadOf<T extends EventType> = Extract<MapEvent, { type: T }>['payload'];

/** An event on its way into the outbox: the map it belongs to plus a catalog event. */
export type OutboxEvent = MapEvent & { mapId: string };
