import type { Db } from '../db/db.js';
import { NotFoundError } from '../errors.js';
import { UUID_RE } from '../db/sql.js';

/** A map as the map API sees it: what access checks and writes need. */
export interface MapRef {
  id: string;
  slug: string;
  ownerCharacterId: string;
  webhooksEnabled: boolean;
}

/**
 * The maps table as map content reads it (admin owns its writes, src/admin/admin.repository.ts, except
 * the webhook toggle, which belongs to the webhook settings: src/webhooks/subscription.repository.ts).
 */
export class MapRefRepository {
  async byId(db: Db, id: string): Promise<MapRef | undefined> {
    const row = await db.one<{ id: string; slug: string; owner_character_id: string; webhooks_enabled: boolean }>(
      'select id, slug, owner_character_id, webhooks_enabled from maps where id = ?',
      [id],
    );
    return row && { id: row.id, slug: row.slug, ownerCharacterId: row.owner_character_id, webhooksEnabled: row.webhooks_enabled };
  }

  /** A map by UUID or slug (for trusted callers such as the operator; keys go through MapAccess). */
  async byReference(db: Db, ref: string): Promise<MapRef | undefined> {
    const row = await db.one<{ id: string }>(UUID_RE.test(ref) ? 'select id from maps where id = ?' : 'select id from maps where slug = ?', [
      UUID_RE.test(ref) ? ref.toLowerCase() : ref,
    ]);
    return row && this.byId(db, row.id);
  }

  /**
   * Serialises the editing writes of one map until the transaction of `tx` ends, so check-then-write
   * steps (system visible? connection exists? signature known?) cannot interleave. `for no key update`
   * does not block inserts elsewhere that only reference the map (foreign key checks take `key share`).
   */
  async lock(tx: Db, mapId: string): Promise<void> {
    if (!(await tx.one('select id from maps where id = ? for no key update', [mapId]))) throw new NotFoundError('Map not found', 'map_not_found');
  }
}
