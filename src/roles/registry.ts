import type { Role } from './role.js';
import { apiRole } from '../api/api.role.js';
import { workerRole } from '../worker/worker.role.js';
import { streamRole } from '../stream/stream.role.js';
import { operatorRole } from '../operator/operator.role.js';

/** Every role this build has, in start order. */
export const ROLES: readonly Role[] = [apiRole, streamRole, workerRole, operatorRole as Role];

/**
 * The roles of a plain `serve`: all but the operator, which needs a Kubernetes cluster and runs only
 * when named (`--roles operator`, or `--roles all`).
 */
export const DEFAULT_ROLES: readonly Role[] = ROLES.filter((r) => r.name !== 'operator');

export class RoleSelectionError extends Error {}

/** Parses `--roles a,b`: known names, no repeats; returned in start order. Empty: the default roles; `all`: every role. */
export function selectRoles(text: string | undefined): Role[] {
  const names = (text ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0) return [...DEFAULT_ROLES];
  if (names.length === 1 && names[0] === 'all') return [...ROLES];
  const available = ROLES.map((r) => r.name).join(', ');
  for (const name of names) {
    if (!ROLES.some((r) => r.name === name)) throw new RoleSelectionError(`unknown role "${name}"; available: ${available}`);
  }
  return ROLES.filter((r) => names.includes(r.name));
}
