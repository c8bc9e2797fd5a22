import { generateToken, hashToken } from '../../common/crypto.js';
import type { Db } from '../../db/db.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { ConflictError, ForbiddenError, ValidationError } from '../../common/errors.js';
import { MapRepository } from '../admin.repository.js';
import { MapKeyRepository } from '../../auth/map-key.repository.js';
import { AclRepository } from '../../acls/acl.repository.js';
import { MapAccess, type MapReference } from '../../maps/map-access.js';
import { MapRefRepository } from '../../maps/map.repository.js';
import { SystemRepository } from '../../maps/systems/system.repository.js';
import { ConnectionRepository } from '../../maps/connections/connection.repository.js';
import { SignatureRepository } from '../../maps/signatures/signature.repository.js';
import { StructureRepository } from '../../maps/structures/structure.repository.js';
import type { DuplicatedMapDto, DuplicateMapRequest } from './map-duplicate.dto.js';

/** Slugs tried per copy before giving up (`name`, `name-2`, … `name-50`). */
const SLUG_ATTEMPTS = 50;

/**
 * Copies a map: systems (hidden ones too), connections, structures and, unless declined, signatures
 * and ACL links, with a first key for the copy, all in one transaction. Only the owner's key may.
 * The copy starts with an empty event log: nothing is announced on either map.
 */
export class MapDuplicateService {
  private readonly access: MapAccess;

  constructor(
    private readonly db: Db,
    private readonly repos = {
      maps: new MapRepository(),
      keys: new MapKeyRepository(),
      systems: new SystemRepository(),
      connections: new ConnectionRepository(),
      signatures: new SignatureRepository(),
      structures: new StructureRepository(),
      acls: new AclRepository(),
    },
    maps = new MapRefRepository(),
  ) {
    this.access = new MapAccess(db, maps);
  }

  async duplicate(principal: MapKeyPrincipal, ref: MapReference, req: DuplicateMapRequest): Promise<DuplicatedMapDto> {
    const map = await this.access.resolve(principal, ref);
    if (principal.characterId !== map.ownerCharacterId) throw new ForbiddenError('not_map_owner', 'Only the map owner can duplicate maps');
    const name = req.name.trim();
    if (name.length < 3) throw new ValidationError([{ field: 'name', message: 'must have at least 3 characters besides spaces' }]);
    const description = req.description ?? null;
    const base = slugOf(name);
    return this.db.transaction(async (tx) => {
      let id: string | undefined;
      let slug = base;
      for (let n = 1; !id && n <= SLUG_ATTEMPTS; n++) {
        slug = n === 1 ? base : `${base}-${n}`;
        id = await this.repos.maps.insert(tx, { slug, name, description, ownerCharacterId: map.ownerCharacterId });
      }
      if (!id) throw new ConflictError('slug_taken', `Maps with slugs ${base} to ${base}-${SLUG_ATTEMPTS} exist; choose another name`);
      await this.repos.systems.copyMap(tx, map.id, id);
      await this.repos.connections.copyMap(tx, map.id, id);
      await this.repos.structures.copyMap(tx, map.id, id);
      if (req.copy_signatures !== false) await this.repos.signatures.copyMap(tx, map.id, id);
      if (req.copy_acls !== false) await this.repos.acls.copyMapLinks(tx, map.id, id);
      const apiKey = generateToken('mik');
      await this.repos.keys.insert(tx, {
        mapId: id,
        characterId: map.ownerCharacterId,
        hash: hashToken(apiKey),
        prefix: apiKey.slice(0, 10),
        name: 'owner',
        // The copy's key speaks the shapes of the key that made it (a reference client keeps its shapes).
        profile: principal.profile ?? 'spec',
      });
      return { id, name, slug, description, api_key: apiKey };
    });
  }
}

/** A slug from a name: lower-case ASCII letters and digits, other runs turned into one dash. */
export function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'map';
}
