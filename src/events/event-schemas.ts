/**
 * The published event catalog (`GET /api/events/catalog`): for every event type the platform emits, a
 * description and a JSON Schema (2020-12) of its `payload`, written beside the payload interfaces of
 * catalog.ts. `EVENT_SCHEMAS` is keyed by `EventType`, so a type added to EVENT_TYPES does not compile
 * until it has its entry here; the test suite validates every payload it sees (stream frames, webhook
 * bodies, the event log) against these schemas, so an entry that drifts from what is emitted fails.
 */
import { EVENT_TYPES, type EventType } from './catalog.js';

/** A JSON Schema (2020-12) document or subschema. */
export type JsonSchema = Record<string, unknown>;

export interface EventCatalogEntry {
  description: string;
  schema: JsonSchema;
}

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

const str: JsonSchema = { type: 'string' };
const int: JsonSchema = { type: 'integer' };
const num: JsonSchema = { type: 'number' };
const bool: JsonSchema = { type: 'boolean' };
const uuid: JsonSchema = { type: 'string', format: 'uuid' };
const strings: JsonSchema = { type: 'array', items: str };
const orNull = (s: JsonSchema): JsonSchema => ({ ...s, type: [s.type as string, 'null'] });

/** An object with exactly these properties, all required. */
function object(properties: Record<string, JsonSchema>, description?: string): JsonSchema {
  return { type: 'object', ...(description ? { description } : {}), properties, required: Object.keys(properties), additionalProperties: false };
}

/** A payload schema: an object schema that names its dialect. */
function payload(properties: Record<string, JsonSchema>): JsonSchema {
  return { $schema: DIALECT, ...object(properties) };
}

const connection = {
  connection_id: uuid,
  solar_system_source: int,
  solar_system_target: int,
  from_name: orNull(str),
  to_name: orNull(str),
  type: int,
  mass_status: int,
  ship_size_type: int,
  time_status: int,
  wormhole_type: orNull(str),
};

const aclMember = payload({
  acl_id: uuid,
  member_id: uuid,
  member_name: str,
  member_type: { type: 'string', enum: ['character', 'corporation', 'alliance'] },
  eve_id: str,
  role: str,
});

/** An EVE id of a corporation or alliance: a string, an integer for keys of the `reference` profile. */
const eveId: JsonSchema = { anyOf: [str, int] };

/** A tracked character as the character events carry it. */
const mapCharacter = object({
  id: uuid,
  character_id: uuid,
  character_eve_id: str,
  name: str,
  corporation_id: eveId,
  corporation_ticker: str,
  alliance_id: { anyOf: [str, int, { type: 'null' }] },
  alliance_ticker: orNull(str),
  tracked: bool,
  ship_type_id: orNull(int),
  ship_name: orNull(str),
  online: orNull(bool),
  solar_system_id: orNull(int),
  structure_id: orNull(int),
  station_id: orNull(int),
});

const rallyPoint = {
  rally_point_id: uuid,
  solar_system_id: int,
  system_id: uuid,
  system_name: str,
  character_id: uuid,
  character_name: str,
  character_eve_id: str,
};

