import type { EntityManager } from '@mikro-orm/postgresql';
import { generateToken, hashToken, type SecretBox } from '../crypto.js';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { tsMicro } from '../db/sql.js';
import type { Outbox } from '../events/outbox.js';
import type { AclMemberAddedEvent, AclMemberPayload, AclMemberRemovedEvent, AclMemberUpdatedEvent, OutboxEvent } from '../events/catalog.js';
import type {
  AclDto,
  AclMemberDto,
  CreateAclFields,
  CreateAclMemberFields,
  UpdateAclFields,
  UpdateAclMemberFields,
} from './acl.dto.js';

/** Member roles, most to least privileged. */
export const ACL_ROLES = ['admin', 'manager', 'member', 'viewer', 'blocked'] as const;

type AclMemberEventType = (AclMemberAddedEvent | AclMemberRemovedEvent | AclMemberUpdatedEvent)['type'];

type MemberType = 'character' | 'corporation' | 'alliance';

interface MemberRow {
  id: string;
  name: string;
  role: string;
  eve_character_id: string | null;
  eve_corporation_id: string | null;
  eve_alliance_id: string | null;
  inserted_at: string;
  updated_at: string;
}

const MEMBER_COLUMNS = `m.id, m.name, m.role, m.eve_character_id, m.eve_corporation_id, m.eve_alliance_id,
  ${tsMicro('m.inserted_at')} as inserted_at, ${tsMicro('m.updated_at')} as updated_at`;

/** Member response: only the one external id that is set is present (spec 2.10). */
function toMemberDto(r: MemberRow): AclMemberDto {
  const dto: AclMemberDto = { id: r.id, name: r.name, role: r.role, inserted_at: r.inserted_at, updated_at: r.updated_at };
  if (r.eve_character_id !== null) dto.eve_character_id = r.eve_character_id;
  if (r.eve_corporation_id !== null) dto.eve_corporation_id = r.eve_corporation_id;
  if (r.eve_alliance_id !== null) dto.eve_alliance_id = r.eve_alliance_id;
  return dto;
}

function memberType(r: MemberRow): { type: MemberType; eveId: string } {
  if (r.eve_character_id !== null) return { type: 'character', eveId: r.eve_character_id };
  if (r.eve_corporation_id !== null) return { type: 'corporation', eveId: r.eve_corporation_id };
  return { type: 'alliance', eveId: r.eve_alliance_id ?? '' };
}

function checkRole(role: string, type: MemberType): void {
  if (!(ACL_ROLES as readonly string[]).includes(role)) {
    throw new ValidationError([{ field: 'member.role', message: `must be one of ${ACL_ROLES.join(', ')}` }]);
  }
  if (type !== 'character' && (role === 'admin' || role === 'manager')) {
    throw new ValidationError([{ field: 'member.role', message: `a ${type} member cannot be ${role}` }]);
  }
}

/** ACLs, their keys (encrypted at rest, looked up by hash) and members; member changes emit events. */
export class AclService {
  constructor(
    private readonly box: SecretBox,
    private readonly outbox: Outbox,
  ) {}

  /** POST /api/map/acls: creates the ACL, links it to the map, returns it with its new api_key. */
  async create(em: EntityManager, mapId: string, fields: CreateAclFields): Promise<AclDto> {
    const name = fields.name.trim();
    if (!name) throw new ValidationError([{ field: 'acl.name', message: 'must not be blank' }]);
    return em.transactional(async (tx) => {
      const conn = tx.getConnection();
      const ctx = tx.getTransactionContext();
      const owners = await conn.execute<{ id: string }[]>('select id from characters where eve_id = ?', [fields.owner_eve_id], 'all', ctx);
      const owner = owners[0];
      if (!owner) {
        throw new BadRequestError('owner_not_found', 'Character not found: The provided owner_eve_id does not match any existing character', [
          { field: 'acl.owner_eve_id', message: 'no character has this eve_id' },
        ]);
      }
      const apiKey = generateToken('acl');
      const rows = await conn.execute<{ id: string }[]>(
        'insert into acls (name, description, owner_id, api_key_encrypted, api_key_hash) values (?, ?, ?, ?, ?) returning id',
        [name, fields.description ?? null, owner.id, this.box.encrypt(apiKey), hashToken(apiKey)],
        'all',
        ctx,
      );
      const aclId = rows[0]!.id;
      await conn.execute('insert into map_acls (map_id, acl_id) values (?, ?)', [mapId, aclId], 'run', ctx);
      return this.load(tx, aclId);
    });
  }

