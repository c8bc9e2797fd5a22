/**
 * Declared row types of tables that repositories read through the typed query builder (`db.kysely<T>()`),
 * as the migrations create them (src/db/migrations/). A query over these names and columns is checked by
 * the compiler; a column that a migration adds or drops changes here too.
 */
import type { ColumnType, Generated } from 'kysely';

/** A timestamptz column: read as a Date, written as a Date or an ISO string. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** `maps` (migration 20261122155358). */
export interface MapsTable {
  id: Generated<string>;
  slug: string;
  name: string;
  description: string | null;
  owner_character_id: string;
  webhooks_enabled: Generated<boolean>;
  inserted_at: Timestamp;
  updated_at: Timestamp;
}

/** `map_api_keys` (migrations 20261122155358 and 20261123120000, which adds `stream_profile`). */
export interface MapApiKeysTable {
  id: Generated<string>;
  map_id: string;
  character_id: string;
  /** sha256 of the key, hex. */
  key_hash: string;
  prefix: string;
  name: string | null;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
  inserted_at: Timestamp;
  stream_profile: Generated<'spec' | 'reference'>;
}

/** The tables declared here, by name: the schema argument of `db.kysely<Tables>()`. */
export interface Tables {
  maps: MapsTable;
  map_api_keys: MapApiKeysTable;
}