/** Every map event type, in the order of EVENT_TYPES. Add a new type's entry here. */
export const EVENT_SCHEMAS: Record<EventType, EventCatalogEntry> = {
  add_system: {
    description: 'A system was added to the map (or made visible again).',
    schema: payload({
      solar_system_id: int,
      name: str,
      type: orNull(str),
      class: orNull(str),
      statics: strings,
      system_id: uuid,
      position_x: num,
      position_y: num,
    }),
  },
  deleted_system: {
    description: 'A system was removed from the map.',
    schema: payload({ solar_system_id: int, name: str, system_id: uuid }),
  },
  system_metadata_changed: {
    description: 'Fields of a map system changed; `changed` names them.',
    schema: payload({
      system_id: uuid,
      solar_system_id: int,
      name: str,
      custom_name: orNull(str),
      tag: orNull(str),
      status: int,
      labels: orNull(str),
      description: orNull(str),
      locked: bool,
      visible: bool,
      position_x: num,
      position_y: num,
      changed: strings,
    }),
  },
  connection_added: {
    description: 'A connection was added.',
    schema: payload(connection),
  },
  connection_removed: {
    description: 'A connection was removed (also sent for each connection of a deleted system).',
    schema: payload({
      connection_id: uuid,
      solar_system_source: int,
      solar_system_target: int,
      from_name: orNull(str),
      to_name: orNull(str),
    }),
  },
  connection_updated: {
    description: 'Fields of a connection changed; `changed` names them.',
    schema: payload({ ...connection, changed: strings }),
  },
  signature_added: {
    description: 'A signature was added to a system.',
    schema: payload({
      solar_system_id: int,
      signature_id: str,
      name: orNull(str),
      kind: orNull(str),
      group: orNull(str),
      type: orNull(str),
      character_eve_id: orNull(str),
    }),
  },
  signature_removed: {
    description: 'A signature was removed from a system.',
    schema: payload({ solar_system_id: int, signature_id: str }),
  },
  signatures_updated: {
    description: "A batch update of a system's signatures, with its counts.",
    schema: payload({ solar_system_id: int, added_count: int, updated_count: int, removed_count: int }),
  },
  map_kill: {
    description: 'A kill happened in a system of the map.',
    schema: payload({
      killmail_id: int,
      system_name: orNull(str),
      solar_system_id: int,
      kill_time: { type: 'string', format: 'date-time' },
      victim: object({ name: orNull(str), ship: orNull(str), corporation: orNull(str) }),
      value: num,
    }),
  },
  acl_member_added: { description: 'A member was added to an ACL linked to the map.', schema: aclMember },
  acl_member_removed: { description: 'A member was removed from an ACL linked to the map.', schema: aclMember },
  acl_member_updated: { description: 'The role of a member of an ACL linked to the map changed.', schema: aclMember },
  character_added: {
    description: 'A character was added to the characters the map tracks.',
    schema: { $schema: DIALECT, ...mapCharacter },
  },
  character_removed: {
    description: 'A character was removed from the characters the map tracks.',
    schema: { $schema: DIALECT, ...mapCharacter },
  },
  characters_updated: {
    description: 'Tracked characters of the map whose public fields (name, corporation, alliance) changed, in one batch.',
    schema: payload({ characters: { type: 'array', items: mapCharacter }, timestamp: { type: 'string', format: 'date-time' } }),
  },
  rally_point_added: {
    description: 'A rally point was set in a system of the map.',
    schema: payload({ ...rallyPoint, message: orNull(str), created_at: { type: 'string', format: 'date-time' } }),
  },
  rally_point_removed: {
    description: 'A rally point was removed.',
    schema: payload({ id: uuid, ...rallyPoint }),
  },
};

/**
 * Types sent only to webhooks, never on the stream or in the event log: the test delivery of
 * `POST …/webhooks/{id}/ping`.
 */
export const WEBHOOK_ONLY_SCHEMAS: Record<'ping', EventCatalogEntry> = {
  ping: {
    description: 'A test delivery sent by `POST /api/maps/{map_id}/webhooks/{id}/ping` (and by the probes of a subscription disabled after failures).',
    schema: payload({ subscription_id: uuid, message: str }),
  },
};

/** The catalog as the API answers it: map event types first (in EVENT_TYPES order), then webhook-only ones. */
export function eventCatalog(): { type: string; description: string; schema: JsonSchema }[] {
  return [...EVENT_TYPES.map((type) => ({ type, ...EVENT_SCHEMAS[type] })), ...Object.entries(WEBHOOK_ONLY_SCHEMAS).map(([type, e]) => ({ type, ...e }))];
}
