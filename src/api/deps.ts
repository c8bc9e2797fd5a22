import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request as ExRequest } from 'express';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { TokenService } from './token.service.js';
import type { MapDataService } from '../maps/map-data.service.js';
import type { MapEditService } from '../maps/map-edit.service.js';
import type { SignatureService } from '../maps/signature.service.js';
import type { StructureService } from '../maps/structure.service.js';
import type { AclService } from '../acls/acl.service.js';
import type { AdminService } from '../admin/admin.service.js';
import type { StaticInfoService } from '../static-data/static-info.service.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import type { EventLogService } from '../events/events.service.js';
import type { Principal } from './principal.js';
import { UnauthorizedError } from '../errors.js';

/** Everything the HTTP layer needs, built once by the api role (src/api/api.role.ts) and handed to createApp(). */
export interface AppDeps {
  config: Config;
  log: Logger;
  metrics: Metrics;
  /** A fresh EntityManager (one per request). */
  em: () => EntityManager;
  tokens: TokenService;
  mapData: MapDataService;
  /** Editing API writes: systems, connections, kills, tracking, activity. */
  mapEdit: MapEditService;
  signatures: SignatureService;
  structures: StructureService;
  acls: AclService;
  admin: AdminService;
  staticInfo: StaticInfoService;
  rateLimiter: RateLimiter;
  eventLog: EventLogService;
  /** Readiness of PostgreSQL and Redis, for /readyz. */
  checkReady: () => Promise<{ database: boolean; redis: boolean | null }>;
}

export function depsOf(req: ExRequest): AppDeps {
  return req.app.locals.deps as AppDeps;
}

export function principalOf<K extends Principal['kind']>(req: ExRequest, kind: K): Extract<Principal, { kind: K }> {
  const p = (req as ExRequest & { user?: Principal }).user;
  if (!p || p.kind !== kind) throw new UnauthorizedError();
  return p as Extract<Principal, { kind: K }>;
}
