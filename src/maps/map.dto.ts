/**
 * API models of map data (spec section 2). Field names and types are the public contract.
 * Timestamps: ISO 8601 UTC with microseconds (`2026-01-02T03:04:05.123456Z`) unless stated.
 */

/** Public form of a character. */
export interface CharacterDto {
  /** External character id (the identifier used in ACL operations). */
  eve_id: string;
  name: string;
  corporation_id: string;
  corporation_ticker: string;
  alliance_id: string | null;
  alliance_ticker: string | null;
}

/** A character tracked on a map. */
export interface TrackedCharacterDto {
  /** @format uuid */
  id: string;
  character: CharacterDto;
  tracked: boolean;
  /** @format uuid */
  map_id: string;
}

export interface DataResponse<T> {
  data: T;
}
