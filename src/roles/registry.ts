import type { Role } from '../core/role.js';
import { ROLE_INFO } from '../core/role-catalog.js';

/**
 * A role whose module is imported when it starts. A process loads only what its roles use: a worker
 * does not load the HTTP API (express, tsoa, Swagger UI) or the Kubernetes client, which made up most of
 * every process's start-up and of `--help`.
 */
function lazyRole(info: { name: string; summary: string }, load: () => Promise<Role>): Role {
  return { ...info, start: async (core) => (await load()).start(core) };
}

/** Every role this build has, in start order. */
export const ROLES: readonly Role[] = [
  lazyRole(ROLE_INFO.api, async () => (await import('../api/api.role.js')).apiRole),
  lazyRole(ROLE_INFO.stream, async () => (await import('../stream/stream.role.js')).streamRole),
  lazyRole(ROLE_INFO.worker, async () => (await import('../worker/worker.role.js')).workerRole),
  lazyRole(ROLE_INFO.operator, async () => (await import('../operator/operator.role.js')).operatorRole),
];

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
