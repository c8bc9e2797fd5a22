import type { RequestHandler } from 'express';
import { openapiSpec } from './openapi.js';
import type { Principal } from '../http/principal.js';
import type { TokenService } from '../auth/token.service.js';
import { KINDS, type SecurityName } from './auth.js';
import { presentedToken, requestIdentity, requestRefused } from '../auth/request-token.js';
import type { Identity } from '../auth/token.service.js';

interface SecuredOperation {
  method: string;
  pattern: RegExp;
  /** The express route template (`/api/acls/:id`), for the metrics label of an early 401. */
  route: string;
  /** Who may call it (the union of its security schemes' kinds). */
  accepts: Principal['kind'][];
}

/** Every operation of the generated OpenAPI document that needs a token, with a matcher for its path. */
function securedOperations(): SecuredOperation[] {
  const spec = openapiSpec() as unknown as { paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>> };
  const list: SecuredOperation[] = [];
  for (const [path, operations] of Object.entries(spec.paths)) {
    const source = path
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    // As the router matches: case-insensitive, with or without a trailing slash.
    const pattern = new RegExp(`^${source}/?$`, 'i');
    const route = path.replace(/\{([^}]+)\}/g, ':$1');
    for (const [method, operation] of Object.entries(operations)) {
      const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s)) as SecurityName[];
      if (!schemes.length) continue;
      list.push({ method: method.toUpperCase(), pattern, route, accepts: [...new Set(schemes.flatMap((s) => KINDS[s] ?? []))] });
    }
  }
  return list;
}

/**
 * Requests to an endpoint that needs a token are answered 401 before their body is read: without it
 * a stranger's 415 or broken JSON would be answered first, and a large nested body parsed at the
 * stranger's leisure. The token is resolved once per request (src/auth/request-token.ts): the rate
 * limiter has usually resolved it already, and the route's authentication reuses the result.
 * Paths and methods the API does not serve fall through to the usual 404/405.
 */
export function keyBeforeBody(tokens: TokenService): RequestHandler {
  const operations = securedOperations();
  return (req, res, next) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const operation = operations.find((o) => o.method === method && o.pattern.test(req.path));
    if (!operation) return next();
    const refuse = (identity?: Identity) => {
      res.locals.route = operation.route;
      next(requestRefused(req, operation.accepts, identity));
    };
    if (!presentedToken(req)) return refuse();
    requestIdentity(req, tokens).then(
      (identity) => (identity.principal && operation.accepts.includes(identity.principal.kind) ? next() : refuse(identity)),
      next,
    );
  };
}
