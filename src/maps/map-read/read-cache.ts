import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Db } from '../../db/db.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import { checkPath, checkSelector, type MapRef, type MapReference } from '../map-access.js';
import { MapRefRepository } from '../map.repository.js';

/** A serialised map read as it was answered: its body bytes, their ETag, and when it is current. */
export interface CachedRead {
  /** The map's read version the body was computed at or after (MapRefRepository.withReadVersion). */
  version: string;
  /** Epoch ms after which the body may differ without any change (a time window moved), or Infinity. */
  expiresAt: number;
  /** Strong ETag, quoted: a digest of the body bytes. */
  etag: string;
  /** The body's bytes, in the bounded chunks it was serialised into (json-chunks.ts). */
  chunks: Buffer[];
  /** Bytes in all. */
  length: number;
  /** The `Map-Event-Id` of the body: the newest event id of the map in the snapshot it was read from ('0' for none). */
  eventId: string;
}

/** The strong ETag of a body: the same bytes give the same tag on every replica. */
export function etagOf(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/**
 * Whether an `If-None-Match` header value names `etag` (RFC 9110 §13.1.2: weak comparison, so `W/` is
 * ignored on either side; `*` matches any current representation).
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  const own = bare(etag);
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || bare(tag) === own;
  });
}

/**
 * The serialised map reads of one process, by map, path and query, bounded in bytes (least recently used
 * out first). An entry is served only while the map's read version is the one it was computed at and its
 * time window has not moved: the version lives in PostgreSQL, so a change committed through any replica
 * makes every replica's entry stale at once (docs/decisions/0002-map-read-cache.md).
 */
export class MapReadCache {
  private readonly entries: LRUCache<string, CachedRead> | undefined;

  constructor(maxBytes: number) {
    this.entries =
      maxBytes > 0
        ? new LRUCache<string, CachedRead>({ maxSize: maxBytes, sizeCalculation: (e, key) => e.length + key.length + 200 + 80 * e.chunks.length })
        : undefined;
  }

  /** The entry of `key` when it is still current for `version` at `now`. */
  get(key: string, version: string, now = Date.now()): CachedRead | undefined {
    const hit = this.entries?.get(key);
    if (!hit) return undefined;
    if (hit.version === version && now < hit.expiresAt) return hit;
    this.entries?.delete(key);
    return undefined;
  }

  set(key: string, entry: CachedRead): void {
    // An entry larger than the whole budget is refused by the LRU; the read is answered all the same.
    this.entries?.set(key, entry);
  }

  /** Bytes held (for tests and metrics). */
  get size(): number {
    return this.entries?.calculatedSize ?? 0;
  }
}

/** A map's read version for a map key, with the access rules of map-access.ts applied to the same row. */
export class MapReadVersions {
  constructor(
    private readonly db: Db,
    private readonly maps = new MapRefRepository(),
  ) {}

  /**
   * The map `ref` names and its read version (undefined while a change waits for its event id), or
   * undefined when the reference is malformed or names no map of this key (the route answers those).
   */
  async current(
    principal: MapKeyPrincipal,
    ref: MapReference,
    db: Db = this.db,
  ): Promise<{ map: MapRef; version: string | undefined; lastEventId: string; pendingMs: number | null } | undefined> {
    const loaded = await this.maps.withReadVersion(db, principal.mapId);
    if (!loaded) return undefined;
    try {
      const map = typeof ref === 'string' ? checkPath(loaded.map, ref) : checkSelector(loaded.map, ref);
      return { ...loaded, map };
    } catch {
      return undefined;
    }
  }

  /** The handle the versions are read through (a read snapshot of it is what a miss is computed in). */
  get handle(): Db {
    return this.db;
  }
}
