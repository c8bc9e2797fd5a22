import type { Request, RequestHandler, Router } from 'express';
import { AppError } from '../common/errors.js';

interface RouteInfo {
  match: (path: string) => boolean;
  methods: string[];
}

/**
 * The generated router's routes, so that the stages before it can tell a routed request (its body is
 * read and checked) from one no route takes (404, or 405 with `Allow`, whatever it carries).
 */
export class RouteTable {
  private readonly routes: RouteInfo[] = [];

  constructor(router: Router) {
    for (const layer of (router as unknown as { stack: { route?: { methods: Record<string, boolean> }; match: (p: string) => boolean }[] }).stack) {
      if (!layer.route) continue;
      const methods = Object.keys(layer.route.methods)
        .filter((m) => m !== '_all')
        .map((m) => m.toUpperCase());
      this.routes.push({ match: (p) => layer.match(p), methods });
    }
  }

  /** Methods some route takes on `path` (HEAD wherever GET is). */
  allowedMethods(path: string): string[] {
    const methods = new Set(this.routes.filter((r) => r.match(path)).flatMap((r) => r.methods));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods];
  }

  /** Whether a route takes this request's method and path. */
  routed(req: Request): boolean {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    return this.routes.some((r) => r.methods.includes(method) && r.match(req.path));
  }

  /** OPTIONS answers with Allow (no body) instead of the router's plain-text default. */
  options(): RequestHandler {
    return (req, res, next) => {
      if (req.method !== 'OPTIONS') return next();
      const allowed = this.allowedMethods(req.path);
      if (!allowed.length) return next();
      res.setHeader('Allow', [...allowed, 'OPTIONS'].join(', '));
      res.status(204).end();
    };
  }

  /** After the router: 405 with `Allow` for a known path, else 404. */
  fallback(): RequestHandler {
    return (req, res, next) => {
      const allowed = this.allowedMethods(req.path);
      if (allowed.length) {
        res.setHeader('Allow', allowed.join(', '));
        next(new AppError(405, 'method_not_allowed', `Method ${req.method} is not allowed on this path`));
        return;
      }
      next(new AppError(404, 'not_found', 'Not found'));
    };
  }
}
