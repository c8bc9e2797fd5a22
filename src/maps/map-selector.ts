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

const SLUG_MAX = 100;

/**
 * Resolves the map selector (`map_id` and/or `slug`) for a map key. A key naming another map, or an
 * unknown map, is a 404 (the map's existence is never revealed to other keys).
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
  if (slug && slug.length > SLUG_MAX) {
    throw new NotFoundError('Map not found', 'map_not_found');
  }
  const byId = mapId ? await findMap(em, 'id', mapId) : undefined;
  const bySlug = slug ? await findMap(em, 'slug', slug) : undefined;
  if (mapId && slug && byId && bySlug && byId.id !== bySlug.id) {
    throw new BadRequestError('map_selector_conflict', '`map_id` and `slug` name different maps');
  }
  const map = mapId ? byId : bySlug;
  if ((mapId && slug && (!byId || !bySlug)) || !map || map.id !== principal.mapId) {
    throw new NotFoundError('Map not found', 'map_not_found');
  }
  return map;
}

/** `{map_id}` path segment of the /api/maps family: a UUID or a slug. */
export async function resolveMapPath(em: EntityManager, principal: MapKeyPrincipal, idOrSlug: string): Promise<MapRef> {
  const map = UUID_RE.test(idOrSlug)
    ? await findMap(em, 'id', idOrSlug)
    : idOrSlug.length <= SLUG_MAX
      ? await findMap(em, 'slug', idOrSlug)
      : undefined;
  if (!map || map.id !== principal.mapId) throw new NotFoundError('Map not found', 'map_not_found');
  return map;
}

async function findMap(em: EntityManager, by: 'id' | 'slug', value: string): Promise<MapRef | undefined> {
  const rows = await em
    .getConnection()
    .execute<{ id: string; slug: string; owner_character_id: string; webhooks_enabled: boolean }[]>(
      `select id, slug, owner_character_id, webhooks_enabled from maps where ${by} = ?`,
      [value],
    );
  const row = rows[0];
  return row ? { id: row.id, slug: row.slug, ownerCharacterId: row.owner_character_id, webhooksEnabled: row.webhooks_enabled } : undefined;
}
