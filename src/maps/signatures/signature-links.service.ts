import type { Db } from '../../db/db.js';
import type { Outbox } from '../../events/outbox.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { UUID_RE } from '../../db/sql.js';
import { ConflictError, NotFoundError } from '../../common/errors.js';
import { MapAccess, type MapReference } from '../map-access.js';
import { MapRefRepository } from '../map.repository.js';
import { signaturesUpdatedEvent } from '../event-payloads.js';
import { actorEveId, systemNotFound } from '../edit-support.js';
import { SystemRepository } from '../systems/system.repository.js';
import type { SignatureDto } from './signatures.dto.js';
import { SignatureRepository, type SignatureLinkRow } from './signature.repository.js';

/** The group a linked signature gets: only a wormhole leads to another system. */
export const LINKED_GROUP = 'Wormhole';

/**
 * Links between a signature and the system it leads to (`linked_system_id`), as the reference server's
 * link/unlink routes set them. A change emits one `signatures_updated` for the signature's system
 * ({added_count: 0, updated_count: 1, removed_count: 0}); a request that changes nothing emits nothing.
 */
export class SignatureLinksService {
  private readonly access: MapAccess;

  constructor(
    private readonly db: Db,
    private readonly outbox: Outbox,
    private readonly signatures = new SignatureRepository(),
    private readonly systems = new SystemRepository(),
    private readonly maps = new MapRefRepository(),
  ) {
    this.access = new MapAccess(db, maps);
  }

  /**
   * Links the signature to `target`, a visible system of the map other than the signature's own
   * (404 `system_not_found` naming `solar_system_target`); its group becomes `Wormhole`.
   */
  async link(principal: MapKeyPrincipal, ref: MapReference, id: string, target: number): Promise<SignatureDto> {
    const map = await this.access.resolve(principal, ref);
    const signatureId = recordIdOf(id);
    return this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const row = await this.existing(tx, map.id, signatureId);
      const onMap = await this.systems.visibleAmong(tx, map.id, [target]);
      if (!onMap.has(target) || target === row.solar_system_id) {
        const why = target === row.solar_system_id ? 'is the signature’s own system' : 'is not a system on this map';
        throw systemNotFound([{ field: 'solar_system_target', message: `${target} ${why}` }]);
      }
      const values = { linked_system_id: target, group: LINKED_GROUP };
      await this.apply(tx, map.id, principal, row, values);
      return this.signatures.dto(tx, row.id);
    });
  }

  /** Clears the signature's link; 409 `signature_not_linked` when it has none. */
  async unlink(principal: MapKeyPrincipal, ref: MapReference, id: string): Promise<SignatureDto> {
    const map = await this.access.resolve(principal, ref);
    const signatureId = recordIdOf(id);
    return this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const row = await this.existing(tx, map.id, signatureId);
      if (row.linked_system_id === null) throw new ConflictError('signature_not_linked', 'Signature is not linked to a system');
      await this.apply(tx, map.id, principal, row, { linked_system_id: null });
      return this.signatures.dto(tx, row.id);
    });
  }

  /** Writes the fields that differ from the row, attributed to the key's character, and their event. */
  private async apply(
    tx: Db,
    mapId: string,
    principal: MapKeyPrincipal,
    row: SignatureLinkRow,
    values: { linked_system_id: number | null; group?: string },
  ): Promise<void> {
    const changed = Object.fromEntries(Object.entries(values).filter(([k, v]) => row[k as keyof SignatureLinkRow] !== v));
    if (Object.keys(changed).length === 0) return;
    await this.signatures.update(tx, row.id, changed, await actorEveId(tx, principal.characterId));
    await this.outbox.append(tx.em, [signaturesUpdatedEvent(mapId, row.solar_system_id, { added: 0, updated: 1, removed: 0 })]);
  }

  private async existing(tx: Db, mapId: string, id: string): Promise<SignatureLinkRow> {
    const row = await this.signatures.onVisibleSystem(tx, mapId, id);
    if (!row) throw signatureNotFound();
    return row;
  }
}

function signatureNotFound(): NotFoundError {
  return new NotFoundError('Signature not found', 'signature_not_found');
}

/** The signature record id of a path, lower-cased; 404 `signature_not_found` when it is not a UUID. */
function recordIdOf(id: string): string {
  if (!UUID_RE.test(id)) throw signatureNotFound();
  return id.toLowerCase();
}
