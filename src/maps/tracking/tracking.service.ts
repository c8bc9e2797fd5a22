import type { Db } from '../../db/db.js';
import type { Outbox } from '../../events/outbox.js';
import { changeTracking } from './tracking-changes.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { CharacterRepository } from '../../characters/character.repository.js';
import { MapAccess, type MapReference } from '../map-access.js';
import type { TrackedCharacterDto } from '../map.dto.js';
import type { UserCharactersDto } from './tracking.dto.js';
import { TrackingRepository } from './tracking.repository.js';

/** Characters of a map and their tracking flag (spec 2.5, 2.8); a change of the flag emits character_added / character_removed. */
export class TrackingService {
  private readonly access: MapAccess;

  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    private readonly tracking = new TrackingRepository(),
    private readonly characters = new CharacterRepository(),
  ) {
    this.access = new MapAccess(db);
  }

  async list(principal: MapKeyPrincipal, ref: MapReference): Promise<TrackedCharacterDto[]> {
    const map = await this.access.resolve(principal, ref);
    return this.tracking.list(this.db, map.id);
  }

  async byUser(principal: MapKeyPrincipal, ref: MapReference): Promise<UserCharactersDto[]> {
    const map = await this.access.resolve(principal, ref);
    return this.tracking.byUser(this.db, map.id);
  }

  /** Tracks or untracks a known character on the map (adds it to the map when needed); 404 `character_not_found`. */
  async setTracked(principal: MapKeyPrincipal, ref: MapReference, eveId: string, tracked: boolean): Promise<TrackedCharacterDto> {
    const map = await this.access.resolve(principal, ref);
    return this.db.transaction(async (tx) => {
      const character = await this.characters.requireByEveId(tx, eveId);
      const row = await changeTracking(tx, this.outbox, this.tracking, map.id, character, tracked);
      return { id: row.id, character: character.character, tracked: row.tracked, map_id: map.id };
    });
  }
}
