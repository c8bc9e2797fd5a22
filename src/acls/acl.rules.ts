/** The rules of ACL members, as pure functions (unit-tested alone). */
import { ValidationError } from '../common/errors.js';

/** Member roles, most to least privileged. */
export const ACL_ROLES = ['admin', 'manager', 'member', 'viewer', 'blocked'] as const;

export type MemberType = 'character' | 'corporation' | 'alliance';

/** The external ids of a member; exactly one is set. */
export interface MemberIds {
  eve_character_id: string | null;
  eve_corporation_id: string | null;
  eve_alliance_id: string | null;
}

/** Which kind of member this is, and its external id. */
export function memberType(r: MemberIds): { type: MemberType; eveId: string } {
  if (r.eve_character_id !== null) return { type: 'character', eveId: r.eve_character_id };
  if (r.eve_corporation_id !== null) return { type: 'corporation', eveId: r.eve_corporation_id };
  return { type: 'alliance', eveId: r.eve_alliance_id ?? '' };
}

/** A role must be known, and only a character can administer or manage an ACL. */
export function checkRole(role: string, type: MemberType): void {
  if (!(ACL_ROLES as readonly string[]).includes(role)) {
    throw new ValidationError([{ field: 'member.role', message: `must be one of ${ACL_ROLES.join(', ')}` }]);
  }
  if (type !== 'character' && (role === 'admin' || role === 'manager')) {
    throw new ValidationError([{ field: 'member.role', message: `a ${type} member cannot be ${role}` }]);
  }
}

/** The one external id a new member names (exactly one of the three must be given). */
export function newMemberId(fields: { eve_character_id?: string | null; eve_corporation_id?: string | null; eve_alliance_id?: string | null }): {
  type: MemberType;
  eveId: string;
} {
  const given = (
    [
      ['character', fields.eve_character_id],
      ['corporation', fields.eve_corporation_id],
      ['alliance', fields.eve_alliance_id],
    ] as const
  ).filter(([, v]) => v !== undefined && v !== null);
  if (given.length !== 1) {
    throw new ValidationError([{ field: 'member', message: 'exactly one of eve_character_id, eve_corporation_id, eve_alliance_id is required' }]);
  }
  const [type, eveId] = given[0]!;
  return { type, eveId: eveId! };
}

/** A name is required where one is given: trimmed, not blank. */
export function aclName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new ValidationError([{ field: 'acl.name', message: 'must not be blank' }]);
  return trimmed;
}
