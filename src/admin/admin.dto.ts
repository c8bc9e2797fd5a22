/** Admin API models (decisions §2): bootstrap users, characters, maps, map keys and tracking. */
import type { CharacterDto } from '../characters/character.dto.js';
import type { KeyProfile } from '../http/key-profile.js';
import type { MapKeyDto } from '../auth/map-key.dto.js';

export interface CreateUserRequest {
  /** @minLength 1 @maxLength 255 */
  name: string;
}

export interface UserDto {
  /** @format uuid */
  id: string;
  name: string;
  /** eve_id of the main character, or null. */
  main_character_eve_id: string | null;
  characters: CharacterDto[];
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
}

export interface UpsertCharacterRequest {
  /** External character id. @pattern ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero */
  eve_id: string;
  /** @minLength 1 @maxLength 255 */
  name: string;
  /** @pattern ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero */
  corporation_id: string;
  /** @minLength 1 @maxLength 16 */
  corporation_ticker: string;
  /** @pattern ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero */
  alliance_id?: string | null;
  /** @minLength 1 @maxLength 16 */
  alliance_ticker?: string | null;
  /** Owning user; null detaches the character from its user. @format uuid */
  user_id?: string | null;
}

export interface AdminCharacterDto extends CharacterDto {
  /** @format uuid */
  id: string;
  /** @format uuid */
  user_id: string | null;
}

export interface SetMainCharacterRequest {
  /** eve_id of one of the user's characters; null clears it. @pattern ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero */
  eve_id: string | null;
}

export interface CreateMapRequest {
  /** URL-safe unique name. @pattern ^[a-z0-9][a-z0-9-]{0,99}$ */
  slug: string;
  /** @minLength 1 @maxLength 255 */
  name: string;
  /** @maxLength 10000 */
  description?: string | null;
  /** eve_id of the owner character; the first map key belongs to it. @pattern ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero */
  owner_eve_id: string;
}

export interface AdminMapDto {
  /** @format uuid */
  id: string;
  slug: string;
  name: string;
  description: string | null;
  owner_eve_id: string;
  webhooks_enabled: boolean;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
}

export interface IssuedMapKeyDto extends MapKeyDto {
  /** The key itself. Shown once: only its hash is stored. */
  api_key: string;
}

export interface CreatedMapDto {
  map: AdminMapDto;
  /** The first map key, bound to the owner character. Shown once. */
  api_key: IssuedMapKeyDto;
}

export interface IssueMapKeyRequest {
  /** eve_id of the character the key is bound to. @pattern ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero */
  character_eve_id: string;
  /** @maxLength 255 */
  name?: string | null;
  /** Compatibility profile (default `spec`): `reference` for clients written against the reference server. */
  profile?: KeyProfile;
  /** Former name of `profile`, still accepted; when both are given they must agree. @deprecated */
  stream_profile?: KeyProfile;
}

export interface TrackCharacterRequest {
  tracked: boolean;
}
