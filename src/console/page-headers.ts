/**
 * The headers of the pages a browser opens (`/console`, `/swaggerui/` and everything under them):
 * scripts, styles, images and requests from the service itself only, never framed by another site,
 * no content sniffing. Every route under those prefixes gets them from `pageHeaders()`, so a view or
 * asset added there later is covered without a change here (decision 0013).
 */
import type { RequestHandler } from 'express';

/**
 * The Content-Security-Policy of the pages. No inline scripts or styles anywhere (`style-src 'self'`
 * also refuses `style` attributes in markup; styles set from a script, as Cytoscape.js and the
 * explorer do, are not affected). Images may be `data:` URLs (the explorer's icons are), nothing else
 * from outside.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Sets the pages' security headers on every response under the path it is mounted at. */
export function pageHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('content-security-policy', PAGE_CSP);
    res.setHeader('x-frame-options', 'DENY');
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    next();
  };
}
