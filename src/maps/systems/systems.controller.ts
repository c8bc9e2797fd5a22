import type { DataResponse } from '../../http/data-response.js';
import { Controller, Get, OperationId, Path, Query, Request, Response, Route, Security, Tags, Header, SuccessResponse } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalOf } from '../../http/principal.js';
import type { ErrorResponse } from '../../http/error.dto.js';
import {
  DEPENDENCY_UNAVAILABLE_EXAMPLE,
  MAP_NOT_FOUND_EXAMPLE,
  RATE_LIMITED_EXAMPLE,
  MAP_KEY_UNAUTHORIZED_DESCRIPTION,
  MAP_KEY_UNAUTHORIZED_EXAMPLE,
} from '../../http/error-examples.js';
import { MAP_PATH_VALIDATION_EXAMPLE } from '../map-path.js';
import type { SystemsService } from './systems.service.js';
import type { SystemDto, SystemsAndConnectionsDto } from './systems.dto.js';
import type { CachedReadHeaders } from '../../http/cache-headers.js';

/** The map's systems (`/api/maps/{map_id}/…`, `{map_id}` the map UUID or slug); a map key reads only its own map. */
@Route('api/maps/{map_id}')
@Security('map_key')
@Response<ErrorResponse>(400, 'Malformed parameter or body (`validation_failed` with details)', MAP_PATH_VALIDATION_EXAMPLE)
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class SystemsController extends Controller {
  constructor(private readonly systems: SystemsService) {
    super();
  }

  /**
   * The map's systems and connections: `{"data": {"systems": [System], "connections": [Connection]}}`.
   * Visible systems only, unless `all=true`.
   * @summary Systems and connections
   * @param map_id Map UUID or slug.
   * @param all When true, hidden (deleted) systems are included.
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('systems')
  @Tags('Map collections')
  public async listSystems(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Query() all?: boolean,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<SystemsAndConnectionsDto>> {
    return { data: await this.systems.listWithConnections(principalOf(req, 'map_key'), map_id, all === true) };
  }

  /**
   * One system of the map (hidden ones too).
   * @summary One system
   * @param map_id Map UUID or slug.
   * @param solar_system_id Solar system id.
   * @isInt solar_system_id must be an integer
   * @minimum solar_system_id 0
   * @maximum solar_system_id 2147483647
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('systems/{solar_system_id}')
  // GET /api/map/system is GetSystem: operation ids are unique (OpenAPI requires it; generated clients name methods by them).
  @OperationId('GetMapSystem')
  @Tags('Map collections')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or system not on the map (`system_not_found`)', {
    error: 'System not found',
    code: 'system_not_found',
  })
  public async getSystem(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() solar_system_id: number,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<SystemDto>> {
    return { data: await this.systems.get(principalOf(req, 'map_key'), map_id, solar_system_id) };
  }
}
