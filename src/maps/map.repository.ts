import { BoundedCache } from '../common/bounded-cache.js';
import type { Db } from '../db/db.js';
import { NotFoundError } from '../common/errors.js';
import { UUID_RE } from '../db/sql.js';
import type { Tables } from '../db/tables.js';

/**
 * Which column a map reference names: a UUID (any case) is an id, anything else a slug. The one place
 * that decides it, for every lookup of a map by id or slug (map content, admin, the operator).
 */
export function mapReference(ref: string): { column: 'id' | 'slug'; value: string } {
  return UUID_RE.test(ref) ? { column: 'id', value: ref.toLowerCase() } : { column: 'slug', value: ref };
}

/** A map as the map API sees it: what access checks and writes need. */
export interface MapRef {
  id: string;
  slug: string;
  ownerCharacterId: string;
  webhooksEnabled: boolean;
}

/** A map with its read version (MapRefRepository.withReadVersion). */
export interface ReadVersion {
  map: MapRef;
  /** Undefined while an event of the map waits for its id. */
  version: string | undefined;
  /** The newest event id the map's log holds, '0' for none: the `Map-Event-Id` of a read of this snapshot. */
  lastEventId: string;
  /** How long the oldest event of the map waiting for its id has waited (ms), or null when none waits. */
  pendingMs: number | null;
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
    const { column, value } = mapReference(ref);
    const row = await db
      .kysely<Tables>()
      .selectFrom('maps')
      .select(['id', 'slug', 'owner_character_id', 'webhooks_enabled'])
      .where(column, '=', value)
      .executeTakeFirst();
    return row && { id: row.id, slug: row.slug, ownerCharacterId: row.owner_character_id, webhooksEnabled: row.webhooks_enabled };
  }

  /** maps.webhooks_enabled of these maps, by id (maps that do not exist are left out). */
  async webhooksEnabled(db: Db, ids: readonly string[]): Promise<Map<string, boolean>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .kysely<Tables>()
      .selectFrom('maps')
      .select(['id', 'webhooks_enabled'])
      .where('id', 'in', [...new Set(ids)])
      .execute();
    return new Map(rows.map((r) => [r.id, r.webhooks_enabled]));
  }

  /**
   * The map with its read version, in one indexed query: what a cached read of the map checks. The
   * version changes whenever the map's content or the shared data changes (map_versions and
   * shared_data_version, bumped by triggers) or an event of the map gets its id; it is undefined while an
   * event of the map waits for its id (a change just committed that the version does not show yet).
   */
  async withReadVersion(db: Db, id: string): Promise<ReadVersion | undefined> {
    const row = await db.one<{
      id: string;
      slug: string;
      owner_character_id: string;
      webhooks_enabled: boolean;
      version: string;
      shared: string;
      last_event: string | null;
      last_assigned: string | null;
      pending_ms: string | null;
    }>(
      `select m.id, m.slug, m.owner_character_id, m.webhooks_enabled,
         coalesce((select v.version from map_versions v where v.map_id = m.id), 0)::text as version,
         coalesce((select s.version from shared_data_version s), 0)::text as shared,
         (select coalesce(e.event_id, '') from map_events e where e.map_id = m.id order by e.event_id desc nulls first limit 1) as last_event,
         (select max(e.event_id) from map_events e where e.map_id = m.id) as last_assigned,
         (select (extract(epoch from clock_timestamp() - min(e.created_at)) * 1000)::bigint::text from map_events e
            where e.map_id = m.id and e.event_id is null) as pending_ms
       from maps m where m.id = ?`,
      [id],
    );
    if (!row) return undefined;
    const map = { id: row.id, slug: row.slug, ownerCharacterId: row.owner_character_id, webhooksEnabled: row.webhooks_enabled };
    return {
      map,
      version: row.last_event === '' ? undefined : `${row.version}.${row.shared}.${row.last_event ?? '-'}`,
      lastEventId: row.last_assigned ?? '0',
      pendingMs: row.pending_ms === null ? null : Number(row.pending_ms),
    };
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

/**
 * `byId` answered from a cache for `ttlMs` (maps found only): for the stream's connects, where the
 * same maps are looked up again and again. A key's map changes rarely; within the time a resolved key
 * is trusted (src/auth/token.service.ts, 3 s) the stream may see a slug renamed or a map deleted as it
 * was, as it sees the key (the revocation sweep closes the streams of a deleted map's keys).
 */
export class CachedMapRefRepository extends MapRefRepository {
  private readonly cache: BoundedCache<MapRef>;

  constructor(ttlMs: number, max = 10_000) {
    super();
    this.cache = new BoundedCache(ttlMs, max);
  }

  override async byId(db: Db, id: string): Promise<MapRef | undefined> {
    const hit = this.cache.get(id);
    if (hit) return hit;
    const found = await super.byId(db, id);
    if (found) this.cache.set(id, found);
    return found;
  }
}
