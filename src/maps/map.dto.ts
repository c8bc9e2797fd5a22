/**
 * API models of map data (spec section 2). Field names and types are the public contract.
 * Timestamps: ISO 8601 UTC with microseconds (`2026-01-02T03:04:05.123456Z`) unless stated.
 */

import type { CharacterDto } from '../characters/character.dto.js';

/** A character tracked on a map. */
export interface TrackedCharacterDto {
  /** @format uuid */
  id: string;
  character: CharacterDto;
  tracked: boolean;
  /** @format uuid */
  map_id: string;
}
