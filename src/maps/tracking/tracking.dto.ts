/**
 * API models of map tracking (spec section 2 and the editing API `/api/maps/{map_id}/…`). Field names
 * and types are the public contract; request fields carry their validation (tsoa JSDoc annotations), so
 * the OpenAPI document and the 400 `validation_failed` answers agree. Enumerations: decisions §3.
 */
import type { CharacterDto } from '../../characters/character.dto.js';

/** The characters of one user tracked on the map. */
export interface UserCharactersDto {
  characters: CharacterDto[];
  /** eve_id of the user's main character; null when none is set. */
  main_character_eve_id: string | null;
}

/** Tracks or untracks a character on the map. */
export interface SetTrackedRequest {
  tracked: boolean;
}
