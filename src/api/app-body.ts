import express, { type Request, type RequestHandler } from 'express';
import { isUtf8 } from 'node:buffer';
import type { AppDeps } from './deps.js';
import type { RouteTable } from './app-routes.js';
import { AppError, BadRequestError, ValidationError, type ErrorDetail } from '../common/errors.js';
import { bodyLimitFor, bracketQueryName, invisibleInName, MAX_NESTING, nestedTooDeeply } from '../http/request-shape.js';

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** PostgreSQL rejects NUL in text; lone surrogates are not valid Unicode. Both are refused up front. */
// eslint-disable-next-line no-control-regex
const BAD_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const BAD_TEXT_MESSAGE = 'contains a NUL character or invalid Unicode';

const NESTING_MESSAGE = `is nested too deeply (at most ${MAX_NESTING} levels)`;

function findBadText(value: unknown, path: string, depth = 0): ErrorDetail | undefined {
  if (depth > MAX_NESTING) return { field: path || 'body', message: NESTING_MESSAGE };
  if (typeof value === 'string') return BAD_TEXT.test(value) ? { field: path || 'value', message: BAD_TEXT_MESSAGE } : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findBadText(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (BAD_TEXT.test(k)) return { field: `${path}${path ? '.' : ''}${k}`, message: BAD_TEXT_MESSAGE };
      const found = findBadText(v, `${path}${path ? '.' : ''}${k}`, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Reading the body of a routed request: one parser per body limit (the batch routes take
 * SERVICE_MAX_BODY_BYTES, single edits less: src/http/request-shape.ts). A body over its route's limit
 * is refused (413) from its Content-Length before it is read, one nested too deeply (400) from its
 * bytes before it is parsed. Writes must be JSON; GET/DELETE without a body may carry any content type
 * (clients send one). `Content-Length: 0` is no body: body-parser would read it as `{}`, so an empty
 * write to an endpoint that needs a body would pass as an empty object. A request no route takes is
 * left unread (it answers 404 or 405 whatever it carries).
 */
export function parseBody(deps: AppDeps, routes: RouteTable): RequestHandler {
  const parsers = new Map<number, RequestHandler>();
  const parseJson = (limit: number): RequestHandler => {
    let parser = parsers.get(limit);
    if (!parser) {
      parser = express.json({
        limit,
        strict: true,
        type: 'application/json',
        verify: (_req, _res, buf, encoding) => {
          // Invalid UTF-8 would otherwise be decoded to U+FFFD and stored silently.
          if (encoding === 'utf-8' && !isUtf8(buf)) throw new BadRequestError('invalid_json', 'Request body is not valid UTF-8');
          if (nestedTooDeeply(buf)) throw new ValidationError([{ field: 'body', message: NESTING_MESSAGE }]);
        },
      });
      parsers.set(limit, parser);
    }
    return parser;
  };
  return (req, res, next) => {
    if (!hasBody(req) || !routes.routed(req)) return next();
    if (!req.is('application/json')) return next(new AppError(415, 'unsupported_media_type', 'Request body must be application/json'));
    parseJson(bodyLimitFor(req.method, req.path, deps.config.maxBodyBytes))(req, res, next);
  };
}

/**
 * Text the routes never see: NUL or invalid Unicode anywhere in the body or query (and %00 in the path,
 * which the router decodes later), bracketed query names, invisible characters in names.
 */
export function checkInput(): RequestHandler {
  return (req, _res, next) => {
    const bad =
      findBadText(req.body, '') ??
      findBadText(req.query, '') ??
      (/%00/.test(req.path) ? { field: 'path', message: BAD_TEXT_MESSAGE } : undefined) ??
      bracketQueryName(req.query as Record<string, unknown>) ??
      invisibleInName(req.body);
    next(bad ? new ValidationError([bad]) : undefined);
  };
}
