/**
 * What the operator reads of the platform besides subscriptions: whether a map key (from the Secret
 * that spec.mapKeySecretRef names) is a live key of the map a resource names, looked up by its
 * sha256 exactly as the API resolves bearer tokens; which of the keys proved earlier are still live;
 * and whether maps have their webhooks switched on. Every read goes through the tables' repositories
 * (map-key.repository.ts, map.repository.ts): the operator writes no SQL.
 */
import type { Db } from '../db/db.js';
import { hashToken, safeEqual } from '../common/crypto.js';
import { MapRefRepository } from '../maps/map.repository.js';
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
  private readonly maps = new MapRefRepository();

  constructor(private readonly db: Db) {}

  async checkMapKey(map: string, key: string): Promise<MapKeyCheck> {
    const found = await this.maps.byReference(this.db, map);
    if (!found) return { ok: false, reason: 'MapNotFound', message: `Map not found: ${map}` };
    const hash = hashToken(key.trim());
    const mapKey = await this.keys.byHash(this.db, hash);
    if (!mapKey || !safeEqual(mapKey.key_hash, hash)) {
      return { ok: false, reason: 'MapKeyInvalid', message: 'The Secret named by spec.mapKeySecretRef holds no key of any map' };
    }
    if (mapKey.map_id !== found.id)
      return { ok: false, reason: 'MapKeyOtherMap', message: `The map key in spec.mapKeySecretRef is a key of another map, not of ${map}` };
    if (mapKey.revoked)
      return { ok: false, reason: 'MapKeyRevoked', message: `The map key in spec.mapKeySecretRef was revoked; put a live key of ${map} in the Secret` };
    return { ok: true, keyId: mapKey.id, mapId: found.id };
  }

  liveMapKeyIds(ids: readonly string[]): Promise<Set<string>> {
    return this.keys.liveIds(this.db, ids);
  }

  webhooksEnabled(mapIds: readonly string[]): Promise<Map<string, boolean>> {
    return this.maps.webhooksEnabled(this.db, mapIds);
  }
}
