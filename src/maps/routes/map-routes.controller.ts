import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalOf } from '../../http/principal.js';
import type { ErrorResponse } from '../../http/error.dto.js';
import {
  DEPENDENCY_UNAVAILABLE_EXAMPLE,
  RATE_LIMITED_EXAMPLE,
  MAP_KEY_UNAUTHORIZED_DESCRIPTION,
  MAP_KEY_UNAUTHORIZED_EXAMPLE,
} from '../../http/error-examples.js';
import { MAP_PATH_VALIDATION_EXAMPLE } from '../map-path.js';
import type { DataResponse } from '../../http/data-response.js';
import type { RouteFlag } from '../../static-data/routes/route-finder.js';
import type { MapRoutesService } from './map-routes.service.js';
import type { MapRouteDto } from './map-routes.dto.js';

/** Routes between two systems over the stargates and the map's connections (`/api/maps/{map_id}/routes`). */
@Route('api/maps/{map_id}/routes')
@Security('map_key')
@Response<ErrorResponse>(400, 'Malformed parameter (`validation_failed` with details)', MAP_PATH_VALIDATION_EXAMPLE)
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class MapRoutesController extends Controller {
  constructor(private readonly routes: MapRoutesService) {
    super();
  }

  /**
   * The route from `origin` to `to` over the stargates of the static data and the map's connections
   * between visible systems (wormholes, and any other kind), each usable both ways. `flag` as in
   * `POST /route/findClosest`: `shortest` (default) counts jumps, `secure` and `insecure` charge 1808 for
   * a jump into a system of the unwanted security. Either end may be any system of the static data.
   * @summary Route between two systems
   * @param map_id Map UUID or slug.
   * @param origin Solar system id the route starts from.
   * @param to Solar system id the route ends at.
   * @param flag `shortest`, `secure` or `insecure`.
   * @isInt origin must be an integer
   * @minimum origin 0
   * @maximum origin 2147483647
   * @isInt to must be an integer
   * @minimum to 0
   * @maximum to 2147483647
   */
  @Get()
  @Tags('Routes')
  @Response<ErrorResponse>(
    404,
    'Unknown map (`map_not_found`), a system the static data lacks (`system_not_found`, naming `origin` or `to`), or no route (`route_not_found`)',
    {
      error: "No route from 30000142 to 31000005 over the stargates and the map's connections",
      code: 'route_not_found',
    },
  )
  public async getRoute(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Query() origin: number,
    @Query() to: number,
    @Query() flag?: RouteFlag,
  ): Promise<DataResponse<MapRouteDto>> {
    return { data: await this.routes.route(principalOf(req, 'map_key'), map_id, origin, to, flag) };
  }
}
