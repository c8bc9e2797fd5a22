import type { IocContainer, IocContainerFactory } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { depsOf, type AppDeps } from './deps.js';

type ControllerClass = new (deps: AppDeps) => unknown;

/**
 * tsoa's IoC hook: a controller is built with the deps of the app serving the request (no global
 * container; two apps in one process stay apart). Controllers are cheap, so one per request.
 */
export const iocContainer: IocContainerFactory = function (request: unknown): IocContainer {
  const deps = depsOf(request as ExRequest);
  return {
    get: ((controller: unknown) => new (controller as ControllerClass)(deps)) as IocContainer['get'],
  };
};
