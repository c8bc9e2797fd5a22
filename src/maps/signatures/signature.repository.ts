import type { Db } from '../../db/db.js';
import { tsMicro } from '../../db/sql.js';
import { placeholders, setClause } from '../edit-support.js';
import type { SignatureDto } from './signatures.dto.js';
import { SIGNATURE_FIELDS, type SignatureField } from './signatures.rules.js';

const DTO_COLUMNS = `sg.id, sg.solar_system_id, sg.eve_id as signature_id, sg.name, sg.kind, sg.group_name as "group", sg.type,
  sg.description, sg.character_eve_id, sg.linked_system_id, ${tsMicro('sg.inserted_at')} as inserted_at, ${tsMicro('sg.updated_at')} as updated_at`;

/** A map_signatures row as the batch compares it (API field names). */
export type SignatureRow = Pick<
  SignatureDto,
  'id' | 'signature_id' | 'name' | 'kind' | 'group' | 'type' | 'description' | 'linked_system_id' | 'character_eve_id'
>;

/** What linking a signature reads and changes. */
export interface SignatureLinkRow {
  id: string;
  solar_system_id: number;
  group: string | null;
  linked_system_id: number | null;
}

const ROW_COLUMNS = `id, eve_id as signature_id, name, kind, group_name as "group", type, description, linked_system_id, character_eve_id`;

/** Column of each signature field. */
const COLUMN: Record<SignatureField, string> = {
  name: 'name',
  kind: 'kind',
  group: 'group_name',
  type: 'type',
  description: 'description',
  linked_system_id: 'linked_system_id',
};

/** The map_signatures table: its one writer and its reads. */
export class SignatureRepository {
  /**
   * Signatures of the map's visible systems, by system then signature id; `solarSystemId` keeps one
   * system's.
   */
  async listVisible(db: Db, mapId: string, solarSystemId?: number): Promise<SignatureDto[]> {
    return db.all<SignatureDto>(
      `select ${DTO_COLUMNS} from map_signatures sg
       join map_systems s on s.id = sg.system_id and s.visible
       where sg.map_id = ? ${solarSystemId !== undefined ? 'and sg.solar_system_id = ?' : ''}
       order by sg.solar_system_id, sg.eve_id`,
      solarSystemId !== undefined ? [mapId, solarSystemId] : [mapId],
    );
  }

  /** Every signature of one map system (by its record id), by signature id. */
  async ofSystem(db: Db, systemId: string): Promise<SignatureDto[]> {
    return db.all<SignatureDto>(`select ${DTO_COLUMNS} from map_signatures sg where sg.system_id = ? order by sg.eve_id`, [systemId]);
  }

  async rowsOfSystem(db: Db, systemId: string): Promise<SignatureRow[]> {
    return db.all<SignatureRow>(`select ${ROW_COLUMNS} from map_signatures where system_id = ?`, [systemId]);
  }

  async insert(
    db: Db,
    s: { mapId: string; systemId: string; solarSystemId: number; signatureId: string; actorEveId: string | null },
    values: Record<SignatureField, unknown>,
  ): Promise<void> {
    await db.run(
      `insert into map_signatures (map_id, system_id, solar_system_id, eve_id, ${SIGNATURE_FIELDS.map((f) => COLUMN[f]).join(', ')}, character_eve_id)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [s.mapId, s.systemId, s.solarSystemId, s.signatureId, ...SIGNATURE_FIELDS.map((f) => values[f]), s.actorEveId],
    );
  }

  /** Sets the given fields and attributes the change to `actorEveId`. */
  async update(db: Db, id: string, values: Partial<Record<SignatureField, unknown>>, actorEveId: string | null): Promise<void> {
    const fields = Object.keys(values) as SignatureField[];
    await db.run(`update map_signatures set ${setClause(fields.map((f) => COLUMN[f]))}, character_eve_id = ?, updated_at = now() where id = ?`, [
      ...fields.map((f) => values[f]),
      actorEveId,
      id,
    ]);
  }

  /** A signature of a visible system of the map, by its record id; the link fields as stored. */
  async onVisibleSystem(db: Db, mapId: string, id: string): Promise<SignatureLinkRow | undefined> {
    return db.one<SignatureLinkRow>(
      `select sg.id, sg.solar_system_id, sg.group_name as "group", sg.linked_system_id from map_signatures sg
       join map_systems s on s.id = sg.system_id and s.visible
       where sg.map_id = ? and sg.id = ?`,
      [mapId, id],
    );
  }

  /** One signature by its record id. */
  async dto(db: Db, id: string): Promise<SignatureDto> {
    return (await db.one<SignatureDto>(`select ${DTO_COLUMNS} from map_signatures sg where sg.id = ?`, [id]))!;
  }

  /** Deletes the system's signatures with these ids; the number deleted. */
  async delete(db: Db, systemId: string, signatureIds: readonly string[]): Promise<number> {
    if (signatureIds.length === 0) return 0;
    return db.run(`delete from map_signatures where system_id = ? and eve_id in (${placeholders(signatureIds.length)})`, [systemId, ...signatureIds]);
  }

  /** Copies every signature of `from` onto the same systems of the map `to` (whose systems are already copied). */
  async copyMap(db: Db, from: string, to: string): Promise<number> {
    return db.run(
      `insert into map_signatures (map_id, system_id, solar_system_id, eve_id, name, kind, group_name, type, description, character_eve_id, linked_system_id)
       select ?, ns.id, sg.solar_system_id, sg.eve_id, sg.name, sg.kind, sg.group_name, sg.type, sg.description, sg.character_eve_id, sg.linked_system_id
       from map_signatures sg join map_systems ns on ns.map_id = ? and ns.solar_system_id = sg.solar_system_id
       where sg.map_id = ? order by sg.inserted_at, sg.id`,
      [to, to, from],
    );
  }
}
