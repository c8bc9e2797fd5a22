import type express from 'express';
import type { NextFunction, Request, Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { AppDeps } from './deps.js';
import { publishedOpenapi } from './openapi.js';
import { AppError } from '../common/errors.js';
import { consolePage } from '../console/console-page.js';
import { serveConsole } from '../console/console-assets.js';
import { FAVICON_URL, serveFavicons } from '../console/favicon.js';

/**
 * What is not the API: the pages' icon, the event console and live map, the redirect to the explorer,
 * the probes, /metrics when asked for on this port, the OpenAPI document and the API explorer.
 */
export function servePages(app: express.Express, deps: AppDeps): void {
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
}