  /** The ACL with members; 404 `ACL not found` when it is not the key's ACL. */
  async get(em: EntityManager, principalAclId: string, aclId: string): Promise<AclDto> {
    if (principalAclId !== aclId) throw new NotFoundError('ACL not found', 'acl_not_found');
    return this.load(em, aclId);
  }

  async update(em: EntityManager, principalAclId: string, aclId: string, fields: UpdateAclFields): Promise<AclDto> {
    if (principalAclId !== aclId) throw new NotFoundError('ACL not found', 'acl_not_found');
    const sets: string[] = [];
    const params: unknown[] = [];
    if (fields.name !== undefined) {
      const name = fields.name.trim();
      if (!name) throw new ValidationError([{ field: 'acl.name', message: 'must not be blank' }]);
      sets.push('name = ?');
      params.push(name);
    }
    if (fields.description !== undefined) {
      sets.push('description = ?');
      params.push(fields.description);
    }
    if (sets.length) {
      await em.getConnection().execute(`update acls set ${sets.join(', ')}, updated_at = now() where id = ?`, [...params, aclId], 'run');
    }
    return this.load(em, aclId);
  }

  async addMember(em: EntityManager, principalAclId: string, aclId: string, fields: CreateAclMemberFields): Promise<AclMemberDto> {
    if (principalAclId !== aclId) throw new NotFoundError('ACL not found', 'acl_not_found');
    const ids = (
      [
        ['character', fields.eve_character_id],
        ['corporation', fields.eve_corporation_id],
        ['alliance', fields.eve_alliance_id],
      ] as const
    ).filter(([, v]) => v !== undefined && v !== null);
    if (ids.length !== 1) {
      throw new ValidationError([
        { field: 'member', message: 'exactly one of eve_character_id, eve_corporation_id, eve_alliance_id is required' },
      ]);
    }
    const [type, eveId] = ids[0] as [MemberType, string];
    checkRole(fields.role, type);
    return em.transactional(async (tx) => {
      const conn = tx.getConnection();
      const ctx = tx.getTransactionContext();
      const column = `eve_${type}_id`;
      const existing = await conn.execute<{ id: string }[]>(`select id from acl_members where acl_id = ? and ${column} = ?`, [aclId, eveId], 'all', ctx);
      if (existing.length) throw new ConflictError('member_exists', 'This ACL already has a member with that id');
      const name = fields.name?.trim() || (await this.displayName(tx, type, eveId));
      const rows = await conn.execute<MemberRow[]>(
        `insert into acl_members as m (acl_id, name, role, ${column}) values (?, ?, ?, ?) on conflict do nothing returning ${MEMBER_COLUMNS}`,
        [aclId, name, fields.role, eveId],
        'all',
        ctx,
      );
      // A concurrent add of the same member won the race: same answer as the check above.
      const member = rows[0];
      if (!member) throw new ConflictError('member_exists', 'This ACL already has a member with that id');
      await this.emit(tx, aclId, 'acl_member_added', member);
      return toMemberDto(member);
    });
  }

  async updateMember(em: EntityManager, principalAclId: string, aclId: string, externalId: string, fields: UpdateAclMemberFields): Promise<AclMemberDto> {
    if (principalAclId !== aclId) throw new NotFoundError('ACL not found', 'acl_not_found');
    return em.transactional(async (tx) => {
      const member = await this.findMember(tx, aclId, externalId);
      checkRole(fields.role, memberType(member).type);
      const rows = await tx
        .getConnection()
        .execute<MemberRow[]>(
          `update acl_members as m set role = ?, updated_at = now() where id = ? returning ${MEMBER_COLUMNS}`,
          [fields.role, member.id],
          'all',
          tx.getTransactionContext(),
        );
      const updated = rows[0]!;
      await this.emit(tx, aclId, 'acl_member_updated', updated);
      return toMemberDto(updated);
    });
  }

