import type { IocContainer, IocContainerFactory } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { depsOf, type AppDeps } from './deps.js';

import { CharactersController } from '../characters/characters.controller.js';
import { AclsController, MapAclsController } from '../acls/acls.controller.js';
import { AdminController } from '../admin/admin.controller.js';
import { MapDuplicateController } from '../admin/duplicate/map-duplicate.controller.js';
import { EventsController } from '../maps/event-log/event-log.controller.js';
import { EventCatalogController } from '../events/event-catalog.controller.js';
import { StaticInfoController } from '../static-data/static-info.controller.js';
import { RouteFinderController } from '../static-data/routes/route-finder.controller.js';
import { MAP_CONTROLLER_FACTORIES } from '../maps/map-controllers.js';
import { WebhooksController } from '../webhooks/webhooks.controller.js';
import { PresenceController } from '../stream/presence.controller.js';

/** Every controller, built with only the services it uses (from the deps of the app serving the request). */
const FACTORIES = new Map<unknown, (deps: AppDeps) => unknown>([
  [CharactersController, (d) => new CharactersController(d.characters)],
  [MapAclsController, (d) => new MapAclsController(d.mapData, d.acls)],
  [AclsController, (d) => new AclsController(d.acls)],
  [AdminController, (d) => new AdminController(d.admin)],
  [MapDuplicateController, (d) => new MapDuplicateController(d.duplicates)],
  [EventsController, (d) => new EventsController(d.eventLog)],
  [EventCatalogController, () => new EventCatalogController()],
  [StaticInfoController, (d) => new StaticInfoController(d.staticInfo)],
  [RouteFinderController, (d) => new RouteFinderController(d.closestRoutes)],
  [WebhooksController, (d) => new WebhooksController(d.webhooks)],
  [PresenceController, (d) => new PresenceController(d.presence)],
  ...MAP_CONTROLLER_FACTORIES,
]);

/**
 * tsoa's IoC hook: a controller is built with the deps of the app serving the request (no global
 * container; two apps in one process stay apart). Controllers are cheap, so one per request.
 */
export const iocContainer: IocContainerFactory = function (request: unknown): IocContainer {
  const deps = depsOf(request as ExRequest);
  return {
    get: ((controller: unknown) => {
      const make = FACTORIES.get(controller);
      if (!make) throw new Error(`controller ${(controller as { name?: string }).name ?? '?'} is not registered in src/api/ioc.ts`);
      return make(deps);
    }) as IocContainer['get'],
  };
};
