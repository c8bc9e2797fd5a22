import type { IocContainer, IocContainerFactory } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { depsOf, type AppDeps } from './deps.js';

import { CharactersController } from '../characters/characters.controller.js';
import { MAP_CONTROLLER_FACTORIES } from '../maps/map-controllers.js';

type ControllerClass = new (deps: AppDeps) => unknown;

/**
 * Controllers that take only the services they use, built from the app's deps. A controller not
 * listed here still takes the whole deps object.
 */
const FACTORIES = new Map<unknown, (deps: AppDeps) => unknown>([[CharactersController, (d) => new CharactersController(d.characters)], ...MAP_CONTROLLER_FACTORIES]);

/**
 * tsoa's IoC hook: a controller is built with the deps of the app serving the request (no global
 * container; two apps in one process stay apart). Controllers are cheap, so one per request.
 */
export const iocContainer: IocContainerFactory = function (request: unknown): IocContainer {
  const deps = depsOf(request as ExRequest);
  return {
    get: ((controller: unknown) => FACTORIES.get(controller)?.(deps) ?? new (controller as ControllerClass)(deps)) as IocContainer['get'],
  };
};
