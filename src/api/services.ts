import type { Core } from '../core/core.js';
import { TokenService } from '../auth/token.service.js';
import { createMapServices, type MapServices } from '../maps/map-services.js';
import { AclService } from '../acls/acl.service.js';
import { AdminService } from '../admin/admin.service.js';
import { MapDuplicateService } from '../admin/duplicate/map-duplicate.service.js';
import { StaticInfoService } from '../static-data/static-info.service.js';
import { ClosestRoutesService } from '../static-data/routes/closest-routes.service.js';
import { RouteGraphSource } from '../static-data/routes/route-graph-source.js';
import { EventLogService } from '../maps/event-log/event-log.service.js';
import { dbOf } from '../db/db.js';
import { CharactersService } from '../characters/characters.service.js';
import { WebhookService } from '../webhooks/webhook.service.js';
import { WebhookSender } from '../webhooks/sender.js';
import { MapReadCache, MapReadVersions } from '../maps/map-read/read-cache.js';

/** The capability services of the API (and of the demo seeding, which writes through the same ones). */
export interface ApiServices extends MapServices {
  tokens: TokenService;
  acls: AclService;
  admin: AdminService;
  /** POST /api/maps/{map_id}/duplicate (the map owner's key). */
  duplicates: MapDuplicateService;
  staticInfo: StaticInfoService;
  /** POST /route/findClosest (no key), over the same route graph as the map routes. */
  closestRoutes: ClosestRoutesService;
  eventLog: EventLogService;
  characters: CharactersService;
  webhooks: WebhookService;
  /** Serialised map reads of this process (src/api/map-read-cache.ts). */
  readCache: MapReadCache;
  readVersions: MapReadVersions;
}

export function createApiServices(core: Core): ApiServices {
  const db = dbOf(core.db.orm);
  const tokens = new TokenService(db, core.secrets.adminToken, core.metrics.tokenLookups);
  const routeGraphs = new RouteGraphSource(db);
  return {
    tokens,
    ...createMapServices(db, core.outbox, routeGraphs),
    acls: new AclService(db, core.secrets.box, core.outbox),
    admin: new AdminService(db, core.outbox, () => tokens.invalidate()),
    duplicates: new MapDuplicateService(db),
    staticInfo: new StaticInfoService(db),
    closestRoutes: new ClosestRoutesService(routeGraphs),
    eventLog: new EventLogService(db),
    characters: new CharactersService(db, core.config.characterApiDisabled),
    webhooks: new WebhookService(db, core.secrets.box, {
      allowInsecureUrls: core.config.webhooksAllowInsecureUrls,
      eventsRetentionMs: core.config.eventsRetentionDays * 86_400_000,
      sender: new WebhookSender({ timeoutMs: core.config.webhookTimeoutMs, allowInsecure: core.config.webhooksAllowInsecureUrls }),
    }),
    readCache: new MapReadCache(core.config.readCacheBytes),
    readVersions: new MapReadVersions(db),
  };
}
