import { Body, Controller, Delete, Get, Header, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
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
import type { DataResponse } from '../../http/data-response.js';
import type { CachedReadHeaders } from '../../http/cache-headers.js';
import type { AddRallyPointRequest, RallyPointDto } from './rally-points.dto.js';
import type { RallyPointsService } from './rally-points.service.js';

/** Rally points of a map (`/api/maps/{map_id}/rally-points`): the reference server's rally pings. */
@Route('api/maps/{map_id}/rally-points')
@Security('map_key')
@Response<ErrorResponse>(400, 'Malformed parameter or body (`validation_failed` with details)', MAP_PATH_VALIDATION_EXAMPLE)
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class RallyPointsController extends Controller {
  constructor(private readonly rallyPoints: RallyPointsService) {
    super();
  }

  /**
   * The map's rally points, oldest first.
   * @summary Rally points of the map
   * @param map_id Map UUID or slug.
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get()
  @Tags('Map editing')
  public async listRallyPoints(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<RallyPointDto[]>> {
    return { data: await this.rallyPoints.list(principalOf(req, 'map_key'), map_id) };
  }

  /**
   * Sets a rally point in a visible system of the map, called by a known character; emits
   * `rally_point_added`.
   * @summary Add a rally point
   * @param map_id Map UUID or slug.
   */
  @Post()
  @Tags('Map editing')
  @SuccessResponse(201, 'Created')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), system not on the map (`system_not_found`) or unknown character (`character_not_found`)', {
    error: 'System not found',
    code: 'system_not_found',
    details: [{ field: 'solar_system_id', message: '31000005 is not a system on this map' }],
  })
  public async addRallyPoint(@Request() req: ExRequest, @Path() map_id: string, @Body() body: AddRallyPointRequest): Promise<DataResponse<RallyPointDto>> {
    const point = await this.rallyPoints.add(principalOf(req, 'map_key'), map_id, body);
    this.setStatus(201);
    return { data: point };
  }

  /**
   * Removes a rally point; emits `rally_point_removed`.
   * @summary Remove a rally point
   * @param map_id Map UUID or slug.
   * @param id Rally point id (UUID).
   */
  @Delete('{id}')
  @Tags('Map editing')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`) or rally point (`rally_point_not_found`)', {
    error: 'Rally point not found',
    code: 'rally_point_not_found',
  })
  public async deleteRallyPoint(@Request() req: ExRequest, @Path() map_id: string, @Path() id: string): Promise<void> {
    await this.rallyPoints.remove(principalOf(req, 'map_key'), map_id, id);
    this.setStatus(204);
  }
}
