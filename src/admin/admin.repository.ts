import type { Db } from '../db/db.js';
import { tsMicro } from '../db/sql.js';
import type { AdminMapDto, MapKeyDto } from './admin.dto.js';
import type { KeyProfile } from '../http/key-profile.js';

const MAP_COLUMNS = `m.id, m.slug, m.name, m.description, o.eve_id as owner_eve_id, m.webhooks_enabled,
  ${tsMicro('m.inserted_at')} as inserted_at, ${tsMicro('m.updated_at')} as updated_at`;

const KEY_COLUMNS = `k.id, k.map_id, ch.eve_id as character_eve_id, k.name, k.prefix,
  ${tsMicro('k.revoked_at')} as revoked_at, ${tsMicro('k.inserted_at')} as inserted_at, k.stream_profile as profile, k.stream_profile`;

export interface UserRow {
  id: string;
  name: string;
  main_eve_id: string | null;
  inserted_at: string;
  updated_at: string;
}

/** The users table. */
export class UserRepository {
  async insert(db: Db, name: string): Promise<string> {
    return (await db.one<{ id: string }>('insert into users (name) values (?) returning id', [name]))!.id;
  }

  async ids(db: Db): Promise<string[]> {
    return (await db.all<{ id: string }>('select id from users order by name, id')).map((r) => r.id);
  }

  /** The user with the eve_id of its main character (only while the main still belongs to the user). */
  async byId(db: Db, id: string): Promise<UserRow | undefined> {
    return db.one<UserRow>(
      `select u.id, u.name, main.eve_id as main_eve_id, ${tsMicro('u.inserted_at')} as inserted_at, ${tsMicro('u.updated_at')} as updated_at
       from users u left join characters main on main.id = u.main_character_id and main.user_id = u.id where u.id = ?`,
      [id],
    );
  }

  async setMainCharacter(db: Db, userId: string, characterId: string | null): Promise<void> {
    await db.run('update users set main_character_id = ?, updated_at = now() where id = ?', [characterId, userId]);
  }
}

/** The maps table as the operator sees it. */
export class MapRepository {
  /** Inserts a map; undefined when the slug is taken (also by a concurrent insert). */
  async insert(db: Db, m: { slug: string; name: string; description: string | null; ownerCharacterId: string }): Promise<string | undefined> {
    const row = await db.one<{ id: string }>(
      'insert into maps (slug, name, description, owner_character_id) values (?, ?, ?, ?) on conflict (slug) do nothing returning id',
      [m.slug, m.name, m.description, m.ownerCharacterId],
    );
    return row?.id;
  }

  async slugTaken(db: Db, slug: string): Promise<boolean> {
    return (await db.one('select 1 as taken from maps where slug = ?', [slug])) !== undefined;
  }

  async list(db: Db): Promise<AdminMapDto[]> {
    return db.all<AdminMapDto>(`select ${MAP_COLUMNS} from maps m join characters o on o.id = m.owner_character_id order by m.slug`);
  }

  async byIdOrSlug(db: Db, by: 'id' | 'slug', value: string): Promise<AdminMapDto | undefined> {
    return db.one<AdminMapDto>(`select ${MAP_COLUMNS} from maps m join characters o on o.id = m.owner_character_id where m.${by} = ?`, [value]);
  }
}

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
