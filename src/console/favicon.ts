/**
 * The service's icon, for the pages it serves (the event console, the API explorer): an SVG the
 * pages link with `<link rel="icon">`, and the same picture at /favicon.ico, which browsers ask for
 * whatever a page links (and for answers that are not pages, such as JSON opened in a tab).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';

const ASSETS = path.resolve(import.meta.dirname, '../../assets');

/** The icon the pages link. */
export const FAVICON_URL = '/favicon.svg';

/** Serves /favicon.svg and /favicon.ico (GET and HEAD), cached by browsers for a day. */
export function serveFavicons(app: Express): void {
  const icons = [
    { route: FAVICON_URL, type: 'image/svg+xml', body: readFileSync(path.join(ASSETS, 'favicon.svg')) },
    // A 32×32 PNG in an ICO container: every browser reads it.
    { route: '/favicon.ico', type: 'image/x-icon', body: readFileSync(path.join(ASSETS, 'favicon.ico')) },
  ];
  for (const icon of icons) {
    app.get(icon.route, (_req, res) => {
      res.locals.route = icon.route;
      res.setHeader('content-type', icon.type);
      res.setHeader('cache-control', 'public, max-age=86400');
      res.send(icon.body);
    });
  }
}
