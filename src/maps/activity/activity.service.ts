import type { Db } from '../../db/db.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { CharacterRepository } from '../../characters/character.repository.js';
import { MapAccess, type MapReference } from '../map-access.js';
import { actorEveId } from '../edit-support.js';
import type { CharacterActivityDayDto, CharacterActivityRequest } from './activity.dto.js';
import { incrementOf } from './activity.rules.js';
import { ActivityRepository, type ActivityIncrement } from './activity.repository.js';

/** Character activity counters of a map (spec 2.7): the editing API's increments and the seeding's. */
export class ActivityService {
  private readonly access: MapAccess;

  constructor(
    private readonly db: Db,
    private readonly activity = new ActivityRepository(),
    private readonly characters = new CharacterRepository(),
  ) {
    this.access = new MapAccess(db);
  }

  /**
   * Adds to today's (UTC) activity counters of a character: `character_eve_id`, else the key's
   * character. Each counter saturates at 2147483647. At least one increment must be positive.
   */
  async record(principal: MapKeyPrincipal, ref: MapReference, input: CharacterActivityRequest): Promise<CharacterActivityDayDto> {
    const map = await this.access.resolve(principal, ref);
    const inc = incrementOf(input);
    return this.db.transaction(async (tx) => {
      const eveId = input.character_eve_id ?? (await actorEveId(tx, principal.characterId));
      return this.add(tx, map.id, eveId, inc);
    });
  }

  /** Adds to the counters of the character with `eveId` for the UTC day of `at` (default now); 404 `character_not_found`. */
  async add(db: Db, mapId: string, eveId: string, inc: ActivityIncrement, at?: Date): Promise<CharacterActivityDayDto> {
    const character = await this.characters.requireByEveId(db, eveId);
    const day = await this.activity.add(db, mapId, character.id, inc, at);
    return { character: character.character, ...day };
  }
}
