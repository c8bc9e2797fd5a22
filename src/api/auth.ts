import type { Request as ExRequest } from 'express';
import { depsOf } from './deps.js';
import { TokenService } from './token.service.js';
import type { Principal } from './principal.js';
import { UnauthorizedError } from '../errors.js';

/** Security scheme names used in @Security(); each is an HTTP bearer scheme in the OpenAPI spec. */
export type SecurityName = 'map_key' | 'acl_key' | 'any_key' | 'admin_token';

/**
 * tsoa authentication hook. The token's shape is checked first, so a missing or malformed token is a
 * 401 before any lookup; the map or ACL named by the request is checked later, in the services.
 */
export async function expressAuthentication(request: ExRequest, securityName: string, _scopes?: string[]): Promise<Principal> {
  const { tokens } = depsOf(request);
  const token = TokenService.parseBearer(request.headers.authorization);
  switch (securityName as SecurityName) {
    case 'map_key':
      return tokens.authenticateMapKey(token);
    case 'acl_key':
      return tokens.authenticateAclKey(token);
    case 'any_key':
      return tokens.authenticateAnyKey(token);
    case 'admin_token':
      return tokens.authenticateAdmin(token);
    default:
      throw new UnauthorizedError();
  }
}
