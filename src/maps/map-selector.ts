/**
 * The map access check for callers that still hold an EntityManager (the ACL and event log controllers);
 * the rules live in map-access.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { dbOfEm } from '../db/db.js';
import type { MapKeyPrincipal } from '../api/principal.js';
import { MapAccess, type MapRef, type MapSelector } from './map-access.js';

export type { MapRef, MapSelector } from './map-access.js';

export async function resolveMapSelector(em: EntityManager, principal: MapKeyPrincipal, selector: MapSelector): Promise<MapRef> {
  return new MapAccess(dbOfEm(em)).bySelector(principal, selector);
}

export async function resolveMapPath(em: EntityManager, principal: MapKeyPrincipal, idOrSlug: string): Promise<MapRef> {
  return new MapAccess(dbOfEm(em)).byPath(principal, idOrSlug);
}
