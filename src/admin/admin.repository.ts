import type { Db } from '../db/db.js';
import { tsMicro } from '../db/sql.js';
import type { AdminMapDto } from './admin.dto.js';
import { mapReference } from '../maps/map.repository.js';

const MAP_COLUMNS = `m.id, m.slug, m.name, m.description, o.eve_id as owner_eve_id, m.webhooks_enabled,
  ${tsMicro('m.inserted_at')} as inserted_at, ${tsMicro('m.updated_at')} as updated_at`;

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

  /** A map by UUID or slug (mapReference decides which). */
  async byReference(db: Db, ref: string): Promise<AdminMapDto | undefined> {
    const { column, value } = mapReference(ref);
    return db.one<AdminMapDto>(`select ${MAP_COLUMNS} from maps m join characters o on o.id = m.owner_character_id where m.${column} = ?`, [value]);
  }
}
