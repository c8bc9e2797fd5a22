/**
 * API models of the map editing API (`/api/maps/{map_id}/…`). Request fields carry their validation
 * (tsoa JSDoc annotations), so the OpenAPI document and the 400 `validation_failed` answers agree.
 * Unknown fields are refused. Enumerations: decisions §3.
 */
import type { CharacterDto, ConnectionDto, SystemDto } from './map.dto.js';

/** System status by name (decisions §3): clear 0, home 1, friendly 2, looking_for 3, warning 4, target 5, dangerous 6. */
export type SystemStatusName = 'clear' | 'home' | 'friendly' | 'looking_for' | 'warning' | 'target' | 'dangerous';

/**
 * System status as an integer: 0 clear, 1 home, 2 friendly, 3 looking_for, 4 warning, 5 target, 6 dangerous.
 * @isInt
 * @minimum 0
 * @maximum 6
 */
export type SystemStatusCode = number;

/** Structure status (decisions §3). */
export type StructureStatus = 'Powered' | 'Anchoring' | 'Unanchoring' | 'Low Power' | 'Abandoned' | 'Reinforced';

/** Editable fields of a map system; on add, omitted fields keep their current value (or the default for a new system). */
export interface SystemFieldsInput {
  /**
   * Map canvas coordinate. Default 0.
   * @isInt
   * @minimum -2147483648
   * @maximum 2147483647
   */
  position_x?: number;
  /**
   * Map canvas coordinate. Default 0.
   * @isInt
   * @minimum -2147483648
   * @maximum 2147483647
   */
  position_y?: number;
  /**
   * Name shown instead of the solar system name; null clears it.
   * @maxLength 255
   */
  custom_name?: string | null;
  /**
   * Short tag; null clears it.
   * @maxLength 64
   */
  tag?: string | null;
  /** The integer (0–6) or its name (`clear`, `home`, `friendly`, `looking_for`, `warning`, `target`, `dangerous`). Stored and answered as the integer. Default 0. */
  status?: SystemStatusCode | SystemStatusName;
  /**
   * JSON-encoded labels value (a string holding JSON, e.g. `{"customLabel":"","labels":["la"]}`), kept as sent; null clears it.
   * @maxLength 4000
   */
  labels?: string | null;
  /**
   * Free text; null clears it.
   * @maxLength 10000
   */
  description?: string | null;
  /** A locked system cannot be deleted (unlock it first). Default false. */
  locked?: boolean;
}

