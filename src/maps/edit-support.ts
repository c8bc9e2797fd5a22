/** Errors and SQL helpers shared by the map resources. */
import type { Db } from '../db/db.js';
import { AppError, NotFoundError, type ErrorDetail } from '../common/errors.js';
import { CharacterRepository } from '../characters/character.repository.js';

/** 404 `system_not_found` (the reference message clients match on), with the offending field when it came from the body. */
export function systemNotFound(details?: ErrorDetail[]): AppError {
  return new AppError(404, 'system_not_found', 'System not found', details);
}

/** 404 `solar_system_not_found` naming each body field whose solar system is not in the static data. */
export function solarSystemsNotFound(details: ErrorDetail[]): AppError {
  return new AppError(404, 'solar_system_not_found', 'Solar system not found', details);
}

/** The fields whose value differs from the row, in `fields` order. */
export function changedFields<F extends string>(fields: readonly F[], row: Record<F, unknown>, values: Partial<Record<F, unknown>>): F[] {
  return fields.filter((f) => f in values && values[f] !== row[f]);
}

/** `a = ?, b = ?` for the given columns. */
export function setClause(columns: readonly string[]): string {
  return columns.map((c) => `${c} = ?`).join(', ');
}

/** `?, ?, ?` for n values. */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/** eve_id of the character a map key belongs to (writes are attributed to it, decisions §2). */
export async function actorEveId(db: Db, characterId: string, characters = new CharacterRepository()): Promise<string> {
  const found = await characters.byId(db, characterId);
  if (!found) throw new NotFoundError('Character not found', 'character_not_found');
  return found.character.eve_id;
}
