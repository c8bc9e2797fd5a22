import type { EntityManager } from '@mikro-orm/postgresql';
import { BEARER_TOKEN_RE, hashToken, safeEqual } from '../crypto.js';
import { UnauthorizedError } from '../errors.js';
import type { AclKeyPrincipal, MapKeyPrincipal, Principal } from './principal.js';

/** Tokens are printable and bounded; anything else is rejected before any lookup. */
const TOKEN_RE = BEARER_TOKEN_RE;

/** How long a resolved key is trusted without a database look; revocation takes effect within it. */
const CACHE_TTL_MS = 3_000;
const CACHE_MAX = 10_000;

interface CacheEntry {
  principal: MapKeyPrincipal | AclKeyPrincipal | null;
  expires: number;
}

/**
 * Resolves bearer tokens to principals: map keys and ACL keys by their sha256 (stored hashed / with a
 * lookup hash), the admin token by constant-time comparison.
 */
export class TokenService {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly em: () => EntityManager,
    private readonly adminToken: string | undefined,
  ) {}

  /** Extracts the bearer token from an Authorization header value; throws 401 when malformed. */
  static parseBearer(header: string | undefined): string {
    if (!header) throw new UnauthorizedError();
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match?.[1] || !TOKEN_RE.test(match[1])) throw new UnauthorizedError();
    return match[1];
  }

  static isWellFormed(token: string): boolean {
    return TOKEN_RE.test(token);
  }

  authenticateAdmin(token: string): Principal {
    if (!this.adminToken || !safeEqual(token, this.adminToken)) throw new UnauthorizedError();
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

  /** Drops cached resolutions (after a key is revoked or an ACL deleted). */
  invalidate(): void {
    this.cache.clear();
  }

  private async resolve(token: string): Promise<MapKeyPrincipal | AclKeyPrincipal | null> {
    if (!TOKEN_RE.test(token)) return null;
    const hash = hashToken(token);
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && hit.expires > now) return hit.principal;
    const conn = this.em().getConnection();
    const mapKeys = await conn.execute<{ id: string; map_id: string; character_id: string; key_hash: string }[]>(
      'select id, map_id, character_id, key_hash from map_api_keys where key_hash = ? and revoked_at is null',
      [hash],
    );
    let principal: MapKeyPrincipal | AclKeyPrincipal | null = null;
    const mk = mapKeys[0];
    if (mk && safeEqual(mk.key_hash, hash)) {
      principal = { kind: 'map_key', keyId: mk.id, mapId: mk.map_id, characterId: mk.character_id };
    } else {
      const acls = await conn.execute<{ id: string; api_key_hash: string }[]>(
        'select id, api_key_hash from acls where api_key_hash = ?',
        [hash],
      );
      const acl = acls[0];
      if (acl && safeEqual(acl.api_key_hash, hash)) principal = { kind: 'acl_key', aclId: acl.id };
    }
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(hash, { principal, expires: now + CACHE_TTL_MS });
    return principal;
  }
}
