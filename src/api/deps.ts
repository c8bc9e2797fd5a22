import type { Request as ExRequest } from 'express';
import type { Config } from '../common/config.js';
import type { Logger } from '../common/log.js';
import type { Metrics } from '../common/metrics.js';
import type { ApiServices } from './services.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';

/** Everything the HTTP layer needs, built once by the api role (src/api/api.role.ts) and handed to createApp(). */
export interface AppDeps extends Omit<ApiServices, 'mapContent'> {
  config: Config;
  log: Logger;
  metrics: Metrics;
  rateLimiter: RateLimiter;
  /** Readiness of PostgreSQL and Redis, for /readyz. */
  checkReady: () => Promise<{ database: boolean; redis: boolean | null }>;
}

export function depsOf(req: ExRequest): AppDeps {
  return req.app.locals.deps as AppDeps;
}
