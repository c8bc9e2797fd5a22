/**
 * API models of map systems (spec section 2 and the editing API `/api/maps/{map_id}/…`). Field names
 * and types are the public contract; request fields carry their validation (tsoa JSDoc annotations), so
 * the OpenAPI document and the 400 `validation_failed` answers agree. Enumerations: decisions §3.
 */
import type { ConnectionDto } from '../connections/connections.dto.js';

/** A solar system placed on a map. */
export interface SystemDto {
  /** Record id. @format uuid */
  id: string;
  /** Solar system name. */
  name: string;
  /** 0 clear, 1 home, 2 friendly, 3 looking_for, 4 warning, 5 target, 6 dangerous. @isInt */
  status: number;
  tag: string | null;
  /** Hidden systems (deleted through the editing API) have `visible: false`. */
  visible: boolean;
  description: string | null;
  /** JSON-encoded labels value, as stored. */
  labels: string | null;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
  locked: boolean;
  /** Identifier of the solar system. @isInt */
  solar_system_id: number;
  /** @format uuid */
  map_id: string;
  custom_name: string | null;
  /** Map canvas coordinate. @isInt */
  position_x: number;
  /** Map canvas coordinate. @isInt */
  position_y: number;
}

/** System status by name: clear 0, home 1, friendly 2, looking_for 3, warning 4, target 5, dangerous 6. */
export type SystemStatusName = 'clear' | 'home' | 'friendly' | 'looking_for' | 'warning' | 'target' | 'dangerous';

/**
 * System status as an integer: 0 clear, 1 home, 2 friendly, 3 looking_for, 4 warning, 5 target, 6 dangerous.
 * @isInt
 * @minimum 0
 * @maximum 6
 */
export type SystemStatusCode = number;

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

/** Systems and connections to delete in one transaction (at least one id in all). */
export interface DeleteSystemsAndConnectionsRequest {
  /**
   * Solar system ids of systems to delete (hidden, as a single delete does, with their connections).
   * Ids not visible on the map are skipped.
   * @maxItems 100
   */
  system_ids?: SolarSystemIdValue[];
  /**
   * Connection ids (UUIDs) to delete. Ids of no connection of the map are skipped.
   * @maxItems 100
   */
  connection_ids?: ConnectionIdValue[];
}

/**
 * A solar system id.
 * @isInt
 * @minimum 0
 * @maximum 2147483647
 */
export type SolarSystemIdValue = number;

/**
 * A connection id.
 * @pattern ^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$
 */
export type ConnectionIdValue = string;

/** What a batch delete removed: only the listed items count (a connection removed with its system does not). */
export interface DeletedCountDto {
  /** Listed systems and connections deleted. @isInt */
  deleted_count: number;
  /** Listed systems deleted. @isInt */
  deleted_systems: number;
  /** Listed connections deleted. @isInt */
  deleted_connections: number;
}
