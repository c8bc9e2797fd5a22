/**
 * API models of map structures (spec section 2 and the editing API `/api/maps/{map_id}/…`). Field names
 * and types are the public contract; request fields carry their validation (tsoa JSDoc annotations), so
 * the OpenAPI document and the 400 `validation_failed` answers agree. Enumerations: decisions §3.
 */

/** A structure timer. */
export interface StructureTimerDto {
  /** @format uuid */
  id: string;
  /** Map system record id. @format uuid */
  system_id: string;
  /** @isInt */
  solar_system_id: number;
  solar_system_name: string;
  structure_type_id: string;
  structure_type: string;
  character_eve_id: string | null;
  name: string;
  notes: string | null;
  owner_name: string | null;
  owner_ticker: string | null;
  owner_id: string | null;
  /** Powered, Anchoring, Unanchoring, Low Power, Abandoned or Reinforced. */
  status: string;
  /** ISO 8601 UTC, microseconds; null when no timer is set. */
  end_time: string | null;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
}

/** Structure status. */
export type StructureStatus = 'Powered' | 'Anchoring' | 'Unanchoring' | 'Low Power' | 'Abandoned' | 'Reinforced';

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
