import type { Db } from '../../db/db.js';
import type { Outbox, OutboxEvent } from '../../events/outbox.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { NotFoundError } from '../../common/errors.js';
import { MapAccess, type MapReference } from '../map-access.js';
import { MapRefRepository } from '../map.repository.js';
import { signatureAddedEvent, signatureRemovedEvent, signaturesUpdatedEvent } from '../event-payloads.js';
import { actorEveId, systemNotFound } from '../edit-support.js';
import { SystemRepository } from '../systems/system.repository.js';
import type { SignatureDto, SignatureInput, SignaturesUpdatedDto, UpsertSignaturesRequest } from './signatures.dto.js';
import { changedSignatureFields, linkedSystems, normaliseBatch, SIGNATURE_FIELDS, signatureIdOf } from './signatures.rules.js';
import { SignatureRepository } from './signature.repository.js';

/**
 * Cosmic signatures of map systems. A batch is one transaction: signature_added for each new
 * signature, signature_removed for each one removed by `replace`, then one signatures_updated with
 * the counts (none when the batch changed nothing).
 */
export class SignaturesService {
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

  /** Signatures of the map's visible systems, by system then signature id; `solarSystemId` keeps one system's. */
  async list(principal: MapKeyPrincipal, ref: MapReference, solarSystemId?: number): Promise<SignatureDto[]> {
    const map = await this.access.resolve(principal, ref);
    return this.signatures.listVisible(this.db, map.id, solarSystemId);
  }

  async upsert(principal: MapKeyPrincipal, ref: MapReference, solarSystemId: number, req: UpsertSignaturesRequest): Promise<SignaturesUpdatedDto> {
    const map = await this.access.resolve(principal, ref);
    const inputs = normaliseBatch(req.signatures);
    return this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const systemId = await this.visibleSystemId(tx, map.id, solarSystemId);
      await this.checkLinked(tx, map.id, inputs);
      const actor = await actorEveId(tx, principal.characterId);
      const existing = await this.signatures.rowsOfSystem(tx, systemId);
      const byId = new Map(existing.map((r) => [r.signature_id, r]));
      const events: OutboxEvent[] = [];
      let added = 0;
      let updated = 0;

      for (const input of inputs) {
        const row = byId.get(input.signature_id);
        if (!row) {
          const values = Object.fromEntries(SIGNATURE_FIELDS.map((f) => [f, input[f] ?? null])) as Record<(typeof SIGNATURE_FIELDS)[number], unknown>;
          await this.signatures.insert(tx, { mapId: map.id, systemId, solarSystemId, signatureId: input.signature_id, actorEveId: actor }, values);
          added++;
          events.push(
            signatureAddedEvent(map.id, {
              solar_system_id: solarSystemId,
              signature_id: input.signature_id,
              name: input.name ?? null,
              kind: input.kind ?? null,
              group: input.group ?? null,
              type: input.type ?? null,
              character_eve_id: actor,
            }),
          );
        } else {
          const changed = changedSignatureFields(input, row);
          if (!Object.keys(changed).length) continue;
          await this.signatures.update(tx, row.id, changed, actor);
          updated++;
        }
      }

      let removed: string[] = [];
      if (req.replace) {
        const listed = new Set(inputs.map((s) => s.signature_id));
        removed = existing
          .map((r) => r.signature_id)
          .filter((id) => !listed.has(id))
          .sort();
        await this.signatures.delete(tx, systemId, removed);
        events.push(...removed.map((id) => signatureRemovedEvent(map.id, solarSystemId, id)));
      }
      if (added + updated + removed.length > 0) {
        events.push(signaturesUpdatedEvent(map.id, solarSystemId, { added, updated, removed: removed.length }));
      }
      await this.outbox.append(tx.em, events);
      const signatures = await this.signatures.ofSystem(tx, systemId);
      return { solar_system_id: solarSystemId, added_count: added, updated_count: updated, removed_count: removed.length, signatures };
    });
  }

  /** Removes one signature; event signature_removed. The id is matched case-insensitively. */
  async remove(principal: MapKeyPrincipal, ref: MapReference, solarSystemId: number, signatureId: string): Promise<void> {
    const map = await this.access.resolve(principal, ref);
    const id = signatureIdOf(signatureId);
    await this.db.transaction(async (tx) => {
      await this.maps.lock(tx, map.id);
      const systemId = await this.visibleSystemId(tx, map.id, solarSystemId);
      if ((await this.signatures.delete(tx, systemId, [id])) === 0) throw new NotFoundError('Signature not found', 'signature_not_found');
      await this.outbox.append(tx.em, [signatureRemovedEvent(map.id, solarSystemId, id)]);
    });
  }

  private async visibleSystemId(tx: Db, mapId: string, solarSystemId: number): Promise<string> {
    const row = await this.systems.visible(tx, mapId, solarSystemId);
    if (!row) throw systemNotFound();
    return row.id;
  }

  /** A `linked_system_id` must name a visible system of the map. */
  private async checkLinked(tx: Db, mapId: string, inputs: SignatureInput[]): Promise<void> {
    const onMap = await this.systems.visibleAmong(tx, mapId, linkedSystems(inputs));
    const missing = inputs.flatMap((s, i) =>
      typeof s.linked_system_id === 'number' && !onMap.has(s.linked_system_id)
        ? [{ field: `signatures[${i}].linked_system_id`, message: `${s.linked_system_id} is not a system on this map` }]
        : [],
    );
    if (missing.length) throw systemNotFound(missing);
  }
}
