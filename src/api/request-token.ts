import type { Request as ExRequest } from 'express';
import { hashToken } from '../crypto.js';
import type { Principal } from './principal.js';
import { TokenService } from './token.service.js';

/** A request's bearer token with its hash, computed once. */
export interface PresentedToken {
  token: string;
  hash: string;
}

interface Memo {
  presented: PresentedToken | undefined;
  principal?: Promise<Principal | null>;
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
export function requestPrincipal(req: ExRequest, tokens: TokenService): Promise<Principal | null> {
  const memo = memoOf(req);
  if (!memo.presented) return Promise.resolve(null);
  memo.principal ??= tokens.resolveAny(memo.presented.token, memo.presented.hash);
  // A failed lookup (database down) is not remembered: a later step may try again and answer 503 itself.
  memo.principal.catch(() => {
    memo.principal = undefined;
  });
  return memo.principal;
}
