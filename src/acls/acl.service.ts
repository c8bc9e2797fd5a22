import { generateToken, hashToken, type SecretBox } from '../common/crypto.js';
import { BadRequestError, ConflictError, NotFoundError } from '../common/errors.js';
import type { Db } from '../db/db.js';
import type { Outbox } from '../events/outbox.js';
import type { AclMemberAddedEvent, AclMemberPayload, AclMemberRemovedEvent, AclMemberUpdatedEvent, OutboxEvent } from '../events/catalog.js';
import type { AclKeyPrincipal, MapKeyPrincipal } from '../http/principal.js';
import { MapAccess, type MapSelector } from '../maps/map-access.js';
import { CharacterRepository } from '../characters/character.repository.js';
import type { AclDto, AclMemberDto, CreateAclFields, CreateAclMemberFields, UpdateAclFields, UpdateAclMemberFields } from './acl.dto.js';
import { AclMemberRepository, AclRepository, toMemberDto, type MemberRow } from './acl.repository.js';
import { aclName, checkRole, memberType, newMemberId } from './acl.rules.js';

export { ACL_ROLES } from './acl.rules.js';

type AclMemberEventType = (AclMemberAddedEvent | AclMemberRemovedEvent | AclMemberUpdatedEvent)['type'];

export interface AclRepositories {
  acls: AclRepository;
  members: AclMemberRepository;
  characters: CharacterRepository;
}

export function aclRepositories(): AclRepositories {
  return { acls: new AclRepository(), members: new AclMemberRepository(), characters: new CharacterRepository() };
}

/**
 * ACLs, their keys (encrypted at rest, looked up by hash) and members; member changes emit events to
 * every map linked to the ACL. An ACL key reaches only its own ACL: any other id is 404, as if it
 * did not exist.
 */
export class AclService {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly outbox: Pick<Outbox, 'append'>,
    private readonly repos: AclRepositories = aclRepositories(),
    private readonly access = new MapAccess(db),
  ) {}

  /** POST /api/map/acls: the map key's map (by selector) gets a new ACL. */
  async createForMap(principal: MapKeyPrincipal, selector: MapSelector, fields: CreateAclFields): Promise<AclDto> {
    const map = await this.access.bySelector(principal, selector);
    return this.create(map.id, fields);
  }

  /** Creates the ACL, links it to the map, returns it with its new api_key. */
  async create(mapId: string, fields: CreateAclFields): Promise<AclDto> {
    const name = aclName(fields.name);
    return this.db.transaction(async (tx) => {
      const owner = await this.repos.characters.byEveId(tx, fields.owner_eve_id);
      if (!owner) {
        throw new BadRequestError('owner_not_found', 'Character not found: The provided owner_eve_id does not match any existing character', [
          { field: 'acl.owner_eve_id', message: 'no character has this eve_id' },
        ]);
      }
      const apiKey = generateToken('acl');
      const aclId = await this.repos.acls.insert(tx, {
        name,
        description: fields.description ?? null,
        ownerId: owner.id,
        keyEncrypted: this.box.encrypt(apiKey),
        keyHash: hashToken(apiKey),
      });
      await this.repos.acls.linkMap(tx, mapId, aclId);
      return this.load(tx, aclId);
    });
  }

  /** The ACL with members. */
  async get(principal: AclKeyPrincipal, aclId: string): Promise<AclDto> {
    return this.load(this.db, this.ownAcl(principal, aclId));
  }

  async update(principal: AclKeyPrincipal, aclId: string, fields: UpdateAclFields): Promise<AclDto> {
    const id = this.ownAcl(principal, aclId);
    await this.repos.acls.update(this.db, id, {
      ...(fields.name !== undefined ? { name: aclName(fields.name) } : {}),
      ...(fields.description !== undefined ? { description: fields.description } : {}),
    });
    return this.load(this.db, id);
  }

  async addMember(principal: AclKeyPrincipal, aclId: string, fields: CreateAclMemberFields): Promise<AclMemberDto> {
    const id = this.ownAcl(principal, aclId);
    const { type, eveId } = newMemberId(fields);
    checkRole(fields.role, type);
    return this.db.transaction(async (tx) => {
      // A member id names one member: the same id as a second kind would leave the member paths
      // (`…/members/{member_id}`) acting on whichever came first.
      const existing = await this.repos.members.kindOfIdLocked(tx, id, eveId);
      if (existing === type) throw new ConflictError('member_exists', 'This ACL already has a member with that id');
      if (existing) {
        throw new ConflictError(
          'member_id_taken',
          `This ACL already has a ${existing} member with id ${eveId}; an id names one member of an ACL, so it cannot be added again as a ${type}`,
        );
      }
      const name = fields.name?.trim() || ((await this.repos.characters.labelFor(tx, type, eveId)) ?? eveId);
      const member = await this.repos.members.insert(tx, id, { name, role: fields.role, type, eveId });
      // A concurrent add of the same member won the race: same answer as the check above.
      if (!member) throw new ConflictError('member_exists', 'This ACL already has a member with that id');
      await this.emit(tx, id, 'acl_member_added', member);
      return toMemberDto(member);
    });
  }

  async updateMember(principal: AclKeyPrincipal, aclId: string, externalId: string, fields: UpdateAclMemberFields): Promise<AclMemberDto> {
    const id = this.ownAcl(principal, aclId);
    return this.db.transaction(async (tx) => {
      const member = await this.findMember(tx, id, externalId);
      checkRole(fields.role, memberType(member).type);
      const updated = await this.repos.members.setRole(tx, member.id, fields.role);
      await this.emit(tx, id, 'acl_member_updated', updated);
      return toMemberDto(updated);
    });
  }

  async removeMember(principal: AclKeyPrincipal, aclId: string, externalId: string): Promise<void> {
    const id = this.ownAcl(principal, aclId);
    await this.db.transaction(async (tx) => {
      const member = await this.findMember(tx, id, externalId);
      await this.repos.members.remove(tx, member.id);
      await this.emit(tx, id, 'acl_member_removed', member);
    });
  }

  /** The access rule: an ACL key reaches its own ACL only. */
  private ownAcl(principal: AclKeyPrincipal, aclId: string): string {
    if (principal.aclId !== aclId) throw new NotFoundError('ACL not found', 'acl_not_found');
    return aclId;
  }

  private async findMember(tx: Db, aclId: string, externalId: string): Promise<MemberRow> {
    const row = await this.repos.members.byExternalIdForUpdate(tx, aclId, externalId);
    if (!row) throw new NotFoundError('Membership not found for given ACL and external id', 'member_not_found');
    return row;
  }

  /** acl_member_* events go to every map linked to the ACL (decisions §5). */
  private async emit(tx: Db, aclId: string, type: AclMemberEventType, member: MemberRow): Promise<void> {
    const maps = await this.repos.acls.mapsOf(tx, aclId);
    const { type: member_type, eveId } = memberType(member);
    const payload: AclMemberPayload = { acl_id: aclId, member_id: member.id, member_name: member.name, member_type, eve_id: eveId, role: member.role };
    // One payload, three event types: the union is spelled out by the cast, the payload is checked above.
    await this.outbox.append(
      tx.em,
      maps.map((mapId) => ({ mapId, type, payload }) as OutboxEvent),
    );
  }

  private async load(db: Db, aclId: string): Promise<AclDto> {
    const acl = await this.repos.acls.byId(db, aclId);
    if (!acl) throw new NotFoundError('ACL not found', 'acl_not_found');
    const members = await this.repos.members.list(db, aclId);
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
