import type { Request as ExRequest } from 'express';
import { depsOf } from './deps.js';
import { presentedToken, requestIdentity, requestRefused } from '../auth/request-token.js';
import type { Principal } from '../http/principal.js';

/** Security scheme names used in @Security(); each is an HTTP bearer scheme in the OpenAPI spec. */
export type SecurityName = 'map_key' | 'acl_key' | 'any_key' | 'admin_token';

/**
 * tsoa authentication hook. The token's shape is checked first, so a missing or malformed token is a
 * 401 before any lookup; the map or ACL named by the request is checked later, in the services.
 * The token is resolved once per request (src/auth/request-token.ts).
 */
export async function expressAuthentication(request: ExRequest, securityName: string, _scopes?: string[]): Promise<Principal> {
  const { tokens } = depsOf(request);
  const accepts = KINDS[securityName as SecurityName] ?? [];
  // Malformed or missing: 401 before any lookup. Otherwise the principal the request's earlier steps
  // resolved (rate limiter, 401-before-body), or one resolution now.
  if (!presentedToken(request)) throw requestRefused(request, accepts);
  const identity = await requestIdentity(request, tokens);
  if (identity.principal && accepts.includes(identity.principal.kind)) return identity.principal;
  throw requestRefused(request, accepts, identity);
}

/** Who may use each security scheme. */
export const KINDS: Record<SecurityName, readonly Principal['kind'][]> = {
  map_key: ['map_key'],
  acl_key: ['acl_key'],
  any_key: ['map_key', 'acl_key'],
  admin_token: ['admin'],
};
