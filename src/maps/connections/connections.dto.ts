/**
 * API models of map connections (spec section 2 and the editing API `/api/maps/{map_id}/…`). Field names
 * and types are the public contract; request fields carry their validation (tsoa JSDoc annotations), so
 * the OpenAPI document and the 400 `validation_failed` answers agree. Enumerations: decisions §3.
 */

/** A connection between two systems of a map. */
export interface ConnectionDto {
  /** @format uuid */
  id: string;
  /** 0 wormhole, 1 stargate, 2 jump bridge. @isInt */
  type: number;
  /** 0 normal (> 50 %), 1 half (< 50 %), 2 critical (< 10 %). @isInt */
  mass_status: number;
  /** 0 small, 1 medium, 2 large, 3 freighter, 4 capital. @isInt */
  ship_size_type: number;
  /** 0 normal, 1 EOL 1 h, 2 EOL 4 h, 3 EOL 4.5 h, 4 EOL 16 h, 5 EOL 24 h, 6 EOL 48 h. @isInt */
  time_status: number;
  /** @format uuid */
  map_id: string;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
  /** @isInt */
  solar_system_source: number;
  /** @isInt */
  solar_system_target: number;
  /** Wormhole type code such as K162, or null. */
  wormhole_type: string | null;
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
