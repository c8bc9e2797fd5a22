/** An ACL in the per-map list (GET /api/map/acls). */
export interface AclListItemDto {
  /** @format uuid */
  id: string;
  name: string;
  description: string | null;
  /** eve_id of the owner character. */
  owner_eve_id: string;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
}
