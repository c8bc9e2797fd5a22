import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError, ValidationError, type ErrorDetail } from '../errors.js';
import type { Outbox, OutboxEvent } from '../events/outbox.js';
import { SIGNATURE_COLUMNS } from './map-data.service.js';
import type { SignatureDto, SignatureInput, SignaturesUpdatedDto, UpsertSignaturesRequest } from './map-edit.dto.js';
import { signatureAddedEvent, signatureRemovedEvent, signaturesUpdatedEvent } from './event-payloads.js';
import { actorEveId, lockMap, placeholders, queryIn, systemNotFound, type Query } from './edit-support.js';

export const SIGNATURE_ID_RE = /^[A-Za-z]{3}-[0-9]{3}$/;

/** Signature fields a batch may set, as API names → columns. */
const FIELDS = [
  ['name', 'name'],
  ['kind', 'kind'],
  ['group', 'group_name'],
  ['type', 'type'],
  ['description', 'description'],
  ['linked_system_id', 'linked_system_id'],
] as const;
type Field = (typeof FIELDS)[number][0];

interface SignatureRow {
  id: string;
  signature_id: string;
  name: string | null;
  kind: string | null;
  group: string | null;
  type: string | null;
  description: string | null;
  linked_system_id: number | null;
  character_eve_id: string | null;
}

const ROW = `id, eve_id as signature_id, name, kind, group_name as "group", type, description, linked_system_id, character_eve_id`;

async function visibleSystemId(q: Query, mapId: string, solarSystemId: number): Promise<string> {
  const rows = await q<{ id: string }>('select id from map_systems where map_id = ? and solar_system_id = ? and visible', [mapId, solarSystemId]);
  if (!rows[0]) throw systemNotFound();
  return rows[0].id;
}

/**
 * Cosmic signatures of map systems. A batch is one transaction: signature_added for each new
 * signature, signature_removed for each one removed by `replace`, then one signatures_updated with
 * the counts (none when the batch changed nothing).
 */
export class SignatureService {
  constructor(private readonly outbox: Outbox) {}

  async upsert(em: EntityManager, mapId: string, solarSystemId: number, actorCharacterId: string, req: UpsertSignaturesRequest): Promise<SignaturesUpdatedDto> {
    const inputs = req.signatures.map((s) => ({ ...s, signature_id: s.signature_id.toUpperCase() }));
    const problems: ErrorDetail[] = [];
    const seen = new Set<string>();
    inputs.forEach((s, i) => {
      if (seen.has(s.signature_id)) problems.push({ field: `signatures[${i}].signature_id`, message: `${s.signature_id} is listed more than once` });
      seen.add(s.signature_id);
    });
    if (problems.length) throw new ValidationError(problems);

    return em.transactional(async (tx) => {
      const q = queryIn(tx);
      await lockMap(q, mapId);
      const systemId = await visibleSystemId(q, mapId, solarSystemId);
      await this.checkLinked(q, mapId, inputs);
      const actor = await actorEveId(q, actorCharacterId);
      const existing = await q<SignatureRow>(`select ${ROW} from map_signatures where system_id = ?`, [systemId]);
      const byId = new Map(existing.map((r) => [r.signature_id, r]));
      const events: OutboxEvent[] = [];
      let added = 0;
      let updated = 0;

      for (const input of inputs) {
        const row = byId.get(input.signature_id);
        if (!row) {
          const value = (f: Field) => input[f] ?? null;
          await q(
            `insert into map_signatures (map_id, system_id, solar_system_id, eve_id, name, kind, group_name, type, description, linked_system_id, character_eve_id)
             values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            [mapId, systemId, solarSystemId, input.signature_id, ...FIELDS.map(([f]) => value(f)), actor],
          );
          added++;
          events.push(
            signatureAddedEvent(mapId, {
              solar_system_id: solarSystemId,
              signature_id: input.signature_id,
              name: value('name') as string | null,
              kind: value('kind') as string | null,
              group: value('group') as string | null,
              type: value('type') as string | null,
              character_eve_id: actor,
            }),
          );
        } else {
          const changed = FIELDS.filter(([f]) => input[f] !== undefined && input[f] !== row[f]);
          if (!changed.length) continue;
          await q(`update map_signatures set ${changed.map(([, col]) => `${col} = ?`).join(', ')}, character_eve_id = ?, updated_at = now() where id = ?`, [
            ...changed.map(([f]) => input[f]),
            actor,
            row.id,
          ]);
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
        if (removed.length) await q(`delete from map_signatures where system_id = ? and eve_id in (${placeholders(removed.length)})`, [systemId, ...removed]);
        events.push(...removed.map((id) => signatureRemovedEvent(mapId, solarSystemId, id)));
      }
      if (added + updated + removed.length > 0) {
        events.push(signaturesUpdatedEvent(mapId, solarSystemId, { added, updated, removed: removed.length }));
      }
      await this.outbox.append(tx, events);
      const signatures = await q<SignatureDto>(`select ${SIGNATURE_COLUMNS} from map_signatures sg where sg.system_id = ? order by sg.eve_id`, [systemId]);
      return { solar_system_id: solarSystemId, added_count: added, updated_count: updated, removed_count: removed.length, signatures };
    });
  }

  /** Removes one signature; event signature_removed. The id is matched case-insensitively. */
  async remove(em: EntityManager, mapId: string, solarSystemId: number, signatureId: string): Promise<void> {
    if (!SIGNATURE_ID_RE.test(signatureId)) throw new NotFoundError('Signature not found', 'signature_not_found');
    const id = signatureId.toUpperCase();
    await em.transactional(async (tx) => {
      const q = queryIn(tx);
      await lockMap(q, mapId);
      const systemId = await visibleSystemId(q, mapId, solarSystemId);
      const rows = await q('delete from map_signatures where system_id = ? and eve_id = ? returning id', [systemId, id]);
      if (!rows.length) throw new NotFoundError('Signature not found', 'signature_not_found');
      await this.outbox.append(tx, [signatureRemovedEvent(mapId, solarSystemId, id)]);
    });
  }

  /** A `linked_system_id` must name a visible system of the map. */
  private async checkLinked(q: Query, mapId: string, inputs: SignatureInput[]): Promise<void> {
    const linked = [...new Set(inputs.flatMap((s) => (typeof s.linked_system_id === 'number' ? [s.linked_system_id] : [])))];
    if (!linked.length) return;
    const rows = await q<{ solar_system_id: number }>(
      `select solar_system_id from map_systems where map_id = ? and visible and solar_system_id in (${placeholders(linked.length)})`,
      [mapId, ...linked],
    );
    const onMap = new Set(rows.map((r) => r.solar_system_id));
    const missing = inputs.flatMap((s, i) =>
      typeof s.linked_system_id === 'number' && !onMap.has(s.linked_system_id)
        ? [{ field: `signatures[${i}].linked_system_id`, message: `${s.linked_system_id} is not a system on this map` }]
        : [],
    );
    if (missing.length) throw systemNotFound(missing);
  }
}
