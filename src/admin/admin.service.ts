import type { EntityManager } from '@mikro-orm/postgresql';
import { generateToken, hashToken } from '../crypto.js';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { tsMicro, UUID_RE } from '../db/sql.js';
import { CHARACTER_COLUMNS, toCharacterDto } from '../maps/map-data.service.js';
import type { TrackedCharacterDto } from '../maps/map.dto.js';
import type {
  AdminCharacterDto,
  AdminMapDto,
  CreatedMapDto,
  CreateMapRequest,
  IssuedMapKeyDto,
  IssueMapKeyRequest,
  MapKeyDto,
  UpsertCharacterRequest,
  UserDto,
} from './admin.dto.js';

const MAP_COLUMNS = `m.id, m.slug, m.name, m.description, o.eve_id as owner_eve_id, m.webhooks_enabled,
  ${tsMicro('m.inserted_at')} as inserted_at, ${tsMicro('m.updated_at')} as updated_at`;

/** Trimmed text that must not be blank (the schema's minLength counts spaces). */
function nonBlank(value: string, field: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw new ValidationError([{ field, message: 'must not be blank' }]);
  return trimmed;
}

const KEY_COLUMNS = `k.id, k.map_id, ch.eve_id as character_eve_id, k.name, k.prefix,
  ${tsMicro('k.revoked_at')} as revoked_at, ${tsMicro('k.inserted_at')} as inserted_at`;

/**
 * Operator bootstrap (decisions §2): users, characters (upsert by eve_id), main character, maps
 * (create returns the first key once), map keys (issue, revoke), character tracking. The HTTP admin
 * API, `mapintel admin …` and `mapintel demo` all go through this service.
 */
export class AdminService {
  /** Called after a key is revoked so cached token resolutions are dropped. */
  constructor(private readonly onKeysChanged: () => void = () => {}) {}

  async createUser(em: EntityManager, name: string): Promise<UserDto> {
    const rows = await em.getConnection().execute<{ id: string }[]>('insert into users (name) values (?) returning id', [nonBlank(name, 'name')]);
    return this.getUser(em, rows[0]!.id);
  }

  async listUsers(em: EntityManager): Promise<UserDto[]> {
    const rows = await em.getConnection().execute<{ id: string }[]>('select id from users order by name, id');
    return Promise.all(rows.map((r) => this.getUser(em, r.id)));
  }

  async getUser(em: EntityManager, id: string): Promise<UserDto> {
    if (!UUID_RE.test(id)) throw new NotFoundError('User not found', 'user_not_found');
    const conn = em.getConnection();
    const ctx = em.getTransactionContext();
    const users = await conn.execute<{ id: string; name: string; main_eve_id: string | null; inserted_at: string; updated_at: string }[]>(
      `select u.id, u.name, main.eve_id as main_eve_id, ${tsMicro('u.inserted_at')} as inserted_at, ${tsMicro('u.updated_at')} as updated_at
       from users u left join characters main on main.id = u.main_character_id and main.user_id = u.id where u.id = ?`,
      [id],
      'all',
      ctx,
    );
    const user = users[0];
    if (!user) throw new NotFoundError('User not found', 'user_not_found');
    const chars = await conn.execute<Record<string, unknown>[]>(
      `select ${CHARACTER_COLUMNS} from characters ch where ch.user_id = ? order by ch.name`,
      [id],
      'all',
      ctx,
    );
    return {
      id: user.id,
      name: user.name,
      main_character_eve_id: user.main_eve_id,
      characters: chars.map((c) => toCharacterDto(c)),
      inserted_at: user.inserted_at,
      updated_at: user.updated_at,
    };
  }

  /** Sets (or clears with null) the user's main character; it must be one of the user's characters. */
  async setMainCharacter(em: EntityManager, userId: string, eveId: string | null): Promise<UserDto> {
    await this.getUser(em, userId);
    let characterId: string | null = null;
    if (eveId !== null) {
      const rows = await em
        .getConnection()
        .execute<{ id: string; user_id: string | null }[]>('select id, user_id from characters where eve_id = ?', [eveId]);
      const ch = rows[0];
      if (!ch) throw new NotFoundError('Character not found', 'character_not_found');
      if (ch.user_id !== userId) throw new BadRequestError('not_users_character', 'The character does not belong to this user');
      characterId = ch.id;
    }
    await em.getConnection().execute('update users set main_character_id = ?, updated_at = now() where id = ?', [characterId, userId]);
    return this.getUser(em, userId);
  }