/** One system to add to the map (or to show again, when it was deleted). */
export interface AddSystemRequest extends SystemFieldsInput {
  /**
   * Solar system id; must exist in the static data.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  solar_system_id: number;
}

/** Several systems added in one transaction. */
export interface AddSystemsRequest {
  /**
   * 1 to 100 systems, each solar system at most once.
   * @minItems 1
   * @maxItems 100
   */
  systems: AddSystemRequest[];
}

/** Fields of a system to change; omitted fields are left as they are. */
// An interface (not a type alias) so the OpenAPI schema carries this name.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface UpdateSystemRequest extends SystemFieldsInput {}

/** `GET /api/maps/{map_id}/systems`: the systems and the connections of the map. */
export interface SystemsAndConnectionsDto {
  systems: SystemDto[];
  connections: ConnectionDto[];
}

/** A connection to add between two systems of the map. */
export interface AddConnectionRequest {
  /**
   * Solar system id of one end; the system must be on the map.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  solar_system_source: number;
  /**
   * Solar system id of the other end; the system must be on the map and differ from the source.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  solar_system_target: number;
  /**
   * 0 wormhole, 1 stargate, 2 jump bridge. Default 0.
   * @isInt
   * @minimum 0
   * @maximum 2
   */
  type?: number;
  /**
   * 0 normal (> 50 %), 1 half (< 50 %), 2 critical (< 10 %). Default 0.
   * @isInt
   * @minimum 0
   * @maximum 2
   */
  mass_status?: number;
  /**
   * 0 normal, 1 EOL 1 h, 2 EOL 4 h, 3 EOL 4.5 h, 4 EOL 16 h, 5 EOL 24 h, 6 EOL 48 h. Default 0.
   * @isInt
   * @minimum 0
   * @maximum 6
   */
  time_status?: number;
  /**
   * 0 small, 1 medium, 2 large, 3 freighter, 4 capital. Default 2.
   * @isInt
   * @minimum 0
   * @maximum 4
   */
  ship_size_type?: number;
  /**
   * Wormhole type code such as `K162` (stored upper-case), or null.
   * @pattern ^[A-Za-z0-9]{1,16}$
   */
  wormhole_type?: string | null;
  /** A locked connection cannot be deleted (unlock it first). Default false. */
  locked?: boolean;
}

/** Fields of a connection to change; omitted fields are left as they are. */
export interface UpdateConnectionRequest {
  /**
   * 0 wormhole, 1 stargate, 2 jump bridge.
   * @isInt
   * @minimum 0
   * @maximum 2
   */
  type?: number;
  /**
   * 0 normal (> 50 %), 1 half (< 50 %), 2 critical (< 10 %).
   * @isInt
   * @minimum 0
   * @maximum 2
   */
  mass_status?: number;
  /**
   * 0 normal, 1 EOL 1 h, 2 EOL 4 h, 3 EOL 4.5 h, 4 EOL 16 h, 5 EOL 24 h, 6 EOL 48 h.
   * @isInt
   * @minimum 0
   * @maximum 6
   */
  time_status?: number;
  /**
   * 0 small, 1 medium, 2 large, 3 freighter, 4 capital.
   * @isInt
   * @minimum 0
   * @maximum 4
   */
  ship_size_type?: number;
  /**
   * Wormhole type code such as `K162` (stored upper-case); null clears it.
   * @pattern ^[A-Za-z0-9]{1,16}$
   */
  wormhole_type?: string | null;
  locked?: boolean;
}

/** A cosmic signature of a map system. */
export interface SignatureDto {
  /** Record id. @format uuid */
  id: string;
  /** @isInt */
  solar_system_id: number;
  /** In-game signature id, upper-case, e.g. `ABC-123`. */
  signature_id: string;
  name: string | null;
  /** e.g. `Cosmic Signature`, `Cosmic Anomaly`. */
  kind: string | null;
  /** e.g. `Wormhole`, `Data Site`, `Relic Site`, `Gas Site`, `Ore Site`, `Combat Site`. */
  group: string | null;
  /** e.g. a wormhole type code such as `K162`. */
  type: string | null;
  description: string | null;
  /** eve_id of the character whose key added or last changed the signature. */
  character_eve_id: string | null;
  /** Solar system id the signature leads to (wormholes), or null. @isInt */
  linked_system_id: number | null;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
}

/** One signature to add or update; omitted fields of an existing signature are left as they are, null clears. */
export interface SignatureInput {
  /**
   * In-game signature id: three letters, a dash, three digits (`ABC-123`); any case, stored upper-case.
   * @pattern ^[A-Za-z]{3}-[0-9]{3}$
   */
  signature_id: string;
  /** @maxLength 255 */
  name?: string | null;
  /**
   * e.g. `Cosmic Signature`, `Cosmic Anomaly`.
   * @maxLength 64
   */
  kind?: string | null;
  /**
   * e.g. `Wormhole`, `Data Site`.
   * @maxLength 64
   */
  group?: string | null;
  /**
   * e.g. a wormhole type code such as `K162`.
   * @maxLength 64
   */
  type?: string | null;
  /** @maxLength 10000 */
  description?: string | null;
  /**
   * Solar system id the signature leads to; must be a system on the map. Null clears it.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  linked_system_id?: number | null;
}

/** Batch upsert of one system's signatures. */
export interface UpsertSignaturesRequest {
  /**
   * 0 to 500 signatures, each signature id at most once.
   * @maxItems 500
   */
  signatures: SignatureInput[];
  /** When true, signatures of the system not listed are removed. Default false. */
  replace?: boolean;
}

/** Outcome of a signature batch. */
export interface SignaturesUpdatedDto {
  /** @isInt */
  solar_system_id: number;
  /** Signatures that were new. @isInt */
  added_count: number;
  /** Listed signatures that existed and whose fields changed. @isInt */
  updated_count: number;
  /** Signatures removed (with `replace: true`). @isInt */
  removed_count: number;
  /** Every signature of the system after the batch. */
  signatures: SignatureDto[];
}

/** A structure (timer) to add. */
export interface CreateStructureRequest {
  /**
   * Solar system id; the system must be on the map.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  solar_system_id: number;
  /**
   * Structure type id, e.g. `35832`.
   * @minLength 1
   * @maxLength 32
   */
  structure_type_id: string;
  /**
   * Structure type name, e.g. `Astrahus`.
   * @minLength 1
   * @maxLength 100
   */
  structure_type: string;
  /**
   * @minLength 1
   * @maxLength 255
   */
  name: string;
  /** Default `Powered`. */
  status?: StructureStatus;
  /** Timer end, RFC 3339 date-time (e.g. `2026-01-02T03:04:05Z`, seconds and a zone required); null for none. */
  end_time?: Date | null;
  /** @maxLength 10000 */
  notes?: string | null;
  /** @maxLength 255 */
  owner_name?: string | null;
  /** @maxLength 16 */
  owner_ticker?: string | null;
  /** @maxLength 32 */
  owner_id?: string | null;
}

/** Fields of a structure to change; omitted fields are left as they are. */
export interface UpdateStructureRequest {
  /**
   * Moves the structure to another system of the map.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  solar_system_id?: number;
  /**
   * @minLength 1
   * @maxLength 32
   */
  structure_type_id?: string;
  /**
   * @minLength 1
   * @maxLength 100
   */
  structure_type?: string;
  /**
   * @minLength 1
   * @maxLength 255
   */
  name?: string;
  status?: StructureStatus;
  /** Timer end, RFC 3339 date-time (seconds and a zone required); null clears it. */
  end_time?: Date | null;
  /** @maxLength 10000 */
  notes?: string | null;
  /** @maxLength 255 */
  owner_name?: string | null;
  /** @maxLength 16 */
  owner_ticker?: string | null;
  /** @maxLength 32 */
  owner_id?: string | null;
}

/**
 * A zKillboard label such as `pvp` or `loc:w-space`.
 * @maxLength 64
 */
export type ZkbLabel = string;

/** zKillboard metadata of a kill to import (the `zkb` object of spec 2.6). */
export interface ZkbInput {
  awox: boolean;
  /** @minimum 0 */
  destroyedValue: number;
  /** @minimum 0 */
  droppedValue: number;
  /** @minimum 0 */
  fittedValue: number;
  /** @maxLength 128 */
  hash: string;
  /** @maxItems 50 */
  labels: ZkbLabel[];
  /**
   * @isInt
   * @minimum 0
   * @maximum 9007199254740991
   */
  locationID: number;
  npc: boolean;
  /**
   * @isInt
   * @minimum -2147483648
   * @maximum 2147483647
   */
  points: number;
  solo: boolean;
  /** @minimum 0 */
  totalValue: number;
}

/** One killmail in the field shape of spec 2.6. final_blow_* and victim_* may be omitted or null. */
export interface KillInput {
  /**
   * @isInt
   * @minimum 1
   * @maximum 9007199254740991
   */
  killmail_id: number;
  /** RFC 3339 date-time (e.g. `2026-01-02T03:04:05Z`, seconds and a zone required); stored with seconds precision. */
  kill_time: Date;
  /**
   * Solar system id; must exist in the static data (the system need not be on the map).
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  solar_system_id: number;
  /**
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  attacker_count: number;
  npc: boolean;
  /** @minimum 0 */
  total_value: number;
  /**
   * @isInt
   * @minimum 0
   * @maximum 9007199254740991
   */
  final_blow_alliance_id?: number | null;
  /**
   * @isInt
   * @minimum 0
   * @maximum 9007199254740991
   */
  final_blow_char_id?: number | null;
  /**
   * @isInt
   * @minimum 0
   * @maximum 9007199254740991
   */
  final_blow_corp_id?: number | null;
  /**
   * @isInt
   * @minimum 0
   * @maximum 9007199254740991
   */
  final_blow_ship_type_id?: number | null;
  /** @maxLength 16 */
  final_blow_alliance_ticker?: string | null;
  /** @maxLength 255 */
  final_blow_char_name?: string | null;
  /** @maxLength 16 */
  final_blow_corp_ticker?: string | null;
  /** @maxLength 255 */
  final_blow_ship_name?: string | null;
  /**
   * @isInt
   * @minimum 0
   * @maximum 9007199254740991
   */
  victim_alliance_id?: number | null;
  /**
   * @isInt
   * @minimum 0
   * @maximum 9007199254740991
   */
  victim_char_id?: number | null;
  /**
   * @isInt
   * @minimum 0
   * @maximum 9007199254740991
   */
  victim_corp_id?: number | null;
  /**
   * @isInt
   * @minimum 0
   * @maximum 9007199254740991
   */
  victim_ship_type_id?: number | null;
  /** @maxLength 255 */
  victim_char_name?: string | null;
  /** @maxLength 16 */
  victim_corp_ticker?: string | null;
  /** @maxLength 255 */
  victim_ship_name?: string | null;
  zkb: ZkbInput;
}

/** Several killmails. */
export interface KillsBatchRequest {
  /**
   * 1 to 200 killmails.
   * @minItems 1
   * @maxItems 200
   */
  kills: KillInput[];
}

/**
 * 1 to 200 killmails as a bare array.
 * @minItems 1
 * @maxItems 200
 */
export type KillInputList = KillInput[];

/** Outcome of a kill import. */
export interface KillImportResultDto {
  /** Killmails stored now (each emitted one `map_kill` event). @isInt */
  inserted: number;
  /** Killmails already known to the map (or repeated in the request): left as they were, no event. @isInt */
  duplicates: number;
}

/** Tracks or untracks a character on the map. */
export interface SetTrackedRequest {
  tracked: boolean;
}

/** Increments of a character's activity counters for today (UTC). At least one counter must be positive. */
export interface CharacterActivityRequest {
  /**
   * eve_id of a known character; default: the character of the map key.
   * @pattern ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero
   */
  character_eve_id?: string;
  /**
   * @isInt
   * @minimum 0
   * @maximum 10000
   */
  passages?: number;
  /**
   * @isInt
   * @minimum 0
   * @maximum 10000
   */
  connections?: number;
  /**
   * @isInt
   * @minimum 0
   * @maximum 10000
   */
  signatures?: number;
}

/** A character's activity counters for one UTC day, after the increment. */
export interface CharacterActivityDayDto {
  character: CharacterDto;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  /** @isInt */
  passages: number;
  /** @isInt */
  connections: number;
  /** @isInt */
  signatures: number;
  /** Time of the latest counted activity, ISO 8601 UTC, seconds precision. */
  timestamp: string;
}
