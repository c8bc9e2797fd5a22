import { sql } from 'kysely';
import type { Db } from '../db/db.js';
import type { Tables } from '../db/tables.js';
import { tsMicro } from '../db/sql.js';
import type { MapKeyDto } from './map-key.dto.js';
import type { KeyProfile } from '../http/key-profile.js';

const KEY_COLUMNS = `k.id, k.map_id, ch.eve_id as character_eve_id, k.name, k.prefix,
  ${tsMicro('k.revoked_at')} as revoked_at, ${tsMicro('k.inserted_at')} as inserted_at, k.stream_profile as profile, k.stream_profile`;

/** A map key as a bearer token resolves to it: found by the sha256 of the token, revoked or not. */
export interface MapKeyByHash {
  id: string;
  map_id: string;
  character_id: string;
  key_hash: string;
  stream_profile: KeyProfile;
  revoked: boolean;
}

/**
 * The map_api_keys table (keys are stored as hashes; the key itself is shown once): its one reader and
 * writer, for the admin API, the token service, the key directory and the operator's map facts.
 */
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

  /** The names of these keys of the map (null for an unnamed key), by id; never their material. Keys of other maps are left out. */
  async namesOf(db: Db, mapId: string, keyIds: readonly string[]): Promise<Map<string, string | null>> {
    return (await this.namesOfMaps(db, new Map([[mapId, keyIds]]))).get(mapId) ?? new Map();
  }

  /** `namesOf` for several maps in one query: per map id, the names of those of its keys that exist. */
  async namesOfMaps(db: Db, keyIdsByMap: ReadonlyMap<string, readonly string[]>): Promise<Map<string, Map<string, string | null>>> {
    const out = new Map<string, Map<string, string | null>>();
    const ids = [...keyIdsByMap.values()].flat();
    if (ids.length === 0) return out;
    const rows = await db.all<{ id: string; map_id: string; name: string | null }>(
      'select id, map_id, name from map_api_keys where id = any(select jsonb_array_elements_text(?::jsonb)::uuid)',
      [JSON.stringify(ids)],
    );
    for (const r of rows) {
      // A key of another map than the one it was asked for is not that map's.
      if (!keyIdsByMap.get(r.map_id)?.includes(r.id)) continue;
      let names = out.get(r.map_id);
      if (!names) out.set(r.map_id, (names = new Map()));
      names.set(r.id, r.name);
    }
    return out;
  }

  /**
   * The key whose sha256 is `hash`, revoked ones too (key_hash is unique), in one indexed query: what the
   * token service resolves bearer tokens with and the operator checks a Secret's key with.
   */
  async byHash(db: Db, hash: string): Promise<MapKeyByHash | undefined> {
    return db
      .kysely<Tables>()
      .selectFrom('map_api_keys')
      .select(['id', 'map_id', 'character_id', 'key_hash', 'stream_profile'])
      .select(sql<boolean>`revoked_at is not null`.as('revoked'))
      .where('key_hash', '=', hash)
      .executeTakeFirst();
  }

  /**
   * The first `length` hex characters of the hashes of live keys, of those created at or after `since`
   * when given (the key directory's incremental read) or of all.
   */
  async livePrefixes(db: Db, length: number, since: Date | null): Promise<string[]> {
    const rows = await db
      .kysely<Tables>()
      .selectFrom('map_api_keys')
      .select(sql<string>`left(key_hash, ${sql.lit(length)})`.as('prefix'))
      .where('revoked_at', 'is', null)
      .$if(since !== null, (q) => q.where('inserted_at', '>=', since!))
      .execute();
    return rows.map((r) => r.prefix);
  }
}
