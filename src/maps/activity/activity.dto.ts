/**
 * API models of map activity (spec section 2 and the editing API `/api/maps/{map_id}/…`). Field names
 * and types are the public contract; request fields carry their validation (tsoa JSDoc annotations), so
 * the OpenAPI document and the 400 `validation_failed` answers agree. Enumerations: decisions §3.
 */
import type { CharacterDto } from '../../characters/character.dto.js';

/** Activity counters of one user (or a character without user), summed. */
export interface CharacterActivityDto {
  character: CharacterDto;
  /** @isInt */
  passages: number;
  /** @isInt */
  connections: number;
  /** @isInt */
  signatures: number;
  /** Time of the group's latest counted activity, ISO 8601 UTC, seconds precision. */
  timestamp: string;
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
