import type { Db } from '../db/db.js';
import type { Counter } from 'prom-client';
import { BEARER_TOKEN_RE, hashToken, safeEqual } from '../common/crypto.js';
import type { AclKeyPrincipal, MapKeyPrincipal, Principal } from '../http/principal.js';
import { KeyDirectory } from './key-directory.js';
import { BoundedCache } from '../common/bounded-cache.js';
import { MapKeyRepository } from './map-key.repository.js';

const MAP_KEYS = new MapKeyRepository();

/** Tokens are printable and bounded; anything else is rejected before any lookup. */
const TOKEN_RE = BEARER_TOKEN_RE;

/** How long a resolved key is trusted without a database look; revocation takes effect within it. */
const CACHE_TTL_MS = 3_000;
/**
 * How long an unknown (or revoked) token stays known as such. Longer than for keys: nothing turns a
 * random token into a key (keys are generated), nothing un-revokes a key, and a client retrying a
 * wrong key costs no lookup meanwhile.
 */
const UNKNOWN_TTL_MS = 30_000;
/** How long a token that resolved to a key is remembered as one, for the rate limiter (see knownRecently). */
const KNOWN_TTL_MS = 10 * 60_000;
const CACHE_MAX = 10_000;

type KeyPrincipal = MapKeyPrincipal | AclKeyPrincipal;

/**
 * Whoever a token belongs to, or null; `revoked` when it is a map key that was revoked (the one
 * thing about a refused token its 401 tells: src/auth/token-refusal.ts).
 */
export interface Identity {
  principal: Principal | null;
  revoked: boolean;
}

/**
 * Resolves bearer tokens to principals: map keys and ACL keys by their sha256 (stored hashed / with a
 * lookup hash), the admin token by constant-time comparison. Resolutions are cached, unknown tokens
 * too, each cache bounded, so repeating a token costs no database lookup.
 */
export class TokenService {
  private readonly keys = new BoundedCache<KeyPrincipal>(CACHE_TTL_MS, CACHE_MAX);
  /** Tokens that are no key: never were (or malformed), or a revoked map key. */
  private readonly refused = new BoundedCache<'unknown' | 'revoked'>(UNKNOWN_TTL_MS, CACHE_MAX);
  private readonly known = new BoundedCache<true>(KNOWN_TTL_MS, CACHE_MAX);
  private readonly directory: KeyDirectory;

  constructor(
    private readonly db: Db,
    private readonly adminToken: string | undefined,
    /** Counts the resolutions that needed the database. */
    private readonly lookups?: Counter,
  ) {
    this.directory = new KeyDirectory(db);
  }

  /** The token of an `Authorization: Bearer` header value, or undefined when absent or malformed. */
  static bearerOf(header: string | undefined): string | undefined {
    const match = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    return match?.[1] && TOKEN_RE.test(match[1]) ? match[1] : undefined;
  }

  static isWellFormed(token: string): boolean {
    return TOKEN_RE.test(token);
  }

  /** Whoever the token belongs to (admin, map key or ACL key), or null for an unknown, revoked or malformed token. */
  async resolveAny(token: string, hash?: string): Promise<Principal | null> {
    return (await this.identify(token, hash)).principal;
  }

  /**
   * As resolveAny, and whether a refused token is a revoked map key. That costs nothing more: the
   * one query that finds a map key finds a revoked one too (the ACL query is skipped for it).
   */
  async identify(token: string, hash?: string): Promise<Identity> {
    if (this.isAdmin(token)) return { principal: { kind: 'admin' }, revoked: false };
    const found = await this.resolve(token, hash);
    return typeof found === 'string' ? { principal: null, revoked: found === 'revoked' } : { principal: found, revoked: false };
  }

  /**
   * What the caches say, without a database lookup: the principal, null for a token known to be
   * unknown (or malformed), undefined when only a lookup can tell.
   */
  cached(token: string, hash?: string): Principal | null | undefined {
    if (this.isAdmin(token)) return { kind: 'admin' };
    if (!TOKEN_RE.test(token)) return null;
    hash ??= hashToken(token);
    return this.keys.get(hash) ?? (this.refused.get(hash) ? null : undefined);
  }

  /** Whether the token resolved to a key in the last minutes (it may have been revoked since). */
  knownRecently(token: string, hash?: string): boolean {
    return TOKEN_RE.test(token) && this.known.get(hash ?? hashToken(token)) === true;
  }

  /**
   * Whether a token may be a key, from the process's directory of key hashes (src/auth/key-directory.ts)
   * instead of a lookup of its own: what the rate limiter asks once an address has spent its lookups.
   */
  async mayBeKey(token: string, hash?: string): Promise<boolean> {
    if (!TOKEN_RE.test(token)) return false;
    return this.directory.mayBeKey(hash ?? hashToken(token)).catch(() => false);
  }

  /**
   * Which of these map keys are still valid (not revoked, not deleted), in one query and without the
   * cache: the stream role's revocation sweep asks this for every key holding a connection.
   */
  liveMapKeyIds(keyIds: readonly string[]): Promise<Set<string>> {
    return MAP_KEYS.liveIds(this.db, keyIds);
  }

  /** Drops cached resolutions (after a key is revoked or an ACL deleted). */
  invalidate(): void {
    this.keys.clear();
    this.refused.clear();
  }

  private isAdmin(token: string): boolean {
    return this.adminToken !== undefined && safeEqual(token, this.adminToken);
  }

  /**
   * The key a token is, or why it is none. `hash` is the token's sha256 when the caller has it
   * already (one hash per request).
   */
  private async resolve(token: string, hash = hashToken(token)): Promise<KeyPrincipal | 'unknown' | 'revoked'> {
    if (!TOKEN_RE.test(token)) return 'unknown';
    const now = Date.now();
    const hit = this.keys.get(hash, now);
    if (hit) return hit;
    const refused = this.refused.get(hash, now);
    if (refused) return refused;
    this.lookups?.inc();
    let found: KeyPrincipal | 'unknown' | 'revoked' = 'unknown';
    // Revoked keys too (key_hash is unique): a valid key still costs this one query, a revoked one no more.
    const mk = await MAP_KEYS.byHash(this.db, hash);
    if (mk && safeEqual(mk.key_hash, hash)) {
      found = mk.revoked ? 'revoked' : { kind: 'map_key', keyId: mk.id, mapId: mk.map_id, characterId: mk.character_id, profile: mk.stream_profile };
    } else {
      const acl = await this.db.one<{ id: string; api_key_hash: string }>('select id, api_key_hash from acls where api_key_hash = ?', [hash]);
      if (acl && safeEqual(acl.api_key_hash, hash)) found = { kind: 'acl_key', aclId: acl.id };
    }
    if (typeof found === 'string') {
      this.refused.set(hash, found, now);
    } else {
      this.keys.set(hash, found, now);
      this.known.set(hash, true, now);
    }
    return found;
  }
}
