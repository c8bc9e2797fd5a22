/**
 * AclService over in-memory fakes of its repositories, the Db handle and the outbox: the access rule,
 * duplicate members, display names and the events a member change emits to every linked map.
 */
import { describe, expect, it } from 'vitest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AclService, type AclRepositories } from '../../src/acls/acl.service.js';
import type { AclRow, MemberRow } from '../../src/acls/acl.repository.js';
import type { AclMemberRepository, AclRepository } from '../../src/acls/acl.repository.js';
import type { CharacterRepository, StoredCharacter } from '../../src/characters/character.repository.js';
import type { Db } from '../../src/db/db.js';
import type { OutboxEvent } from '../../src/events/catalog.js';
import type { SecretBox } from '../../src/common/crypto.js';
import { AppError } from '../../src/common/errors.js';

/** A Db whose transactions just run their body (the fakes hold the state). */
const fakeDb: Db = {
  all: async () => [],
  one: async () => undefined,
  run: async () => 0,
  allBound: async () => [],
  runBound: async () => 0,
  transaction: async (fn) => fn(fakeDb),
  kysely: () => {
    throw new Error('not used by the ACL service');
  },
  inTransaction: true,
  em: {} as EntityManager,
};

const box = { encrypt: (s: string) => `enc(${s})`, decrypt: (s: string) => s.replace(/^enc\((.*)\)$/, '$1') } as unknown as SecretBox;

function world() {
  const acls = new Map<string, AclRow>();
  const links: [string, string][] = [];
  const members: (MemberRow & { acl_id: string })[] = [];
  const events: OutboxEvent[] = [];
  const characters: StoredCharacter[] = [
    {
      id: 'c1',
      user_id: null,
      character: { eve_id: '2117000001', name: 'Ava Scout', corporation_id: '98000001', corporation_ticker: 'MAPIN', alliance_id: null, alliance_ticker: null },
    },
  ];
  let seq = 0;
  const now = '2026-11-23T10:00:00.000000Z';
  const repos: AclRepositories = {
    acls: {
      insert: async (_db, a) => {
        const id = `acl-${++seq}`;
        acls.set(id, {
          id,
          name: a.name,
          description: a.description,
          owner_id: a.ownerId,
          api_key_encrypted: a.keyEncrypted,
          inserted_at: now,
          updated_at: now,
        });
        return id;
      },
      byId: async (_db, id) => acls.get(id),
      update: async (_db, id, f) => {
        const a = acls.get(id)!;
        acls.set(id, { ...a, ...(f.name !== undefined ? { name: f.name } : {}), ...(f.description !== undefined ? { description: f.description } : {}) });
      },
      linkMap: async (_db, mapId, aclId) => void links.push([mapId, aclId]),
      mapsOf: async (_db, aclId) =>
        links
          .filter(([, a]) => a === aclId)
          .map(([m]) => m)
          .sort(),
    } as AclRepository,
    members: {
      list: async (_db, aclId) => members.filter((m) => m.acl_id === aclId),
      kindOfIdLocked: async (_db, aclId, eveId) => {
        const m = members.find((r) => r.acl_id === aclId && [r.eve_character_id, r.eve_corporation_id, r.eve_alliance_id].includes(eveId));
        return m ? (m.eve_character_id === eveId ? 'character' : m.eve_corporation_id === eveId ? 'corporation' : 'alliance') : undefined;
      },
      insert: async (_db, aclId, m) => {
        const row = {
          acl_id: aclId,
          id: `m-${++seq}`,
          name: m.name,
          role: m.role,
          eve_character_id: m.type === 'character' ? m.eveId : null,
          eve_corporation_id: m.type === 'corporation' ? m.eveId : null,
          eve_alliance_id: m.type === 'alliance' ? m.eveId : null,
          inserted_at: now,
          updated_at: now,
        };
        members.push(row);
        return row;
      },
      byExternalIdForUpdate: async (_db, aclId, ext) =>
        members.find((m) => m.acl_id === aclId && [m.eve_character_id, m.eve_corporation_id, m.eve_alliance_id].includes(ext)),
      setRole: async (_db, id, role) => {
        const m = members.find((x) => x.id === id)!;
        m.role = role;
        return m;
      },
      remove: async (_db, id) =>
        void members.splice(
          members.findIndex((m) => m.id === id),
          1,
        ),
    } as AclMemberRepository,
    characters: {
      byEveId: async (_db, eveId) => characters.find((c) => c.character.eve_id === eveId),
      labelFor: async (_db, type, eveId) =>
        characters.find(
          (c) => (type === 'character' ? c.character.eve_id : type === 'corporation' ? c.character.corporation_id : c.character.alliance_id) === eveId,
        )?.['character'][type === 'character' ? 'name' : type === 'corporation' ? 'corporation_ticker' : 'alliance_ticker'] ?? undefined,
    } as CharacterRepository,
  };
  const service = new AclService(fakeDb, box, { append: async (_em, evs) => void events.push(...evs) }, repos);
  return { service, events, links };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return `${(err as AppError).status} ${(err as AppError).code}`;
  }
  return 'resolved';
}

