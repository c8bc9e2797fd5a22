/**
 * The API explorer (`/swaggerui/`): Swagger UI from swagger-ui-dist (through swagger-ui-express's static
 * files), started by a script file of the service's own (assets/explorer/explorer-init.js) on a page of
 * its own, so that the page needs no inline script or style under its Content-Security-Policy
 * (src/console/page-headers.ts). swagger-ui-express's own page carries inline styles and its start-up
 * options (`persistAuthorization`) inline; it is not used.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Express, NextFunction, Request, Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import { AppError } from '../common/errors.js';
import { FAVICON_URL } from '../console/favicon.js';
import { pageHeaders } from '../console/page-headers.js';

const ASSETS = path.resolve(import.meta.dirname, '../../assets/explorer');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mapintel API explorer</title>
<link rel="icon" href="${FAVICON_URL}" type="image/svg+xml">
<link rel="stylesheet" href="/swaggerui/swagger-ui.css">
<link rel="stylesheet" href="/swaggerui/explorer.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/swaggerui/swagger-ui-bundle.js"></script>
<script src="/swaggerui/explorer-init.js"></script>
</body>
</html>
`;

/** The files of ours under /swaggerui/, with their content types, read once at start. */
const OWN: [name: string, type: string][] = [
  ['explorer-init.js', 'text/javascript; charset=utf-8'],
  ['explorer.css', 'text/css; charset=utf-8'],
];

/** swagger-ui-dist's start-up files, which load the Petstore example or options inline: not served. */
const UNUSED = new Set(['/swagger-initializer.js', '/swagger-ui-init.js', '/index.html', '/package.json']);

export function serveExplorer(app: Express): void {
  app.use('/swaggerui', pageHeaders());
  app.get('/swaggerui', (req, res, next) => {
    res.locals.route = '/swaggerui';
    // The page's own URLs are absolute, but deep links and bookmarks use the form with a slash.
    if (req.originalUrl.split('?')[0] === '/swaggerui') return res.redirect(301, '/swaggerui/');
    next();
  });
  app.get('/swaggerui/', (_req, res) => {
    res.locals.route = '/swaggerui';
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.setHeader('cache-control', 'no-cache');
    res.send(PAGE);
  });
  for (const [name, type] of OWN) {
    const body = readFileSync(path.join(ASSETS, name));
    app.get(`/swaggerui/${name}`, (_req, res) => {
      res.locals.route = '/swaggerui';
      res.setHeader('content-type', type);
      res.setHeader('cache-control', 'no-cache');
      res.send(body);
    });
  }
  app.use(
    '/swaggerui',
    (req: Request, res: Response, next: NextFunction) => {
      res.locals.route = '/swaggerui';
      if (UNUSED.has(req.path)) return next(new AppError(404, 'not_found', 'Not found'));
      next();
    },
    swaggerUi.serve,
  );
}
