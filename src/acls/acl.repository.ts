import type { Db } from '../db/db.js';
import { tsMicro } from '../db/sql.js';
import type { AclMemberDto } from './acl.dto.js';
import type { MemberIds, MemberType } from './acl.rules.js';

export interface MemberRow extends MemberIds {
  id: string;
  name: string;
  role: string;
  inserted_at: string;
  updated_at: string;
}

export interface AclRow {
  id: string;
  name: string;
  description: string | null;
  owner_id: string;
  api_key_encrypted: string;
  inserted_at: string;
  updated_at: string;
}

const MEMBER_COLUMNS = `m.id, m.name, m.role, m.eve_character_id, m.eve_corporation_id, m.eve_alliance_id,
  ${tsMicro('m.inserted_at')} as inserted_at, ${tsMicro('m.updated_at')} as updated_at`;

/** Member response: only the one external id that is set is present (spec 2.10). */
export function toMemberDto(r: MemberRow): AclMemberDto {
  const dto: AclMemberDto = { id: r.id, name: r.name, role: r.role, inserted_at: r.inserted_at, updated_at: r.updated_at };
  if (r.eve_character_id !== null) dto.eve_character_id = r.eve_character_id;
  if (r.eve_corporation_id !== null) dto.eve_corporation_id = r.eve_corporation_id;
  if (r.eve_alliance_id !== null) dto.eve_alliance_id = r.eve_alliance_id;
  return dto;
}

/** The acls and map_acls tables. */
export class AclRepository {
  async insert(db: Db, a: { name: string; description: string | null; ownerId: string; keyEncrypted: string; keyHash: string }): Promise<string> {
    return (await db.one<{ id: string }>(
      'insert into acls (name, description, owner_id, api_key_encrypted, api_key_hash) values (?, ?, ?, ?, ?) returning id',
      [a.name, a.description, a.ownerId, a.keyEncrypted, a.keyHash],
    ))!.id;
  }

  async byId(db: Db, id: string): Promise<AclRow | undefined> {
    return db.one<AclRow>(
      `select a.id, a.name, a.description, a.owner_id, a.api_key_encrypted,
              ${tsMicro('a.inserted_at')} as inserted_at, ${tsMicro('a.updated_at')} as updated_at
       from acls a where a.id = ?`,
      [id],
    );
  }

  async update(db: Db, id: string, fields: { name?: string; description?: string | null }): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [];
    if (fields.name !== undefined) {
      sets.push('name = ?');
      params.push(fields.name);
    }
    if (fields.description !== undefined) {
      sets.push('description = ?');
      params.push(fields.description);
    }
    if (sets.length) await db.run(`update acls set ${sets.join(', ')}, updated_at = now() where id = ?`, [...params, id]);
  }

  async linkMap(db: Db, mapId: string, aclId: string): Promise<void> {
    await db.run('insert into map_acls (map_id, acl_id) values (?, ?)', [mapId, aclId]);
  }

  /** Maps the ACL is linked to, in id order. */
  async mapsOf(db: Db, aclId: string): Promise<string[]> {
    return (await db.all<{ map_id: string }>('select map_id from map_acls where acl_id = ? order by map_id', [aclId])).map((r) => r.map_id);
  }

  /** Links the map `to` to every ACL the map `from` is linked to. */
  async copyMapLinks(db: Db, from: string, to: string): Promise<number> {
    return db.run('insert into map_acls (map_id, acl_id) select ?, acl_id from map_acls where map_id = ? order by acl_id', [to, from]);
  }
}

/** The acl_members table. */
export class AclMemberRepository {
  async list(db: Db, aclId: string): Promise<MemberRow[]> {
    return db.all<MemberRow>(`select ${MEMBER_COLUMNS} from acl_members m where m.acl_id = ? order by m.inserted_at, m.id`, [aclId]);
  }

  /**
   * The kind of the ACL's member with this external id (character, corporation or alliance), if it
   * has one, after locking the ACL's row: member adds of one ACL run one at a time, so two adds of one
   * id as different kinds cannot both pass this check.
   */
  async kindOfIdLocked(db: Db, aclId: string, eveId: string): Promise<MemberType | undefined> {
    await db.one('select 1 as locked from acls where id = ? for update', [aclId]);
    const row = await db.one<{ kind: MemberType }>(
      `select case when eve_character_id = ? then 'character' when eve_corporation_id = ? then 'corporation' else 'alliance' end as kind
       from acl_members where acl_id = ? and (eve_character_id = ? or eve_corporation_id = ? or eve_alliance_id = ?)
       order by inserted_at limit 1`,
      [eveId, eveId, aclId, eveId, eveId, eveId],
    );
    return row?.kind;
  }

  /** Inserts the member; undefined when a concurrent insert of the same member won. */
  async insert(db: Db, aclId: string, m: { name: string; role: string; type: MemberType; eveId: string }): Promise<MemberRow | undefined> {
    return db.one<MemberRow>(
      `insert into acl_members as m (acl_id, name, role, eve_${m.type}_id) values (?, ?, ?, ?) on conflict do nothing returning ${MEMBER_COLUMNS}`,
      [aclId, m.name, m.role, m.eveId],
    );
  }

  /** The member with this external id (any of the three kinds), locked for the transaction. */
  async byExternalIdForUpdate(db: Db, aclId: string, externalId: string): Promise<MemberRow | undefined> {
    return db.one<MemberRow>(
      `select ${MEMBER_COLUMNS} from acl_members m
       where m.acl_id = ? and (m.eve_character_id = ? or m.eve_corporation_id = ? or m.eve_alliance_id = ?)
       order by m.inserted_at limit 1 for update`,
      [aclId, externalId, externalId, externalId],
    );
  }

  async setRole(db: Db, id: string, role: string): Promise<MemberRow> {
    return (await db.one<MemberRow>(`update acl_members as m set role = ?, updated_at = now() where id = ? returning ${MEMBER_COLUMNS}`, [role, id]))!;
  }

  async remove(db: Db, id: string): Promise<void> {
    await db.run('delete from acl_members where id = ?', [id]);
  }
}
