import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, NotFoundError } from '../errors.js';
import { UUID_RE } from '../db/sql.js';
import type { MapKeyPrincipal } from '../api/principal.js';

export interface MapSelector {
  map_id?: string | undefined;
  slug?: string | undefined;
}

export interface MapRef {
  id: string;
  slug: string;
  ownerCharacterId: string;
  webhooksEnabled: boolean;
}

/**
 * Resolves the map selector (`map_id` and/or `slug`) for a map key, comparing it with the key's own map
 * only: no other map is ever looked up, so no answer (nor its timing) depends on whether another map
 * exists. A selector naming anything but the key's map is 404; `map_id` and `slug` of which one names
 * the key's map and the other does not is 400 `map_selector_conflict`, whatever the other names.
 */
export async function resolveMapSelector(em: EntityManager, principal: MapKeyPrincipal, selector: MapSelector): Promise<MapRef> {
  const mapId = selector.map_id?.trim() || undefined;
  const slug = selector.slug?.trim() || undefined;
  if (!mapId && !slug) {
    throw new BadRequestError('map_identifier_required', 'Map identifier required. Provide `map_id` or `slug`.');
  }
  if (mapId && !UUID_RE.test(mapId)) {
    throw new BadRequestError('invalid_map_id', '`map_id` must be a UUID', [{ field: 'map_id', message: 'must be a UUID' }]);
  }
  const map = await keyMap(em, principal);
  const idNamesIt = mapId !== undefined && map !== undefined && mapId.toLowerCase() === map.id;
  const slugNamesIt = slug !== undefined && map !== undefined && slug === map.slug;
  if (mapId && slug && idNamesIt !== slugNamesIt) {
    throw new BadRequestError('map_selector_conflict', '`map_id` and `slug` name different maps');
  }
  if (!map || (mapId && !idNamesIt) || (slug && !slugNamesIt)) throw new NotFoundError('Map not found', 'map_not_found');
  return map;
}

/** `{map_id}` path segment of the /api/maps family: the key's map by its UUID or its slug, else 404. */
export async function resolveMapPath(em: EntityManager, principal: MapKeyPrincipal, idOrSlug: string): Promise<MapRef> {
  const map = await keyMap(em, principal);
  const names = map !== undefined && (UUID_RE.test(idOrSlug) ? idOrSlug.toLowerCase() === map.id : idOrSlug === map.slug);
  if (!map || !names) throw new NotFoundError('Map not found', 'map_not_found');
  return map;
}

/** The map the key belongs to. */
async function keyMap(em: EntityManager, principal: MapKeyPrincipal): Promise<MapRef | undefined> {
  const rows = await em
    .getConnection()
    .execute<{ id: string; slug: string; owner_character_id: string; webhooks_enabled: boolean }[]>(
      'select id, slug, owner_character_id, webhooks_enabled from maps where id = ?',
      [principal.mapId],
    );
  const row = rows[0];
  return row ? { id: row.id, slug: row.slug, ownerCharacterId: row.owner_character_id, webhooksEnabled: row.webhooks_enabled } : undefined;
}