  /** Creates or updates a character by eve_id. */
  async upsertCharacter(em: EntityManager, req: UpsertCharacterRequest): Promise<AdminCharacterDto> {
    const name = nonBlank(req.name, 'name');
    const corporationTicker = nonBlank(req.corporation_ticker, 'corporation_ticker');
    if (req.user_id) await this.getUser(em, req.user_id);
    const userProvided = req.user_id !== undefined;
    const rows = await em.getConnection().execute<Record<string, unknown>[]>(
      `insert into characters as ch (eve_id, name, corporation_id, corporation_ticker, alliance_id, alliance_ticker, user_id)
       values (?, ?, ?, ?, ?, ?, ?)
       on conflict (eve_id) do update set name = excluded.name, corporation_id = excluded.corporation_id,
         corporation_ticker = excluded.corporation_ticker, alliance_id = excluded.alliance_id,
         alliance_ticker = excluded.alliance_ticker,
         user_id = ${userProvided ? 'excluded.user_id' : 'ch.user_id'}, updated_at = now()
       returning ch.id, ch.user_id, ${CHARACTER_COLUMNS}`,
      [
        req.eve_id,
        name,
        req.corporation_id,
        corporationTicker,
        req.alliance_id ?? null,
        req.alliance_ticker ?? null,
        req.user_id ?? null,
      ],
    );
    const row = rows[0]!;
    return { id: row.id as string, user_id: (row.user_id as string | null) ?? null, ...toCharacterDto(row) };
  }

  async listCharacters(em: EntityManager): Promise<AdminCharacterDto[]> {
    const rows = await em
      .getConnection()
      .execute<Record<string, unknown>[]>(`select ch.id, ch.user_id, ${CHARACTER_COLUMNS} from characters ch order by ch.name, ch.eve_id`);
    return rows.map((r) => ({ id: r.id as string, user_id: (r.user_id as string | null) ?? null, ...toCharacterDto(r) }));
  }

  /** Creates a map and its first key, bound to the owner character; the key is returned once. */
  async createMap(em: EntityManager, req: CreateMapRequest): Promise<CreatedMapDto> {
    const name = nonBlank(req.name, 'name');
    return em.transactional(async (tx) => {
      const conn = tx.getConnection();
      const ctx = tx.getTransactionContext();
      const owner = await this.characterByEveId(tx, req.owner_eve_id);
      const taken = await conn.execute<unknown[]>('select 1 from maps where slug = ?', [req.slug], 'all', ctx);
      if (taken.length) throw new ConflictError('slug_taken', 'A map with this slug already exists');
      const rows = await conn.execute<{ id: string }[]>(
        'insert into maps (slug, name, description, owner_character_id) values (?, ?, ?, ?) on conflict (slug) do nothing returning id',
        [req.slug, name, req.description ?? null, owner],
        'all',
        ctx,
      );
      // A concurrent create with the same slug won the race: same answer as the check above.
      const mapId = rows[0]?.id;
      if (!mapId) throw new ConflictError('slug_taken', 'A map with this slug already exists');
      const key = await this.insertKey(tx, mapId, owner, 'owner');
      return { map: await this.getMap(tx, mapId), api_key: key };
    });
  }

  async listMaps(em: EntityManager): Promise<AdminMapDto[]> {
    return em
      .getConnection()
      .execute<AdminMapDto[]>(`select ${MAP_COLUMNS} from maps m join characters o on o.id = m.owner_character_id order by m.slug`);
  }

  async getMap(em: EntityManager, idOrSlug: string): Promise<AdminMapDto> {
    const by = UUID_RE.test(idOrSlug) ? 'm.id' : 'm.slug';
    const rows = await em
      .getConnection()
      .execute<AdminMapDto[]>(
        `select ${MAP_COLUMNS} from maps m join characters o on o.id = m.owner_character_id where ${by} = ?`,
        [idOrSlug],
        'all',
        em.getTransactionContext(),
      );
    const map = rows[0];
    if (!map) throw new NotFoundError('Map not found', 'map_not_found');
    return map;
  }

