/** API models of ACLs and their members (spec 2.9, 2.10, 4.4). */

/** An ACL member: exactly one of eve_character_id, eve_corporation_id, eve_alliance_id is present. */
export interface AclMemberDto {
  /** Membership record id. @format uuid */
  id: string;
  /** Display name of the character, corporation or alliance. */
  name: string;
  /** admin, manager, member, viewer or blocked. */
  role: string;
  /** Present only for a character member. */
  eve_character_id?: string;
  /** Present only for a corporation member. */
  eve_corporation_id?: string;
  /** Present only for an alliance member. */
  eve_alliance_id?: string;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
}

/** An ACL in the single-ACL, create and update responses. */
export interface AclDto {
  /** @format uuid */
  id: string;
  name: string;
  description: string | null;
  /** Id of the owner character record. @format uuid */
  owner_id: string;
  /** The ACL API token. */
  api_key: string;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
  members: AclMemberDto[];
}

export interface CreateAclFields {
  /** @minLength 1 @maxLength 255 */
  name: string;
  /** @maxLength 10000 */
  description?: string | null;
  /** eve_id of the owner character (from GET /api/characters). @pattern ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero */
  owner_eve_id: string;
}

/**
 * @example {
 *   "acl": { "name": "Home corp", "description": "Members of the home corporation", "owner_eve_id": "2112000001" }
 * }
 */
export interface CreateAclRequest {
  acl: CreateAclFields;
}

export interface UpdateAclFields {
  /** @minLength 1 @maxLength 255 */
  name?: string;
  /** @maxLength 10000 */
  description?: string | null;
}

/**
 * @example { "acl": { "name": "Home corp and friends", "description": "Blues included" } }
 */
export interface UpdateAclRequest {
  acl: UpdateAclFields;
}

export interface CreateAclMemberFields {
  /** External character id. @pattern ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero */
  eve_character_id?: string;
  /** External corporation id. @pattern ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero */
  eve_corporation_id?: string;
  /** External alliance id. @pattern ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero */
  eve_alliance_id?: string;
  /** admin, manager, member, viewer or blocked; corporations and alliances cannot be admin or manager. @maxLength 16 */
  role: string;
  /**
   * Display name; when omitted it is taken from the known characters (name, corporation or alliance
   * ticker), else the id. @minLength 1 @maxLength 255
   */
  name?: string;
}

/**
 * Exactly one of `eve_character_id`, `eve_corporation_id`, `eve_alliance_id`.
 * @example { "member": { "eve_character_id": "2112000001", "role": "admin" } }
 */
export interface CreateAclMemberRequest {
  member: CreateAclMemberFields;
}

export interface UpdateAclMemberFields {
  /** @maxLength 16 */
  role: string;
}

/**
 * @example { "member": { "role": "viewer" } }
 */
export interface UpdateAclMemberRequest {
  member: UpdateAclMemberFields;
}

export interface OkResponse {
  ok: boolean;
}