  async removeMember(em: EntityManager, principalAclId: string, aclId: string, externalId: string): Promise<void> {
    if (principalAclId !== aclId) throw new NotFoundError('ACL not found', 'acl_not_found');
    await em.transactional(async (tx) => {
      const member = await this.findMember(tx, aclId, externalId);
      await tx.getConnection().execute('delete from acl_members where id = ?', [member.id], 'run', tx.getTransactionContext());
      await this.emit(tx, aclId, 'acl_member_removed', member);
    });
  }

  private async findMember(tx: EntityManager, aclId: string, externalId: string): Promise<MemberRow> {
    const rows = await tx.getConnection().execute<MemberRow[]>(
      `select ${MEMBER_COLUMNS} from acl_members m
       where m.acl_id = ? and (m.eve_character_id = ? or m.eve_corporation_id = ? or m.eve_alliance_id = ?)
       order by m.inserted_at limit 1 for update`,
      [aclId, externalId, externalId, externalId],
      'all',
      tx.getTransactionContext(),
    );
    const row = rows[0];
    if (!row) throw new NotFoundError('Membership not found for given ACL and external id', 'member_not_found');
    return row;
  }

  /** acl_member_* events go to every map linked to the ACL (decisions §5). */
  private async emit(tx: EntityManager, aclId: string, type: AclMemberEventType, member: MemberRow): Promise<void> {
    const maps = await tx
      .getConnection()
      .execute<{ map_id: string }[]>('select map_id from map_acls where acl_id = ? order by map_id', [aclId], 'all', tx.getTransactionContext());
    const { type: member_type, eveId } = memberType(member);
    const payload: AclMemberPayload = { acl_id: aclId, member_id: member.id, member_name: member.name, member_type, eve_id: eveId, role: member.role };
    await this.outbox.append(
      tx,
      // One payload, three event types: the union is spelled out by the cast, the payload is checked above.
      maps.map((m) => ({ mapId: m.map_id, type, payload }) as OutboxEvent),
    );
  }

  private async displayName(tx: EntityManager, type: MemberType, eveId: string): Promise<string> {
    const column = { character: 'eve_id', corporation: 'corporation_id', alliance: 'alliance_id' }[type];
    const label = { character: 'name', corporation: 'corporation_ticker', alliance: 'alliance_ticker' }[type];
    const rows = await tx
      .getConnection()
      .execute<{ label: string | null }[]>(`select ${label} as label from characters where ${column} = ? limit 1`, [eveId], 'all', tx.getTransactionContext());
    return rows[0]?.label ?? eveId;
  }

  private async load(em: EntityManager, aclId: string): Promise<AclDto> {
    const conn = em.getConnection();
    const ctx = em.getTransactionContext();
    const rows = await conn.execute<{
      id: string;
      name: string;
      description: string | null;
      owner_id: string;
      api_key_encrypted: string;
      inserted_at: string;
      updated_at: string;
    }[]>(
      `select a.id, a.name, a.description, a.owner_id, a.api_key_encrypted,
              ${tsMicro('a.inserted_at')} as inserted_at, ${tsMicro('a.updated_at')} as updated_at
       from acls a where a.id = ?`,
      [aclId],
      'all',
      ctx,
    );
    const acl = rows[0];
    if (!acl) throw new NotFoundError('ACL not found', 'acl_not_found');
    const members = await conn.execute<MemberRow[]>(
      `select ${MEMBER_COLUMNS} from acl_members m where m.acl_id = ? order by m.inserted_at, m.id`,
      [aclId],
      'all',
      ctx,
    );
    return {
      id: acl.id,
      name: acl.name,
      description: acl.description,
      owner_id: acl.owner_id,
      api_key: this.box.decrypt(acl.api_key_encrypted),
      inserted_at: acl.inserted_at,
      updated_at: acl.updated_at,
      members: members.map(toMemberDto),
    };
  }
}
