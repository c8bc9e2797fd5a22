import { generateToken, hashToken } from '../common/crypto.js';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../common/errors.js';
import { UUID_RE } from '../db/sql.js';
import type { Db } from '../db/db.js';
import { CharacterRepository } from '../characters/character.repository.js';
import { TrackingRepository } from '../maps/tracking/tracking.repository.js';
import type { TrackedCharacterDto } from '../maps/map.dto.js';
import type {
  AdminCharacterDto,
  AdminMapDto,
  CreatedMapDto,
  CreateMapRequest,
  IssuedMapKeyDto,
  IssueMapKeyRequest,
  UpsertCharacterRequest,
  UserDto,
} from './admin.dto.js';
import type { MapKeyDto } from '../auth/map-key.dto.js';
import { MapRepository, UserRepository } from './admin.repository.js';
import { MapKeyRepository } from '../auth/map-key.repository.js';
import type { KeyProfile } from '../http/key-profile.js';
import type { Outbox } from '../events/outbox.js';
import { changeTracking, removeFromMap } from '../maps/tracking/tracking-changes.js';
import { charactersUpdatedEvent, mapCharacterPayload } from '../maps/event-payloads.js';

/** Trimmed text that must not be blank (the schema's minLength counts spaces). */
function nonBlank(value: string, field: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw new ValidationError([{ field, message: 'must not be blank' }]);
  return trimmed;
}

/** The profile a key request names: `profile`, or its former name `stream_profile`; both must agree. */
function requestedProfile(req: IssueMapKeyRequest): KeyProfile {
  if (req.profile !== undefined && req.stream_profile !== undefined && req.profile !== req.stream_profile)
    throw new ValidationError([{ field: 'stream_profile', message: 'must equal profile when both are given (stream_profile is its former name)' }]);
  return req.profile ?? req.stream_profile ?? 'spec';
}

export interface AdminRepositories {
  users: UserRepository;
  characters: CharacterRepository;
  maps: MapRepository;
  keys: MapKeyRepository;
  tracking: TrackingRepository;
}

export function adminRepositories(): AdminRepositories {
  return {
    users: new UserRepository(),
    characters: new CharacterRepository(),
    maps: new MapRepository(),
    keys: new MapKeyRepository(),
    tracking: new TrackingRepository(),
  };
}

/**
 * Operator bootstrap (decisions §2): users, characters (upsert by eve_id), main character, maps
 * (create returns the first key once), map keys (issue, revoke), character tracking. The HTTP admin
 * API, `mapintel admin …` and `mapintel demo` all go through this service; only the admin token
 * reaches it (checked by the API's authentication).
 */
export class AdminService {
  constructor(
    private readonly db: Db,
    /** Where tracking and character changes write their map events. */
    private readonly outbox: Outbox,
    /** Called after a key is revoked so cached token resolutions are dropped. */
    private readonly onKeysChanged: () => void = () => {},
    private readonly repos: AdminRepositories = adminRepositories(),
  ) {}

  async createUser(name: string): Promise<UserDto> {
    const id = await this.repos.users.insert(this.db, nonBlank(name, 'name'));
    return this.getUser(id);
  }

  async listUsers(): Promise<UserDto[]> {
    const ids = await this.repos.users.ids(this.db);
    return Promise.all(ids.map((id) => this.getUser(id)));
  }

  async getUser(id: string, db: Db = this.db): Promise<UserDto> {
    if (!UUID_RE.test(id)) throw new NotFoundError('User not found', 'user_not_found');
    const user = await this.repos.users.byId(db, id);
    if (!user) throw new NotFoundError('User not found', 'user_not_found');
    return {
      id: user.id,
      name: user.name,
      main_character_eve_id: user.main_eve_id,
      characters: await this.repos.characters.ofUser(db, id),
      inserted_at: user.inserted_at,
      updated_at: user.updated_at,
    };
  }

  /** Sets (or clears with null) the user's main character; it must be one of the user's characters. */
  async setMainCharacter(userId: string, eveId: string | null): Promise<UserDto> {
    await this.getUser(userId);
    let characterId: string | null = null;
    if (eveId !== null) {
      const ch = await this.repos.characters.requireByEveId(this.db, eveId);
      if (ch.user_id !== userId) throw new BadRequestError('not_users_character', 'The character does not belong to this user');
      characterId = ch.id;
    }
    await this.repos.users.setMainCharacter(this.db, userId, characterId);
    return this.getUser(userId);
  }

