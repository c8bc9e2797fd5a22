import express from 'express';
import { RegisterRoutes } from './generated/routes.js';
import type { AppDeps } from './deps.js';
import { installDateTimeValidation } from '../http/date-time.js';
import { featureGates } from './feature-gates.js';
import { keyBeforeBody } from './key-before-body.js';
import { mapReadCache } from './map-read-cache.js';
import { keyProfileShapes } from '../http/key-profile.js';
import { requestLog } from './app-request-log.js';
import { servePages } from './app-pages.js';
import { RouteTable } from './app-routes.js';
import { checkInput, parseBody } from './app-body.js';
import { errorHandler } from './app-errors.js';

/**
 * Builds the api role's express app from its stages, in order; never listens (the core's public HTTP
 * server does):
 * 1. request id, access log and metrics (app-request-log.ts);
 * 2. pages: icon, console, probes, OpenAPI document, explorer (app-pages.ts);
 * 3. under /api (the rate limit also under /route): rate limit, feature gates, the key before the body (rate limiter, feature-gates.ts,
 *    key-before-body.ts);
 * 4. the body of routed requests, read within its route's limit, and input checks (app-body.ts);
 * 5. OPTIONS, the map read cache, a reference-profile key's shapes, the generated routes, then 404/405
 *    (app-routes.ts, map-read-cache.ts, key-profile.ts);
 * 6. the one error handler (app-errors.ts).
 */
export function createApp(deps: AppDeps): express.Express {
  installDateTimeValidation();
  const app = express();
  app.locals.deps = deps;
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustedProxies.length ? deps.config.trustedProxies : false);
  app.set('etag', false);

  app.use(requestLog(deps));
  servePages(app, deps);

  // The route finder of the reference (/route/findClosest) needs no key either; it counts like /api.
  app.use(['/api', '/route'], deps.rateLimiter.middleware);
  app.use(featureGates(deps.config));
  app.use(keyBeforeBody(deps.tokens));

  const router = express.Router();
  RegisterRoutes(router);
  const routes = new RouteTable(router);
  app.use(parseBody(deps, routes));
  app.use(checkInput());

  app.use(routes.options());
  // Map reads: ETag, If-None-Match and the per-process cache, in front of the routes that compute them.
  app.use(mapReadCache({ tokens: deps.tokens, versions: deps.readVersions, cache: deps.readCache, metrics: deps.metrics }));
  // After the cache: a reference-profile key's answer is shaped before the cache hashes and keeps it.
  app.use('/api', keyProfileShapes());
  app.use(router);
  app.use(routes.fallback());

  app.use(errorHandler(deps));
  return app;
}
