import express, { type Router } from 'express';
import type { Config } from '../common/config.js';
import { AppError, ForbiddenError } from '../common/errors.js';

/**
 * The event stream (spec 4.5) and webhook management (spec 4.6) are switched by operator settings; a
 * server with the feature off answers 403 (spec 7) whoever asks. The stream itself is served by the
 * stream role, which claims its path on the public port before this app sees it: a process without
 * that role answers 503 `stream_not_served`. Webhook management, switched on, goes on to its routes.
 */
export function featureGates(config: Config): Router {
  const router = express.Router();
  const gate =
    (enabled: boolean, code: string, offMessage: string, feature: string): express.RequestHandler =>
    (_req, res, next) => {
      if (!enabled) {
        res.locals.route = feature === 'sse' ? '/api/maps/:map_id/events/stream' : '/api/maps/:map_id/webhooks';
        return next(new ForbiddenError(code, offMessage));
      }
      if (feature !== 'sse') return next();
      res.locals.route = '/api/maps/:map_id/events/stream';
      next(
        new AppError(503, 'stream_not_served', 'This process does not serve the event stream (it runs without the stream role)', undefined, {
          'Retry-After': '5',
        }),
      );
    };
  router.all('/api/maps/:map_id/events/stream', gate(config.sseEnabled, 'sse_disabled', 'Server-Sent Events are disabled on this server', 'sse'));
  const webhooks = gate(config.webhooksEnabled, 'webhooks_disabled', 'Webhooks are disabled on this server', 'webhooks');
  router.all('/api/maps/:map_id/webhooks', webhooks);
  router.all('/api/maps/:map_id/webhooks/{*rest}', webhooks);
  return router;
}
