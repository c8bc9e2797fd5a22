/**
 * API models of map kills (spec section 2 and the editing API `/api/maps/{map_id}/…`). Field names
 * and types are the public contract; request fields carry their validation (tsoa JSDoc annotations), so
 * the OpenAPI document and the 400 `validation_failed` answers agree. Enumerations: decisions §3.
 */

/** zKillboard metadata of a kill. */
export interface ZkbDto {
  awox: boolean;
  destroyedValue: number;
  droppedValue: number;
  fittedValue: number;
  hash: string;
  labels: string[];
  /** @isInt */
  locationID: number;
  npc: boolean;
  /** @isInt */
  points: number;
  solo: boolean;
  totalValue: number;
}

/** One killmail. */
export interface KillDto {
  /** @isInt */
  killmail_id: number;
  /** ISO 8601 UTC, seconds precision. */
  kill_time: string;
  /** @isInt */
  solar_system_id: number;
  /** @isInt */
  attacker_count: number;
  npc: boolean;
  total_value: number;
  /** @isInt */
  final_blow_alliance_id: number | null;
  /** @isInt */
  final_blow_char_id: number | null;
  /** @isInt */
  final_blow_corp_id: number | null;
  /** @isInt */
  final_blow_ship_type_id: number | null;
  final_blow_alliance_ticker: string | null;
  final_blow_char_name: string | null;
  final_blow_corp_ticker: string | null;
  final_blow_ship_name: string | null;
  /** @isInt */
  victim_alliance_id: number | null;
  /** @isInt */
  victim_char_id: number | null;
  /** @isInt */
  victim_corp_id: number | null;
  /** @isInt */
  victim_ship_type_id: number | null;
  victim_char_name: string | null;
  victim_corp_ticker: string | null;
  victim_ship_name: string | null;
  zkb: ZkbDto;
}

/** Kills of one visible system, newest first. */
export interface SystemKillsDto {
  /** @isInt */
  solar_system_id: number;
  kills: KillDto[];
}

/**
 * A zKillboard label such as `pvp` or `loc:w-space`.
 * @maxLength 64
 */
export type ZkbLabel = string;

/** zKillboard metadata of a kill to import (the `zkb` object of a killmail). */
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

/** One killmail. final_blow_* and victim_* may be omitted or null. */
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
