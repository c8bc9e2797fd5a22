import type { Db } from '../../db/db.js';
import { NotFoundError } from '../../common/errors.js';
import type { MapKeyPrincipal } from '../../http/principal.js';
import type { RouteGraphSource } from '../../static-data/routes/route-graph-source.js';
import type { RouteFlag } from '../../static-data/routes/route-finder.js';
import { unknownSystem } from '../../static-data/routes/closest-routes.service.js';
import { MapAccess, type MapReference } from '../map-access.js';
import { MapRefRepository } from '../map.repository.js';
import { ConnectionRepository } from '../connections/connection.repository.js';
import type { MapRouteDto } from './map-routes.dto.js';

/** Routes over the stargates of the static data and the map's own connections (those between two visible systems), each usable both ways. */
export class MapRoutesService {
  private readonly access: MapAccess;

  constructor(
    private readonly db: Db,
    private readonly graphs: RouteGraphSource,
    private readonly connections = new ConnectionRepository(),
    maps = new MapRefRepository(),
  ) {
    this.access = new MapAccess(db, maps);
  }

  /** 404 `system_not_found` naming `origin` or `to` for a system the static data lacks, `route_not_found` when no route joins them. */
  async route(principal: MapKeyPrincipal, ref: MapReference, origin: number, to: number, flag: RouteFlag = 'shortest'): Promise<MapRouteDto> {
    const map = await this.access.resolve(principal, ref);
    const [finder, ends] = await Promise.all([this.graphs.finder(), this.connections.visibleEnds(this.db, map.id)]);
    const graph = finder.graph;
    const from = graph.numberOf(origin);
    if (from < 0) throw unknownSystem('origin', origin);
    const target = graph.numberOf(to);
    if (target < 0) throw unknownSystem('to', to);
    const [found] = finder.closest({ origin: from, flag, destinations: [target], count: 1, connections: ends.map((id) => graph.numberOf(id)) });
    if (!found) throw new NotFoundError(`No route from ${origin} to ${to} over the stargates and the map's connections`, 'route_not_found');
    return { jumps: found.jumps, systems: found.systems };
  }
}
