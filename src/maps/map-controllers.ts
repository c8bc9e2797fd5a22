/** How each map controller is built from the app's services: it takes only the services it uses. */
import type { MapServices } from './map-services.js';
import { SystemsController } from './systems/systems.controller.js';
import { SystemEditsController } from './systems/system-edits.controller.js';
import { ConnectionsController } from './connections/connections.controller.js';
import { ConnectionEditsController } from './connections/connection-edits.controller.js';
import { SignaturesController } from './signatures/signatures.controller.js';
import { SignatureEditsController } from './signatures/signature-edits.controller.js';
import { SignatureLinksController } from './signatures/signature-links.controller.js';
import { AuditController } from './audit/audit.controller.js';
import { RallyPointsController } from './rally-points/rally-points.controller.js';
import { StructuresController } from './structures/structures.controller.js';
import { StructureEditsController } from './structures/structure-edits.controller.js';
import { TrackingController } from './tracking/tracking.controller.js';
import { TrackingEditsController } from './tracking/tracking-edits.controller.js';
import { KillsController } from './kills/kills.controller.js';
import { ActivityController } from './activity/activity.controller.js';
import { MapReadController } from './map-read/map-read.controller.js';
import { MapRoutesController } from './routes/map-routes.controller.js';

export const MAP_CONTROLLER_FACTORIES: [unknown, (s: Omit<MapServices, 'mapContent'>) => unknown][] = [
  [SystemsController, (s) => new SystemsController(s.systems)],
  [SystemEditsController, (s) => new SystemEditsController(s.systems)],
  [ConnectionsController, (s) => new ConnectionsController(s.connections)],
  [ConnectionEditsController, (s) => new ConnectionEditsController(s.connections)],
  [SignaturesController, (s) => new SignaturesController(s.signatures)],
  [SignatureEditsController, (s) => new SignatureEditsController(s.signatures)],
  [SignatureLinksController, (s) => new SignatureLinksController(s.signatureLinks)],
  [AuditController, (s) => new AuditController(s.audit)],
  [RallyPointsController, (s) => new RallyPointsController(s.rallyPoints)],
  [StructuresController, (s) => new StructuresController(s.structures)],
  [StructureEditsController, (s) => new StructureEditsController(s.structures)],
  [TrackingController, (s) => new TrackingController(s.tracking)],
  [TrackingEditsController, (s) => new TrackingEditsController(s.tracking)],
  [KillsController, (s) => new KillsController(s.kills)],
  [ActivityController, (s) => new ActivityController(s.activity)],
  [MapRoutesController, (s) => new MapRoutesController(s.routes)],
  [MapReadController, (s) => new MapReadController(s.systems, s.connections, s.tracking, s.structures, s.mapData)],
];
