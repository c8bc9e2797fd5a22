/**
 * What the operator reads of the platform besides subscriptions: whether a map key (from the Secret
 * that spec.mapKeySecretRef names) is a live key of the map a resource names, looked up by its
 * sha256 exactly as the API resolves bearer tokens; which of the keys proved earlier are still live;
 * and whether maps have their webhooks switched on.
 */
import type { Db } from '../db/db.js';
import { hashToken, safeEqual } from '../common/crypto.js';
import { UUID_RE } from '../db/sql.js';
import { MapKeyRepository } from '../auth/map-key.repository.js';

export type MapKeyCheck =
  { ok: true; keyId: string; mapId: string } | { ok: false; reason: 'MapNotFound' | 'MapKeyInvalid' | 'MapKeyRevoked' | 'MapKeyOtherMap'; message: string };

export interface MapFacts {
  checkMapKey(map: string, key: string): Promise<MapKeyCheck>;
  /** The ids among these that are map keys neither revoked nor deleted. */
  liveMapKeyIds(ids: readonly string[]): Promise<Set<string>>;
  /** maps.webhooks_enabled of these maps. */
  webhooksEnabled(mapIds: readonly string[]): Promise<Map<string, boolean>>;
}

export class DbMapFacts implements MapFacts {
  private readonly keys = new MapKeyRepository();

  constructor(private readonly db: Db) {}

  async checkMapKey(map: string, key: string): Promise<MapKeyCheck> {
    const row = await this.db.one<{ id: string }>(UUID_RE.test(map) ? 'select id from maps where id = ?' : 'select id from maps where slug = ?', [
      UUID_RE.test(map) ? map.toLowerCase() : map,
    ]);
    if (!row) return { ok: false, reason: 'MapNotFound', message: `Map not found: ${map}` };
    const hash = hashToken(key.trim());
    const found = await this.db.one<{ id: string; map_id: string; key_hash: string; revoked: boolean }>(
      'select id, map_id, key_hash, revoked_at is not null as revoked from map_api_keys where key_hash = ?',
      [hash],
    );
    if (!found || !safeEqual(found.key_hash, hash)) {
      return { ok: false, reason: 'MapKeyInvalid', message: 'The Secret named by spec.mapKeySecretRef holds no key of any map' };
    }
    if (found.map_id !== row.id)
      return { ok: false, reason: 'MapKeyOtherMap', message: `The map key in spec.mapKeySecretRef is a key of another map, not of ${map}` };
    if (found.revoked)
      return { ok: false, reason: 'MapKeyRevoked', message: `The map key in spec.mapKeySecretRef was revoked; put a live key of ${map} in the Secret` };
    return { ok: true, keyId: found.id, mapId: row.id };
  }

  liveMapKeyIds(ids: readonly string[]): Promise<Set<string>> {
    return this.keys.liveIds(this.db, ids);
  }

  async webhooksEnabled(mapIds: readonly string[]): Promise<Map<string, boolean>> {
    if (mapIds.length === 0) return new Map();
    const rows = await this.db.all<{ id: string; webhooks_enabled: boolean }>(
      'select id, webhooks_enabled from maps where id = any(select jsonb_array_elements_text(?::jsonb)::uuid)',
      [JSON.stringify([...new Set(mapIds)])],
    );
    return new Map(rows.map((r) => [r.id, r.webhooks_enabled]));
  }
}
