/** API models of map duplication (`POST /api/maps/{map_id}/duplicate`), in the reference server's shapes. */

/** What the copy is called and what it takes along. */
export interface DuplicateMapRequest {
  /**
   * Name of the copy (3–20 characters, as the reference server allows); its slug is made from it.
   * @minLength 3
   * @maxLength 20
   */
  name: string;
  /**
   * Description of the copy; omitted or null: none.
   * @maxLength 10000
   */
  description?: string | null;
  /** Link the copy to the ACLs the map is linked to. Default true. */
  copy_acls?: boolean;
  /** Copy the systems' signatures. Default true. */
  copy_signatures?: boolean;
  /** Accepted for clients of the reference server and ignored: this service keeps no per-user map settings. */
  copy_user_settings?: boolean;
}

/** The copy, and its first map key. */
export interface DuplicatedMapDto {
  /** @format uuid */
  id: string;
  name: string;
  /** Made from the name: lower-case letters, digits and dashes, with `-2`, `-3`, … when taken. */
  slug: string;
  description: string | null;
  /** A map key of the copy, bound to the owner's character. Shown once: only its hash is stored. */
  api_key: string;
}
