/**
 * Shared pieces of the editing services: SQL inside the caller's transaction, the per-map write
 * lock, the acting character, and the errors the editing API answers with.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, NotFoundError, type ErrorDetail } from '../errors.js';

/** Runs SQL on the transaction of `tx` (the EM handed to `em.transactional`). */
export type Query = <T = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<T[]>;

export function queryIn(tx: EntityManager): Query {
  const conn = tx.getConnection();
  const ctx = tx.getTransactionContext();
  return <T>(sql: string, params: unknown[] = []) => conn.execute<T[]>(sql, params, 'all', ctx);
}

/** `?, ?, ?` for n values. */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/**
 * Serialises the editing writes of one map until the transaction ends, so check-then-write steps
 * (system visible? connection exists? signature known?) cannot interleave. `for no key update` does
 * not block inserts elsewhere that only reference the map (foreign key checks take `key share`).
 */
export async function lockMap(q: Query, mapId: string): Promise<void> {
  const rows = await q('select id from maps where id = ? for no key update', [mapId]);
  if (!rows.length) throw new NotFoundError('Map not found', 'map_not_found');
}

/** eve_id of the character a map key belongs to (writes are attributed to it, decisions §2). */
export async function actorEveId(q: Query, characterId: string): Promise<string> {
  const rows = await q<{ eve_id: string }>('select eve_id from characters where id = ?', [characterId]);
  if (!rows[0]) throw new NotFoundError('Character not found', 'character_not_found');
  return rows[0].eve_id;
}

/** 404 `system_not_found` (the reference message clients match on), with the offending field when it came from the body. */
export function systemNotFound(details?: ErrorDetail[]): AppError {
  return new AppError(404, 'system_not_found', 'System not found', details);
}

/** True when the text is valid JSON (labels are a JSON-encoded value). */
export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
