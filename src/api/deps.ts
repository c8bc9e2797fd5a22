import type { Request as ExRequest } from 'express';
import type { Config } from '../common/config.js';
import type { Logger } from '../common/log.js';
import type { Metrics } from '../common/metrics.js';
import type { ApiServices } from './services.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import type { Principal } from '../http/principal.js';
import { UnauthorizedError } from '../common/errors.js';

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

/** The caller as authentication established it (401 when none). */
export function principalIn(req: ExRequest): Principal {
  const p = (req as ExRequest & { user?: Principal }).user;
  if (!p) throw new UnauthorizedError();
  return p;
}

export function principalOf<K extends Principal['kind']>(req: ExRequest, kind: K): Extract<Principal, { kind: K }> {
  const p = (req as ExRequest & { user?: Principal }).user;
  if (!p || p.kind !== kind) throw new UnauthorizedError();
  return p as Extract<Principal, { kind: K }>;
}
