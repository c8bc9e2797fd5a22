import type { Db } from '../db/db.js';
import { tsMicro } from '../db/sql.js';
import type { MapKeyDto } from './map-key.dto.js';
import type { KeyProfile } from '../http/key-profile.js';

const KEY_COLUMNS = `k.id, k.map_id, ch.eve_id as character_eve_id, k.name, k.prefix,
  ${tsMicro('k.revoked_at')} as revoked_at, ${tsMicro('k.inserted_at')} as inserted_at, k.stream_profile as profile, k.stream_profile`;

/** The map_api_keys table (keys are stored as hashes; the key itself is shown once). */
export class MapKeyRepository {
  async insert(db: Db, k: { mapId: string; characterId: string; hash: string; prefix: string; name: string | null; profile: KeyProfile }): Promise<string> {
    return (await db.one<{ id: string }>(
      'insert into map_api_keys (map_id, character_id, key_hash, prefix, name, stream_profile) values (?, ?, ?, ?, ?, ?) returning id',
      [k.mapId, k.characterId, k.hash, k.prefix, k.name, k.profile],
    ))!.id;
  }

  async get(db: Db, mapId: string, keyId: string): Promise<MapKeyDto | undefined> {
    return db.one<MapKeyDto>(`select ${KEY_COLUMNS} from map_api_keys k join characters ch on ch.id = k.character_id where k.id = ? and k.map_id = ?`, [
      keyId,
      mapId,
    ]);
  }

  async list(db: Db, mapId: string): Promise<MapKeyDto[]> {
    return db.all<MapKeyDto>(
      `select ${KEY_COLUMNS} from map_api_keys k join characters ch on ch.id = k.character_id where k.map_id = ? order by k.inserted_at`,
      [mapId],
    );
  }

  /** Marks the key revoked (idempotent: the first revocation time stays). */
  async revoke(db: Db, mapId: string, keyId: string): Promise<void> {
    await db.run('update map_api_keys set revoked_at = coalesce(revoked_at, now()) where id = ? and map_id = ?', [keyId, mapId]);
  }

  /**
   * Which of these key ids are still live (not revoked, not deleted), in one query: the stream role's
   * revocation sweep and the operator's re-check of the keys WebhookSubscriptions proved.
   */
  async liveIds(db: Db, keyIds: readonly string[]): Promise<Set<string>> {
    if (keyIds.length === 0) return new Set();
    const rows = await db.all<{ id: string }>(
      'select id from map_api_keys where id = any(select jsonb_array_elements_text(?::jsonb)::uuid) and revoked_at is null',
      [JSON.stringify(keyIds)],
    );
    return new Set(rows.map((r) => r.id));
  }
}
