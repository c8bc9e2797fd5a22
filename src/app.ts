import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import swaggerUi from 'swagger-ui-express';
import { ValidateError } from '@tsoa/runtime';
import { RegisterRoutes } from './api/generated/routes.js';
import { publishedOpenapi } from './api/openapi.js';
import type { AppDeps } from './api/deps.js';
import { AppError, BadRequestError, errorBody, toAppError, ValidationError, type ErrorDetail } from './errors.js';
import { acceptedRequestId, redactUrl } from './log.js';
import { consolePage } from './console/console-page.js';
import { serveConsole } from './console/console-assets.js';
import { FAVICON_URL, serveFavicons } from './console/favicon.js';
import { featureGates } from './api/feature-gates.js';
import { keyBeforeBody } from './api/key-before-body.js';
import { mapReadCache } from './api/map-read-cache.js';
import { keyProfileShapes } from './api/key-profile.js';
import { validationDetails } from './api/validation-details.js';
import { installDateTimeValidation } from './api/date-time.js';
import { bodyLimitFor, bracketQueryName, invisibleInName, MAX_NESTING, nestedTooDeeply } from './api/request-shape.js';

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

function tsoaDetails(err: ValidateError): ErrorDetail[] {
  return validationDetails(err.fields);
}

interface RouteInfo {
  match: (path: string) => boolean;
  methods: string[];
}

/** Known routes, to answer 405 with `Allow` for a known path with another method. */
function routeTable(router: Router): RouteInfo[] {
  const table: RouteInfo[] = [];
  for (const layer of (router as unknown as { stack: { route?: { methods: Record<string, boolean> }; match: (p: string) => boolean }[] }).stack) {
    if (!layer.route) continue;
    const methods = Object.keys(layer.route.methods)
      .filter((m) => m !== '_all')
      .map((m) => m.toUpperCase());
    table.push({ match: (p) => layer.match(p), methods });
  }
  return table;
}

