import { describe, expect, it } from 'vitest';
import { ACL_ROLES, aclName, checkRole, memberType, newMemberId } from '../../src/acls/acl.rules.js';
import { ValidationError } from '../../src/common/errors.js';

function detailsOf(fn: () => unknown): { field: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).details as { field: string; message: string }[];
  }
  throw new Error('expected a ValidationError');
}

describe('ACL member rules', () => {
  it('knows the five roles, most privileged first', () => {
    expect(ACL_ROLES).toEqual(['admin', 'manager', 'member', 'viewer', 'blocked']);
  });

  it('lets a character hold any role', () => {
    for (const role of ACL_ROLES) expect(() => checkRole(role, 'character')).not.toThrow();
  });

  it('refuses admin and manager for corporations and alliances, naming the field', () => {
    for (const type of ['corporation', 'alliance'] as const) {
      for (const role of ['admin', 'manager']) {
        expect(detailsOf(() => checkRole(role, type))).toEqual([{ field: 'member.role', message: `a ${type} member cannot be ${role}` }]);
      }
      for (const role of ['member', 'viewer', 'blocked']) expect(() => checkRole(role, type)).not.toThrow();
    }
  });

  it('refuses an unknown role with the list of known ones', () => {
    expect(detailsOf(() => checkRole('owner', 'character'))).toEqual([
      { field: 'member.role', message: 'must be one of admin, manager, member, viewer, blocked' },
    ]);
  });

  it('takes exactly one external id for a new member', () => {
    expect(newMemberId({ eve_character_id: '2117000001' })).toEqual({ type: 'character', eveId: '2117000001' });
    expect(newMemberId({ eve_corporation_id: '98000001', eve_character_id: null })).toEqual({ type: 'corporation', eveId: '98000001' });
    expect(newMemberId({ eve_alliance_id: '99000001' })).toEqual({ type: 'alliance', eveId: '99000001' });
    const message = 'exactly one of eve_character_id, eve_corporation_id, eve_alliance_id is required';
    expect(detailsOf(() => newMemberId({}))).toEqual([{ field: 'member', message }]);
    expect(detailsOf(() => newMemberId({ eve_character_id: '1', eve_alliance_id: '2' }))).toEqual([{ field: 'member', message }]);
  });

  it('reads the kind of a stored member from the one id that is set', () => {
    expect(memberType({ eve_character_id: null, eve_corporation_id: '98', eve_alliance_id: null })).toEqual({ type: 'corporation', eveId: '98' });
    expect(memberType({ eve_character_id: '21', eve_corporation_id: null, eve_alliance_id: null })).toEqual({ type: 'character', eveId: '21' });
  });

  it('trims ACL names and refuses blank ones', () => {
    expect(aclName('  Friends ')).toBe('Friends');
    expect(detailsOf(() => aclName('   '))).toEqual([{ field: 'acl.name', message: 'must not be blank' }]);
  });
});
