/**
 * The event console's page and scripts: `/console`, and under `/console/assets/` the page's own
 * scripts (assets/console/) with Cytoscape.js, the graph library that draws the live map, served from
 * the service's own dependencies (no CDN: the page works offline, like the API explorer).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Express } from 'express';
import { pageHeaders } from './page-headers.js';

const ASSETS = path.resolve(import.meta.dirname, '../../assets/console');
const require = createRequire(import.meta.url);

/** Each script the page loads, by its URL, with the file it is read from; in the order the page loads them. */
const FILES: [url: string, file: () => string][] = [
  ['/console/assets/cytoscape.min.js', () => require.resolve('cytoscape/dist/cytoscape.min.js')],
  ['/console/assets/live-map-api.js', () => path.join(ASSETS, 'live-map-api.js')],
  ['/console/assets/live-map-style.js', () => path.join(ASSETS, 'live-map-style.js')],
  ['/console/assets/live-map-events.js', () => path.join(ASSETS, 'live-map-events.js')],
  ['/console/assets/live-map-labels.js', () => path.join(ASSETS, 'live-map-labels.js')],
  ['/console/assets/live-map.js', () => path.join(ASSETS, 'live-map.js')],
  ['/console/assets/console.js', () => path.join(ASSETS, 'console.js')],
  ['/console/assets/webhooks.js', () => path.join(ASSETS, 'webhooks.js')],
];

export const CONSOLE_SCRIPTS: readonly string[] = FILES.map(([url]) => url);

/** The page's style sheet (its styles are a file, not inline, under the page's Content-Security-Policy). */
export const CONSOLE_STYLES = '/console/assets/console.css';

/**
 * Serves /console, its scripts and its style sheet (GET and HEAD), read once at start. Everything under
 * /console gets the pages' security headers (page-headers.ts), whatever route serves it.
 */
export function serveConsole(app: Express, html: string): void {
  app.use('/console', pageHeaders());
  const styles = readFileSync(path.join(ASSETS, 'console.css'));
  app.get(CONSOLE_STYLES, (_req, res) => {
    res.locals.route = CONSOLE_STYLES;
    res.setHeader('content-type', 'text/css; charset=utf-8');
    res.setHeader('cache-control', 'no-cache');
    res.send(styles);
  });
  app.get('/console', (_req, res) => {
    res.locals.route = '/console';
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.setHeader('cache-control', 'no-cache');
    res.send(html);
  });
  for (const [url, file] of FILES) {
    const body = readFileSync(file());
    app.get(url, (_req, res) => {
      res.locals.route = url;
      res.setHeader('content-type', 'text/javascript; charset=utf-8');
      // Revalidated on each load (express sends an ETag): a new version of the service is picked up at once.
      res.setHeader('cache-control', 'no-cache');
      res.send(body);
    });
  }
}
