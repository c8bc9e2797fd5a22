/**
 * The message of a 401: the reference server's words, which existing clients match on (decisions §1),
 * then which token the endpoint takes and, as far as that may be told, what was given instead.
 *
 * What it may tell: no token, a malformed one, a token of another kind (by the prefix every generated
 * token carries, `mik_`, `acl_`, `adm_`, or by what it resolved to, for an admin token configured
 * without one), or a revoked map key. What it never tells: the token itself, the map or ACL a key
 * belongs to, or whether a token of the endpoint's own kind exists: a made-up `mik_…` and a deleted
 * map's key read the same, and a made-up `acl_…` reads as a real ACL key does. "Revoked" is only ever
 * said to someone holding a key that once was valid (keys are 32 random bytes: none is guessed).
 */
import { BEARER_TOKEN_CHARACTERS } from '../common/crypto.js';
import { UNAUTHORIZED_MESSAGE, UnauthorizedError } from '../common/errors.js';
import type { Principal } from '../http/principal.js';
import type { Identity } from './token.service.js';

type Kind = Principal['kind'];

/** What a request presented, as far as a 401 may describe it. */
export type Presented =
  | { as: 'none' }
  /** An Authorization header that is not `Bearer <token>` with a well-formed token, or a malformed `?token=`. */
  | { as: 'malformed'; where: 'header' | 'query' }
  | { as: 'token'; token: string; identity: Identity };

const NAMES: Record<Kind, string> = { map_key: 'a map API key', acl_key: 'an ACL API key', admin: 'the admin token' };

/** The prefix of each kind's generated tokens (src/common/crypto.ts generateToken). */
const PREFIXES: [string, Kind][] = [
  ['mik_', 'map_key'],
  ['acl_', 'acl_key'],
  ['adm_', 'admin'],
];

function accepted(accepts: readonly Kind[]): string {
  if (accepts.length === 2 && accepts.includes('map_key') && accepts.includes('acl_key')) return 'a map or ACL API key';
  return accepts.map((k) => NAMES[k]).join(' or ');
}

/** The kind a token is, by what it resolved to, else by its prefix; undefined when neither tells. */
function kindOf(token: string, identity: Identity): Kind | undefined {
  return identity.principal?.kind ?? PREFIXES.find(([prefix]) => token.startsWith(prefix))?.[1];
}

/** Why the request was refused, after "this endpoint takes …". The lengths are BEARER_TOKEN_RE's. */
function reason(accepts: readonly Kind[], presented: Presented): string {
  switch (presented.as) {
    case 'none':
      return ', and none was given';
    case 'malformed':
      return presented.where === 'header'
        ? `; the Authorization header is not 'Bearer <token>' with a token of 16 to 256 ${BEARER_TOKEN_CHARACTERS}`
        : `; the token parameter is not a token of 16 to 256 ${BEARER_TOKEN_CHARACTERS}`;
    case 'token': {
      // Revoked is said only where a map key is taken: elsewhere a map key is the wrong kind anyway.
      if (presented.identity.revoked && accepts.includes('map_key')) return '; the map API key given has been revoked';
      const kind = kindOf(presented.token, presented.identity);
      if (kind && !accepts.includes(kind)) return `, not ${NAMES[kind]}`;
      return '; the token given is not valid';
    }
  }
}

/** The 401 for a request an endpoint taking `accepts` refuses. */
export function tokenRefused(accepts: readonly Kind[], presented: Presented): UnauthorizedError {
  return new UnauthorizedError(`${UNAUTHORIZED_MESSAGE}: this endpoint takes ${accepted(accepts)}${reason(accepts, presented)}`);
}
