import type { Db } from '../db/db.js';
import type { Outbox } from '../events/outbox.js';
import { MapContentService } from './map-content.service.js';
import { MapReadService } from './map-read/map-read.service.js';
import { SystemsService } from './systems/systems.service.js';
import { ConnectionsService } from './connections/connections.service.js';
import { SignaturesService } from './signatures/signatures.service.js';
import { SignatureLinksService } from './signatures/signature-links.service.js';
import { AuditService } from './audit/audit.service.js';
import { RallyPointsService } from './rally-points/rally-points.service.js';
import { StructuresService } from './structures/structures.service.js';
import { KillsService } from './kills/kills.service.js';
import { ActivityService } from './activity/activity.service.js';
import { TrackingService } from './tracking/tracking.service.js';
import { MapRoutesService } from './routes/map-routes.service.js';
import { RouteGraphSource } from '../static-data/routes/route-graph-source.js';

/** The services of map content, one per resource, on one root `Db`. */
export interface MapServices {
  /** The `/api/map/*` summaries (and the map's ACL list for the ACL controller). */
  mapData: MapReadService;
  /** Seeding writes (demo, test factories, benchmarks). */
  mapContent: MapContentService;
  systems: SystemsService;
  connections: ConnectionsService;
  signatures: SignaturesService;
  signatureLinks: SignatureLinksService;
  audit: AuditService;
  rallyPoints: RallyPointsService;
  structures: StructuresService;
  kills: KillsService;
  activity: ActivityService;
  tracking: TrackingService;
  /** Routes over the stargates and the map's connections. */
  routes: MapRoutesService;
}

/** `graphs`: the process's route graph, shared with the route finder of the static data. */
export function createMapServices(db: Db, outbox: Outbox, graphs = new RouteGraphSource(db)): MapServices {
  return {
    mapData: new MapReadService(db),
    mapContent: new MapContentService(db, outbox),
    systems: new SystemsService(db, outbox),
    connections: new ConnectionsService(db, outbox),
    signatures: new SignaturesService(db, outbox),
    signatureLinks: new SignatureLinksService(db, outbox),
    audit: new AuditService(db),
    rallyPoints: new RallyPointsService(db, outbox),
    structures: new StructuresService(db),
    kills: new KillsService(db, outbox),
    activity: new ActivityService(db),
    tracking: new TrackingService(db, outbox),
    routes: new MapRoutesService(db, graphs),
  };
}
