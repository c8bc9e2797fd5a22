import type { Db } from '../db/db.js';
import { ForbiddenError } from '../common/errors.js';
import type { CharacterDto } from './character.dto.js';
import type { Principal } from '../http/principal.js';
import { CharacterRepository } from './character.repository.js';

/** Characters known to the service (spec 4.3), for any map or ACL key. */
export class CharactersService {
  constructor(
    private readonly db: Db,
    /** SERVICE_CHARACTER_API_DISABLED: the operator switched the listing off. */
    private readonly disabled: boolean,
    private readonly characters = new CharacterRepository(),
  ) {}

  /** Every character, by name; 403 `character_api_disabled` when switched off. */
  async list(principal: Principal): Promise<CharacterDto[]> {
    if (this.disabled) throw new ForbiddenError('character_api_disabled', 'The character API is disabled on this server');
    if (principal.kind !== 'map_key' && principal.kind !== 'acl_key') throw new ForbiddenError('forbidden', 'A map or ACL key is required');
    return (await this.characters.list(this.db)).map((c) => c.character);
  }
}
