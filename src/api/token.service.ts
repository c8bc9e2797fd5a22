import type { Db } from '../db/db.js';
import type { Counter } from 'prom-client';
import { BEARER_TOKEN_RE, hashToken, safeEqual } from '../crypto.js';
import { UnauthorizedError } from '../errors.js';
import type { AclKeyPrincipal, MapKeyPrincipal, Principal } from './principal.js';

/** Tokens are printable and bounded; anything else is rejected before any lookup. */
const TOKEN_RE = BEARER_TOKEN_RE;

/** How long a resolved key is trusted without a database look; revocation takes effect within it. */
const CACHE_TTL_MS = 3_000;
/**
 * How long an unknown token stays known as unknown. Longer than for keys: nothing turns a random
 * token into a key (keys are generated), and a client retrying a wrong key costs no lookup meanwhile.
 */
const UNKNOWN_TTL_MS = 30_000;
/** How long a token that resolved to a key is remembered as one, for the rate limiter (see knownRecently). */
const KNOWN_TTL_MS = 10 * 60_000;
const CACHE_MAX = 10_000;

/** A map with a time to live per entry and a size bound: when full, the oldest entry goes first. */
class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  get(key: string, now = Date.now()): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires > now) return hit.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, now = Date.now()): void {
    // Re-inserting moves the key to the end, so insertion order stays expiry order.
    this.entries.delete(key);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expires: now + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}

type KeyPrincipal = MapKeyPrincipal | AclKeyPrincipal;

/**
 * Resolves bearer tokens to principals: map keys and ACL keys by their sha256 (stored hashed / with a
 * lookup hash), the admin token by constant-time comparison. Resolutions are cached, unknown tokens
 * too, each cache bounded, so repeating a token costs no database lookup.
 */
export class TokenService {
  private readonly keys = new BoundedCache<KeyPrincipal>(CACHE_TTL_MS, CACHE_MAX);
  private readonly unknown = new BoundedCache<true>(UNKNOWN_TTL_MS, CACHE_MAX);
  private readonly known = new BoundedCache<true>(KNOWN_TTL_MS, CACHE_MAX);

  constructor(
    private readonly db: Db,
    private readonly adminToken: string | undefined,
    /** Counts the resolutions that needed the database. */
    private readonly lookups?: Counter,
  ) {}

  /** The token of an `Authorization: Bearer` header value, or undefined when absent or malformed. */
  static bearerOf(header: string | undefined): string | undefined {
    const match = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    return match?.[1] && TOKEN_RE.test(match[1]) ? match[1] : undefined;
  }

  /** Extracts the bearer token from an Authorization header value; throws 401 when malformed. */
  static parseBearer(header: string | undefined): string {
    const token = TokenService.bearerOf(header);
    if (!token) throw new UnauthorizedError();
    return token;
  }

  static isWellFormed(token: string): boolean {
    return TOKEN_RE.test(token);
  }

  authenticateAdmin(token: string): Principal {
    if (!this.isAdmin(token)) throw new UnauthorizedError();
    return { kind: 'admin' };
  }

  async authenticateMapKey(token: string): Promise<MapKeyPrincipal> {
    const p = await this.resolve(token);
    if (p?.kind !== 'map_key') throw new UnauthorizedError();
    return p;
  }

  async authenticateAclKey(token: string): Promise<AclKeyPrincipal> {
    const p = await this.resolve(token);
    if (p?.kind !== 'acl_key') throw new UnauthorizedError();
    return p;
  }

  /** Any valid map key or ACL key (GET /api/characters). */
  async authenticateAnyKey(token: string): Promise<MapKeyPrincipal | AclKeyPrincipal> {
    const p = await this.resolve(token);
    if (!p) throw new UnauthorizedError();
    return p;
  }

  /** Whoever the token belongs to (admin, map key or ACL key), or null for an unknown or malformed token. */
  async resolveAny(token: string, hash?: string): Promise<Principal | null> {
    if (this.isAdmin(token)) return { kind: 'admin' };
    return this.resolve(token, hash);
  }

  /**
   * What the caches say, without a database lookup: the principal, null for a token known to be
   * unknown (or malformed), undefined when only a lookup can tell.
   */
  cached(token: string, hash?: string): Principal | null | undefined {
    if (this.isAdmin(token)) return { kind: 'admin' };
    if (!TOKEN_RE.test(token)) return null;
    hash ??= hashToken(token);
    return this.keys.get(hash) ?? (this.unknown.get(hash) ? null : undefined);
  }

  /** Whether the token resolved to a key in the last minutes (it may have been revoked since). */
  knownRecently(token: string, hash?: string): boolean {
    return TOKEN_RE.test(token) && this.known.get(hash ?? hashToken(token)) === true;
  }

  /**
   * Which of these map keys are still valid (not revoked, not deleted), in one query and without the
   * cache: the stream role's revocation sweep asks this for every key holding a connection.
   */
  async liveMapKeyIds(keyIds: readonly string[]): Promise<Set<string>> {
    if (keyIds.length === 0) return new Set();
    const rows = await this.db.all<{ id: string }>(
      'select id from map_api_keys where id = any(select jsonb_array_elements_text(?::jsonb)::uuid) and revoked_at is null',
      [JSON.stringify(keyIds)],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Drops cached resolutions (after a key is revoked or an ACL deleted). */
  invalidate(): void {
    this.keys.clear();
    this.unknown.clear();
  }

  private isAdmin(token: string): boolean {
    return this.adminToken !== undefined && safeEqual(token, this.adminToken);
  }

  /** `hash` is the token's sha256 when the caller has it already (one hash per request). */
  private async resolve(token: string, hash = hashToken(token)): Promise<KeyPrincipal | null> {
    if (!TOKEN_RE.test(token)) return null;
    const now = Date.now();
    const hit = this.keys.get(hash, now);
    if (hit) return hit;
    if (this.unknown.get(hash, now)) return null;
    this.lookups?.inc();
    let principal: KeyPrincipal | null = null;
    const mk = await this.db.one<{ id: string; map_id: string; character_id: string; key_hash: string; stream_profile: 'spec' | 'reference' }>(
      'select id, map_id, character_id, key_hash, stream_profile from map_api_keys where key_hash = ? and revoked_at is null',
      [hash],
    );
    if (mk && safeEqual(mk.key_hash, hash)) {
      principal = { kind: 'map_key', keyId: mk.id, mapId: mk.map_id, characterId: mk.character_id, streamProfile: mk.stream_profile };
    } else {
      const acl = await this.db.one<{ id: string; api_key_hash: string }>('select id, api_key_hash from acls where api_key_hash = ?', [hash]);
      if (acl && safeEqual(acl.api_key_hash, hash)) principal = { kind: 'acl_key', aclId: acl.id };
    }
    if (principal) {
      this.keys.set(hash, principal, now);
      this.known.set(hash, true, now);
    } else {
      this.unknown.set(hash, true, now);
    }
    return principal;
  }
}
