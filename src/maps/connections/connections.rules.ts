/** Rules of connection writes that need no database. */
import { NotFoundError, ValidationError } from '../../common/errors.js';
import { UUID_RE } from '../../db/sql.js';

/** Editable connection fields, in the order `changed` lists them. */
export const CONNECTION_FIELDS = ['type', 'mass_status', 'time_status', 'ship_size_type', 'wormhole_type', 'locked'] as const;
export type ConnectionField = (typeof CONNECTION_FIELDS)[number];

/** The connection id of a path, lower-cased; 404 `connection_not_found` when it is not a UUID. */
export function connectionIdOf(id: string): string {
  if (!UUID_RE.test(id)) throw new NotFoundError('Connection not found', 'connection_not_found');
  return id.toLowerCase();
}

/** Wormhole type codes are stored upper-case. */
export function normaliseWormholeType<T extends { wormhole_type?: string | null }>(input: T): T {
  return typeof input.wormhole_type === 'string' ? { ...input, wormhole_type: input.wormhole_type.toUpperCase() } : input;
}

/** The given editable fields of a change. */
export function connectionValues(input: Partial<Record<ConnectionField, unknown>>): Partial<Record<ConnectionField, unknown>> {
  const v: Partial<Record<ConnectionField, unknown>> = {};
  for (const f of CONNECTION_FIELDS) if (input[f] !== undefined) v[f] = input[f];
  return v;
}

/** A connection joins two different systems. */
export function refuseLoop(source: number, target: number): void {
  if (source === target) throw new ValidationError([{ field: 'solar_system_target', message: 'must differ from solar_system_source' }]);
}