/** Builds the express app; never listens (main.ts does). */
export function createApp(deps: AppDeps): express.Express {
  installDateTimeValidation();
  const app = express();
  app.locals.deps = deps;
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustedProxies.length ? deps.config.trustedProxies : false);
  app.set('etag', false);

  // Request id, access log and metrics.
  app.use((req, res, next) => {
    const id = acceptedRequestId(req.headers['x-request-id'], deps.config.adminToken) ?? randomUUID();
    res.setHeader('x-request-id', id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (res.locals.route as string | undefined) ?? (req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched');
      const labels = { method: req.method, route, status: String(res.statusCode) };
      deps.metrics.httpRequests.inc(labels);
      deps.metrics.httpDuration.observe(labels, seconds);
      // 503 is an expected answer while a dependency is down (logged once as a warning below).
      const level = res.statusCode >= 500 && res.statusCode !== 503 ? 'error' : res.statusCode === 503 ? 'warn' : 'info';
      if (req.path !== '/healthz' && req.path !== '/readyz' && req.path !== '/metrics') {
        deps.log[level](
          { requestId: id, method: req.method, url: redactUrl(req.originalUrl), status: res.statusCode, durationMs: Math.round(seconds * 1000) },
          'request',
        );
      }
    });
    next();
  });

  serveFavicons(app);
  // The event console: the live map and the map's events in a browser (src/console/).
  serveConsole(app, consolePage());

  // A person who opens the server's address lands in the API explorer.
  app.get('/', (_req, res) => {
    res.locals.route = '/';
    res.redirect(302, '/swaggerui');
  });
  app.get('/healthz', (_req, res) => {
    res.locals.route = '/healthz';
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    res.locals.route = '/readyz';
    const checks = await deps.checkReady().catch(() => ({ database: false, redis: false }));
    const ready = checks.database && checks.redis !== false;
    res.status(ready ? 200 : 503).json({ ready, checks });
  });
  // On the ops port always; on the public port only when asked (every route's series, no rate limit).
  if (deps.config.metricsPublic) {
    app.get('/metrics', async (_req, res) => {
      res.locals.route = '/metrics';
      res.setHeader('content-type', deps.metrics.registry.contentType);
      res.send(await deps.metrics.registry.metrics());
    });
  }

  app.get('/api/openapi.json', (_req, res) => {
    res.locals.route = '/api/openapi.json';
    res.json(publishedOpenapi());
  });
  app.use(
    '/swaggerui',
    (req: Request, res: Response, next: NextFunction) => {
      res.locals.route = '/swaggerui';
      // swagger-ui-dist's own start-up script (it loads the Petstore example); the explorer uses swagger-ui-init.js.
      if (req.path === '/swagger-initializer.js') return next(new AppError(404, 'not_found', 'Not found'));
      next();
    },
    swaggerUi.serve,
    swaggerUi.setup(undefined, {
      customSiteTitle: 'mapintel API explorer',
      customfavIcon: FAVICON_URL,
      swaggerOptions: { url: '/api/openapi.json', persistAuthorization: true, displayRequestDuration: true },
    }),
  );

  app.use('/api', deps.rateLimiter.middleware);
  app.use(featureGates(deps.config));
  app.use(keyBeforeBody(deps.tokens));

  const router = express.Router();
  RegisterRoutes(router);
  const routes = routeTable(router);
  const allowedMethods = (path: string): string[] => {
    const methods = new Set(routes.filter((r) => r.match(path)).flatMap((r) => r.methods));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods];
  };
  // A request no route takes (an unknown path, or a method its path does not allow) answers 404 or 405
  // below whatever it carries: its body is neither checked nor parsed.
  const routed = (req: Request): boolean => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    return routes.some((r) => r.methods.includes(method) && r.match(req.path));
  };

  // One parser per body limit: the batch routes take SERVICE_MAX_BODY_BYTES, single edits less
  // (src/api/request-shape.ts). A body over its route's limit is refused (413) from its Content-Length
  // before it is read, and one nested too deeply (400) from its bytes before it is parsed.
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
  // Writes must be JSON; GET/DELETE without a body may carry any content type (clients send one).
  // `Content-Length: 0` is no body: body-parser would read it as `{}`, so an empty write to an endpoint
  // that needs a body would pass as an empty object.
  app.use((req, res, next) => {
    if (!hasBody(req) || !routed(req)) return next();
    if (!req.is('application/json')) return next(new AppError(415, 'unsupported_media_type', 'Request body must be application/json'));
    parseJson(bodyLimitFor(req.method, req.path, deps.config.maxBodyBytes))(req, res, next);
  });
  app.use((req, _res, next) => {
    // Path parameters are decoded later, by the router: a NUL there (%00) is refused here too.
    const bad =
      findBadText(req.body, '') ??
      findBadText(req.query, '') ??
      (/%00/.test(req.path) ? { field: 'path', message: BAD_TEXT_MESSAGE } : undefined) ??
      bracketQueryName(req.query as Record<string, unknown>) ??
      invisibleInName(req.body);
    if (bad) {
      next(new ValidationError([bad]));
      return;
    }
    next();
  });

  // OPTIONS answers with Allow (no body) instead of the router's plain-text default.
  app.use((req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    const allowed = allowedMethods(req.path);
    if (!allowed.length) return next();
    res.setHeader('Allow', [...allowed, 'OPTIONS'].join(', '));
    res.status(204).end();
  });
  // Map reads: ETag, If-None-Match and the per-process cache, in front of the routes that compute them.
  app.use(mapReadCache({ tokens: deps.tokens, versions: deps.readVersions, cache: deps.readCache, metrics: deps.metrics }));
  // After the cache: a reference-profile key's answer is shaped before the cache hashes and keeps it.
  app.use('/api', keyProfileShapes());
  app.use(router);

  app.use((req, res, next) => {
    const allowed = allowedMethods(req.path);
    if (allowed.length) {
      res.setHeader('Allow', allowed.join(', '));
      next(new AppError(405, 'method_not_allowed', `Method ${req.method} is not allowed on this path`));
      return;
    }
    next(new AppError(404, 'not_found', 'Not found'));
  });

  // The one error middleware: AppError → its JSON; tsoa validation → 400; infrastructure → 4xx/503; else 500.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    let appErr: AppError | undefined;
    if (err instanceof ValidateError) appErr = new ValidationError(tsoaDetails(err));
    else appErr = toAppError(err);
    if (!appErr) {
      deps.log.error({ err, method: req.method, url: redactUrl(req.originalUrl) }, 'unhandled error');
      appErr = new AppError(500, 'internal_error', 'Internal server error');
    } else if (appErr.status === 503) {
      deps.log.warn({ err: { message: (err as Error)?.message }, url: redactUrl(req.originalUrl) }, 'dependency unavailable');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [k, v] of Object.entries(appErr.headers)) res.setHeader(k, v);
    res.status(appErr.status).json(errorBody(appErr));
  });

  return app;
}
