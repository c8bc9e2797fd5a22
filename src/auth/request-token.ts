import type { Request as ExRequest } from 'express';
import { hashToken } from '../common/crypto.js';
import type { UnauthorizedError } from '../common/errors.js';
import type { Principal } from '../http/principal.js';
import { tokenRefused } from './token-refusal.js';
import { TokenService, type Identity } from './token.service.js';

/** A request's bearer token with its hash, computed once. */
export interface PresentedToken {
  token: string;
  hash: string;
}

interface Memo {
  presented: PresentedToken | undefined;
  identity?: Promise<Identity>;
}

const memos = new WeakMap<ExRequest, Memo>();

function memoOf(req: ExRequest): Memo {
  let memo = memos.get(req);
  if (!memo) {
    const token = TokenService.bearerOf(req.headers.authorization);
    memo = { presented: token ? { token, hash: hashToken(token) } : undefined };
    memos.set(req, memo);
  }
  return memo;
}

/** Drops what was remembered of the request's token (a stream holds its request for as long as it is open). */
export function forgetRequestToken(req: ExRequest): void {
  memos.delete(req);
}

/**
 * The request's `Authorization: Bearer` token and its hash, or undefined when absent or malformed.
 * Parsed and hashed once per request, whoever asks first (rate limiter, 401-before-body, read cache,
 * the route's authentication).
 */
export function presentedToken(req: ExRequest): PresentedToken | undefined {
  return memoOf(req).presented;
}

/**
 * Whoever the request's bearer token belongs to (admin, map key, ACL key), or null: resolved once per
 * request through the token service's caches, and shared by every later step of the same request.
 */
export async function requestPrincipal(req: ExRequest, tokens: TokenService): Promise<Principal | null> {
  return (await requestIdentity(req, tokens)).principal;
}

/** As requestPrincipal, with whether a refused token is a revoked map key (for the 401's message). */
export function requestIdentity(req: ExRequest, tokens: TokenService): Promise<Identity> {
  const memo = memoOf(req);
  if (!memo.presented) return Promise.resolve({ principal: null, revoked: false });
  const identity = (memo.identity ??= tokens.identify(memo.presented.token, memo.presented.hash));
  // A failed lookup (database down) is not remembered: a later step may try again and answer 503 itself.
  identity.catch(() => {
    if (memo.identity === identity) memo.identity = undefined;
  });
  return identity;
}

/**
 * The 401 for a request an endpoint that takes `accepts` refuses: says which token the endpoint
 * takes, and what the request gave instead as far as that may be told (src/auth/token-refusal.ts).
 * `identity` is the request's, when its token was resolved.
 */
export function requestRefused(req: ExRequest, accepts: readonly Principal['kind'][], identity?: Identity): UnauthorizedError {
  const presented = memoOf(req).presented;
  if (presented) return tokenRefused(accepts, { as: 'token', token: presented.token, identity: identity ?? { principal: null, revoked: false } });
  return tokenRefused(accepts, req.headers.authorization?.trim() ? { as: 'malformed', where: 'header' } : { as: 'none' });
}
