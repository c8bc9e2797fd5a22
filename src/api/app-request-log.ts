import type { RequestHandler } from 'express';
import { randomUUID } from 'node:crypto';
import type { AppDeps } from './deps.js';
import { acceptedRequestId, redactUrl } from '../common/log.js';

/** The first stage: a request id (the client's when it is acceptable), then one access log line and the HTTP metrics per answer. */
export function requestLog(deps: AppDeps): RequestHandler {
  return (req, res, next) => {
    const id = acceptedRequestId(req.headers['x-request-id'], deps.config.adminToken) ?? randomUUID();
    res.setHeader('x-request-id', id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (res.locals.route as string | undefined) ?? (req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched');
      const labels = { method: req.method, route, status: String(res.statusCode) };
      deps.metrics.httpRequests.inc(labels);
      deps.metrics.httpDuration.observe(labels, seconds);
      // 503 is an expected answer while a dependency is down (logged once as a warning by the error stage).
      const level = res.statusCode >= 500 && res.statusCode !== 503 ? 'error' : res.statusCode === 503 ? 'warn' : 'info';
      if (req.path !== '/healthz' && req.path !== '/readyz' && req.path !== '/metrics') {
        deps.log[level](
          { requestId: id, method: req.method, url: redactUrl(req.originalUrl), status: res.statusCode, durationMs: Math.round(seconds * 1000) },
          'request',
        );
      }
    });
    next();
  };
}
