import type { Role } from './role.js';
import { apiRole } from '../api/api.role.js';
import { workerRole } from '../worker/worker.role.js';
import { streamRole } from '../stream/stream.role.js';

/** Every role this build has, in start order. */
export const ROLES: readonly Role[] = [apiRole, streamRole, workerRole];

/** Roles of the architecture that this build does not have yet. */
const PLANNED = ['operator'];

export class RoleSelectionError extends Error {}

/** Parses `--roles a,b`: known names, no repeats; returned in start order. Empty or `all`: every role. */
export function selectRoles(text: string | undefined): Role[] {
  const names = (text ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0 || (names.length === 1 && names[0] === 'all')) return [...ROLES];
  const available = ROLES.map((r) => r.name).join(', ');
  for (const name of names) {
    if (PLANNED.includes(name)) throw new RoleSelectionError(`role "${name}" is not part of this build yet; available: ${available}`);
    if (!ROLES.some((r) => r.name === name)) throw new RoleSelectionError(`unknown role "${name}"; available: ${available}`);
  }
  return ROLES.filter((r) => names.includes(r.name));
}
