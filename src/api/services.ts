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
import { dbOf, snapshotAware } from '../db/db.js';
import { CharactersService } from '../characters/characters.service.js';
import { WebhookService } from '../webhooks/webhook.service.js';
import { WebhookSender } from '../webhooks/sender.js';
import { MapReadCache, MapReadVersions } from '../maps/map-read/read-cache.js';
import { localPresence, PresenceService, RedisPresence } from '../stream/presence.js';

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
  /** GET /api/maps/{map_id}/presence: the map's stream connections on every stream process. */
  presence: PresenceService;
}

export function createApiServices(core: Core): ApiServices {
  const root = dbOf(core.db.orm);
  // Keys are identified outside any read snapshot; everything else reads through the snapshot a map
  // read is computed in when one is open (src/api/map-read-cache.ts), else as before.
  const tokens = new TokenService(root, core.secrets.adminToken, core.metrics.tokenLookups);
  const db = snapshotAware(root);
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
    readVersions: new MapReadVersions(root),
    presence: new PresenceService(
      db,
      (
        (shared) => () =>
          shared ?? localPresence(core)
      )(core.redis ? new RedisPresence(core.redis.commands, core.config.redisKeyPrefix) : undefined),
    ),
  };
}