  /** Creates or updates a character by eve_id. */
  async upsertCharacter(req: UpsertCharacterRequest): Promise<AdminCharacterDto> {
    const name = nonBlank(req.name, 'name');
    const corporationTicker = nonBlank(req.corporation_ticker, 'corporation_ticker');
    if (req.user_id) await this.getUser(req.user_id);
    return this.db.transaction(async (tx) => {
      const before = await this.repos.characters.byEveId(tx, req.eve_id);
      const saved = await this.repos.characters.upsert(
        tx,
        {
          eve_id: req.eve_id,
          name,
          corporation_id: req.corporation_id,
          corporation_ticker: corporationTicker,
          alliance_id: req.alliance_id ?? null,
          alliance_ticker: req.alliance_ticker ?? null,
        },
        req.user_id,
      );
      // A change of a tracked character's public fields reaches each map that tracks it as characters_updated.
      if (before && JSON.stringify(before.character) !== JSON.stringify(saved.character)) {
        const at = new Date();
        const events = (await this.repos.tracking.trackedEntries(tx, saved.id)).map((e) =>
          charactersUpdatedEvent(e.map_id, [mapCharacterPayload(e.id, saved.id, saved.character, true)], at),
        );
        await this.outbox.append(tx.em, events);
      }
      return { id: saved.id, user_id: saved.user_id, ...saved.character };
    });
  }

  async listCharacters(): Promise<AdminCharacterDto[]> {
    return (await this.repos.characters.list(this.db)).map((c) => ({ id: c.id, user_id: c.user_id, ...c.character }));
  }

  /** Creates a map and its first key, bound to the owner character; the key is returned once. */
  async createMap(req: CreateMapRequest): Promise<CreatedMapDto> {
    const name = nonBlank(req.name, 'name');
    return this.db.transaction(async (tx) => {
      const owner = await this.ownerOf(tx, req.owner_eve_id);
      if (await this.repos.maps.slugTaken(tx, req.slug)) throw new ConflictError('slug_taken', 'A map with this slug already exists');
      const mapId = await this.repos.maps.insert(tx, { slug: req.slug, name, description: req.description ?? null, ownerCharacterId: owner });
      // A concurrent create with the same slug won the race: same answer as the check above.
      if (!mapId) throw new ConflictError('slug_taken', 'A map with this slug already exists');
      const key = await this.insertKey(tx, mapId, owner, 'owner', 'spec');
      return { map: await this.getMap(mapId, tx), api_key: key };
    });
  }

  async listMaps(): Promise<AdminMapDto[]> {
    return this.repos.maps.list(this.db);
  }

  async getMap(idOrSlug: string, db: Db = this.db): Promise<AdminMapDto> {
    const map = await this.repos.maps.byReference(db, idOrSlug);
    if (!map) throw new NotFoundError('Map not found', 'map_not_found');
    return map;
  }

  async issueKey(mapIdOrSlug: string, req: IssueMapKeyRequest): Promise<IssuedMapKeyDto> {
    return this.db.transaction(async (tx) => {
      const map = await this.getMap(mapIdOrSlug, tx);
      const characterId = await this.ownerOf(tx, req.character_eve_id);
      return this.insertKey(tx, map.id, characterId, req.name == null ? null : nonBlank(req.name, 'name'), requestedProfile(req));
    });
  }

  async listKeys(mapIdOrSlug: string): Promise<MapKeyDto[]> {
    const map = await this.getMap(mapIdOrSlug);
    return this.repos.keys.list(this.db, map.id);
  }

  /** Revokes a key (idempotent); cached resolutions are dropped at once. */
  async revokeKey(mapIdOrSlug: string, keyId: string): Promise<MapKeyDto> {
    const map = await this.getMap(mapIdOrSlug);
    if (!UUID_RE.test(keyId)) throw new NotFoundError('Map key not found', 'key_not_found');
    await this.repos.keys.revoke(this.db, map.id, keyId);
    const key = await this.repos.keys.get(this.db, map.id, keyId);
    if (!key) throw new NotFoundError('Map key not found', 'key_not_found');
    this.onKeysChanged();
    return key;
  }

  /** Tracks (or untracks) a character on a map. */
  async setTracking(mapIdOrSlug: string, eveId: string, tracked: boolean): Promise<TrackedCharacterDto> {
    return this.db.transaction(async (tx) => {
      const map = await this.getMap(mapIdOrSlug, tx);
      const ch = await this.characterByEveId(tx, eveId);
      const row = await changeTracking(tx, this.outbox, this.repos.tracking, map.id, ch, tracked);
      return { id: row.id, character: ch.character, tracked: row.tracked, map_id: map.id };
    });
  }

  /** Removes a character from a map. */
  async removeTracking(mapIdOrSlug: string, eveId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const map = await this.getMap(mapIdOrSlug, tx);
      const ch = await this.characterByEveId(tx, eveId);
      await removeFromMap(tx, this.outbox, this.repos.tracking, map.id, ch);
    });
  }

  private characterByEveId(db: Db, eveId: string) {
    return this.repos.characters.requireByEveId(db, eveId, `Character not found: no character has eve_id ${eveId}`);
  }

  private async ownerOf(db: Db, eveId: string): Promise<string> {
    return (await this.characterByEveId(db, eveId)).id;
  }

  private async insertKey(tx: Db, mapId: string, characterId: string, name: string | null, profile: KeyProfile): Promise<IssuedMapKeyDto> {
    const apiKey = generateToken('mik');
    const id = await this.repos.keys.insert(tx, { mapId, characterId, hash: hashToken(apiKey), prefix: apiKey.slice(0, 10), name, profile });
    return { ...(await this.repos.keys.get(tx, mapId, id))!, api_key: apiKey };
  }
}
