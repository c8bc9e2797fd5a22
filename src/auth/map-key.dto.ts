import type { KeyProfile } from '../http/key-profile.js';

export interface MapKeyDto {
  /** @format uuid */
  id: string;
  /** @format uuid */
  map_id: string;
  /** eve_id of the character the key is bound to (writes are attributed to it). */
  character_eve_id: string;
  name: string | null;
  /** First characters of the key, to tell keys apart. */
  prefix: string;
  /** ISO 8601 UTC, microseconds; null while the key is valid. */
  revoked_at: string | null;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /**
   * Compatibility profile: the wire shapes of everything the key reads. `spec` (the default) is the
   * service API exactly; `reference` gives clients written against the reference server its shapes
   * (integer `corporation_id`/`alliance_id` in character objects; an `event:` line and a `timestamp`
   * field on each stream event). docs/api.md lists every difference.
   */
  profile: KeyProfile;
  /** The same as `profile`, under its former name (it once changed stream frames only). @deprecated */
  stream_profile: KeyProfile;
}
