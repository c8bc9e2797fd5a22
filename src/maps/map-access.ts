/**
 * The one place where a map key's access to a map is decided. Services of the map API call it with the
 * principal and the map reference of the request (the `/api/map/*` selector, or the `{map_id}` path
 * segment of `/api/maps/{map_id}/…`) before they read or write anything.
 */
import type { Db } from '../db/db.js';
import { BadRequestError, NotFoundError } from '../common/errors.js';
import { UUID_RE } from '../db/sql.js';
import type { MapKeyPrincipal } from '../http/principal.js';
import { MapRefRepository, mapReference, type MapRef } from './map.repository.js';

export type { MapRef } from './map.repository.js';

/** The `/api/map/*` map selector: `map_id` and/or `slug`. */
export interface MapSelector {
  map_id?: string | undefined;
  slug?: string | undefined;
}

/** How a request names its map: the selector of `/api/map/*`, or the `{map_id}` segment (UUID or slug). */
export type MapReference = MapSelector | string;

export class MapAccess {
  constructor(
    private readonly db: Db,
    private readonly maps = new MapRefRepository(),
  ) {}

  /** The map the reference names, when it is the key's map; else 400 or 404 as `bySelector` / `byPath` say. */
  async resolve(principal: MapKeyPrincipal, ref: MapReference): Promise<MapRef> {
    return typeof ref === 'string' ? this.byPath(principal, ref) : this.bySelector(principal, ref);
  }

  /**
   * Resolves the map selector for a map key, comparing it with the key's own map only: no other map is
   * ever looked up, so no answer (nor its timing) depends on whether another map exists. A selector
   * naming anything but the key's map is 404; `map_id` and `slug` of which one names the key's map and
   * the other does not is 400 `map_selector_conflict`, whatever the other names.
   */
  async bySelector(principal: MapKeyPrincipal, selector: MapSelector): Promise<MapRef> {
    // The shape first: a malformed selector is 400 without a lookup.
    checkSelectorShape(selector);
    return checkSelector(await this.maps.byId(this.db, principal.mapId), selector);
  }

  /** `{map_id}` path segment of the /api/maps family: the key's map by its UUID or its slug, else 404. */
  async byPath(principal: MapKeyPrincipal, idOrSlug: string): Promise<MapRef> {
    return checkPath(await this.maps.byId(this.db, principal.mapId), idOrSlug);
  }
}

/** The selector's own shape (400 before any lookup): at least one of `map_id` and `slug`, `map_id` a UUID. */
function checkSelectorShape(selector: MapSelector): { mapId: string | undefined; slug: string | undefined } {
  const mapId = selector.map_id?.trim() || undefined;
  const slug = selector.slug?.trim() || undefined;
  if (!mapId && !slug) {
    throw new BadRequestError('map_identifier_required', 'Map identifier required. Provide `map_id` or `slug`.');
  }
  if (mapId && !UUID_RE.test(mapId)) {
    throw new BadRequestError('invalid_map_id', '`map_id` must be a UUID', [{ field: 'map_id', message: 'must be a UUID' }]);
  }
  return { mapId, slug };
}

/** The selector checked against the key's map (`map`, as loaded): the map, or the 400/404 of `bySelector`. */
export function checkSelector(map: MapRef | undefined, selector: MapSelector): MapRef {
  const { mapId, slug } = checkSelectorShape(selector);
  const idNamesIt = mapId !== undefined && map !== undefined && mapId.toLowerCase() === map.id;
  const slugNamesIt = slug !== undefined && map !== undefined && slug === map.slug;
  if (mapId && slug && idNamesIt !== slugNamesIt) {
    throw new BadRequestError('map_selector_conflict', '`map_id` and `slug` name different maps');
  }
  if (!map || (mapId && !idNamesIt) || (slug && !slugNamesIt)) throw new NotFoundError('Map not found', 'map_not_found');
  return map;
}

/** The `{map_id}` segment checked against the key's map (`map`, as loaded): the map, else 404. */
export function checkPath(map: MapRef | undefined, idOrSlug: string): MapRef {
  const { column, value } = mapReference(idOrSlug);
  const names = map !== undefined && map[column] === value;
  if (!map || !names) throw new NotFoundError('Map not found', 'map_not_found');
  return map;
}
