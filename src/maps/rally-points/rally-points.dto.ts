/** API models of rally points (`/api/maps/{map_id}/rally-points`): the reference server's rally pings. */

/** A rally point: a character's call to gather in a system of the map. */
export interface RallyPointDto {
  /** @format uuid */
  id: string;
  /** @isInt */
  solar_system_id: number;
  /** The map system's record id. @format uuid */
  system_id: string;
  system_name: string;
  character_eve_id: string;
  character_name: string;
  message: string | null;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
}

/** A rally point to set. */
export interface AddRallyPointRequest {
  /**
   * A visible system of the map.
   * @isInt
   * @minimum 0
   * @maximum 2147483647
   */
  solar_system_id: number;
  /**
   * eve_id of a known character who calls the rally.
   * @pattern ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero
   */
  character_eve_id: string;
  /**
   * What to rally for; omitted or null: none.
   * @maxLength 1000
   */
  message?: string | null;
}