describe('AclService (in-memory fakes)', () => {
  it('creates an ACL linked to its map, with a key kept encrypted and shown decrypted', async () => {
    const { service, links } = world();
    const acl = await service.create('map-1', { name: ' Friends ', owner_eve_id: '2117000001' });
    expect(acl.name).toBe('Friends');
    expect(acl.api_key).toMatch(/^acl_/);
    expect(acl.owner_id).toBe('c1');
    expect(links).toEqual([['map-1', acl.id]]);
  });

  it('refuses an unknown owner with 400 owner_not_found', async () => {
    const { service } = world();
    expect(await codeOf(service.create('map-1', { name: 'X', owner_eve_id: '1' }))).toBe('400 owner_not_found');
  });

  it('lets an ACL key reach only its own ACL (404 otherwise, as if it did not exist)', async () => {
    const { service } = world();
    const acl = await service.create('map-1', { name: 'Mine', owner_eve_id: '2117000001' });
    const other = await service.create('map-1', { name: 'Theirs', owner_eve_id: '2117000001' });
    const me = { kind: 'acl_key' as const, aclId: acl.id };
    expect((await service.get(me, acl.id)).name).toBe('Mine');
    for (const call of [
      service.get(me, other.id),
      service.update(me, other.id, { name: 'taken' }),
      service.addMember(me, other.id, { eve_character_id: '2117000001', role: 'viewer' }),
      service.updateMember(me, other.id, '2117000001', { role: 'viewer' }),
      service.removeMember(me, other.id, '2117000001'),
    ]) {
      expect(await codeOf(call)).toBe('404 acl_not_found');
    }
  });

  it('names a member from the characters it knows, refuses a second member with the same id, and emits to every linked map', async () => {
    const { service, events, links } = world();
    const acl = await service.create('map-b', { name: 'Shared', owner_eve_id: '2117000001' });
    links.push(['map-a', acl.id]);
    const me = { kind: 'acl_key' as const, aclId: acl.id };
    const corp = await service.addMember(me, acl.id, { eve_corporation_id: '98000001', role: 'member' });
    expect(corp.name).toBe('MAPIN');
    expect(corp).not.toHaveProperty('eve_character_id');
    const stranger = await service.addMember(me, acl.id, { eve_alliance_id: '99123456', role: 'viewer' });
    expect(stranger.name).toBe('99123456');
    expect(await codeOf(service.addMember(me, acl.id, { eve_corporation_id: '98000001', role: 'viewer' }))).toBe('409 member_exists');
    expect(await codeOf(service.addMember(me, acl.id, { eve_character_id: '98000001', role: 'viewer' }))).toBe('409 member_id_taken');
    expect(events.map((e) => [e.mapId, e.type])).toEqual([
      ['map-a', 'acl_member_added'],
      ['map-b', 'acl_member_added'],
      ['map-a', 'acl_member_added'],
      ['map-b', 'acl_member_added'],
    ]);
    expect(events[0]!.payload).toEqual({
      acl_id: acl.id,
      member_id: corp.id,
      member_name: 'MAPIN',
      member_type: 'corporation',
      eve_id: '98000001',
      role: 'member',
    });
  });

  it('applies the role rules on update and emits the change; a removed member is gone and emits its removal', async () => {
    const { service, events } = world();
    const acl = await service.create('map-1', { name: 'Roles', owner_eve_id: '2117000001' });
    const me = { kind: 'acl_key' as const, aclId: acl.id };
    await service.addMember(me, acl.id, { eve_corporation_id: '98000001', role: 'member' });
    expect(await codeOf(service.updateMember(me, acl.id, '98000001', { role: 'admin' }))).toBe('400 validation_failed');
    expect((await service.updateMember(me, acl.id, '98000001', { role: 'blocked' })).role).toBe('blocked');
    await service.removeMember(me, acl.id, '98000001');
    expect(await codeOf(service.removeMember(me, acl.id, '98000001'))).toBe('404 member_not_found');
    expect(events.map((e) => e.type)).toEqual(['acl_member_added', 'acl_member_updated', 'acl_member_removed']);
    expect((await service.get(me, acl.id)).members).toEqual([]);
  });
});