  async issueKey(em: EntityManager, mapIdOrSlug: string, req: IssueMapKeyRequest): Promise<IssuedMapKeyDto> {
    return em.transactional(async (tx) => {
      const map = await this.getMap(tx, mapIdOrSlug);
      const characterId = await this.characterByEveId(tx, req.character_eve_id);
      return this.insertKey(tx, map.id, characterId, req.name ?? null);
    });
  }

  async listKeys(em: EntityManager, mapIdOrSlug: string): Promise<MapKeyDto[]> {
    const map = await this.getMap(em, mapIdOrSlug);
    return em
      .getConnection()
      .execute<MapKeyDto[]>(`select ${KEY_COLUMNS} from map_api_keys k join characters ch on ch.id = k.character_id where k.map_id = ? order by k.inserted_at`, [
        map.id,
      ]);
  }

  /** Revokes a key (idempotent); cached resolutions are dropped at once. */
  async revokeKey(em: EntityManager, mapIdOrSlug: string, keyId: string): Promise<MapKeyDto> {
    const map = await this.getMap(em, mapIdOrSlug);
    if (!UUID_RE.test(keyId)) throw new NotFoundError('Map key not found', 'key_not_found');
    const conn = em.getConnection();
    await conn.execute('update map_api_keys set revoked_at = coalesce(revoked_at, now()) where id = ? and map_id = ?', [keyId, map.id]);
    const rows = await conn.execute<MapKeyDto[]>(
      `select ${KEY_COLUMNS} from map_api_keys k join characters ch on ch.id = k.character_id where k.id = ? and k.map_id = ?`,
      [keyId, map.id],
    );
    const key = rows[0];
    if (!key) throw new NotFoundError('Map key not found', 'key_not_found');
    this.onKeysChanged();
    return key;
  }

  /** Tracks (or untracks) a character on a map. */
  async setTracking(em: EntityManager, mapIdOrSlug: string, eveId: string, tracked: boolean): Promise<TrackedCharacterDto> {
    const map = await this.getMap(em, mapIdOrSlug);
    const characterId = await this.characterByEveId(em, eveId);
    const rows = await em.getConnection().execute<{ id: string; tracked: boolean }[]>(
      `insert into map_characters (map_id, character_id, tracked) values (?, ?, ?)
       on conflict (map_id, character_id) do update set tracked = excluded.tracked, updated_at = now()
       returning id, tracked`,
      [map.id, characterId, tracked],
    );
    const chars = await em.getConnection().execute<Record<string, unknown>[]>(`select ${CHARACTER_COLUMNS} from characters ch where ch.id = ?`, [characterId]);
    return { id: rows[0]!.id, character: toCharacterDto(chars[0]!), tracked: rows[0]!.tracked, map_id: map.id };
  }

  /** Removes a character from a map. */
  async removeTracking(em: EntityManager, mapIdOrSlug: string, eveId: string): Promise<void> {
    const map = await this.getMap(em, mapIdOrSlug);
    const characterId = await this.characterByEveId(em, eveId);
    await em.getConnection().execute('delete from map_characters where map_id = ? and character_id = ?', [map.id, characterId]);
  }

  private async characterByEveId(em: EntityManager, eveId: string): Promise<string> {
    const rows = await em
      .getConnection()
      .execute<{ id: string }[]>('select id from characters where eve_id = ?', [eveId], 'all', em.getTransactionContext());
    const row = rows[0];
    if (!row) throw new NotFoundError(`Character not found: no character has eve_id ${eveId}`, 'character_not_found');
    return row.id;
  }

  private async insertKey(tx: EntityManager, mapId: string, characterId: string, name: string | null): Promise<IssuedMapKeyDto> {
    const apiKey = generateToken('mik');
    const rows = await tx.getConnection().execute<{ id: string }[]>(
      'insert into map_api_keys (map_id, character_id, key_hash, prefix, name) values (?, ?, ?, ?, ?) returning id',
      [mapId, characterId, hashToken(apiKey), apiKey.slice(0, 10), name],
      'all',
      tx.getTransactionContext(),
    );
    const keys = await tx
      .getConnection()
      .execute<MapKeyDto[]>(`select ${KEY_COLUMNS} from map_api_keys k join characters ch on ch.id = k.character_id where k.id = ?`, [rows[0]!.id], 'all', tx.getTransactionContext());
    return { ...keys[0]!, api_key: apiKey };
  }
}
