import type { DataResponse } from '../../http/data-response.js';
import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags, Header, SuccessResponse } from '@tsoa/runtime';
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
import type { StructuresService } from './structures.service.js';
import type { StructureTimerDto } from './structures.dto.js';
import type { CachedReadHeaders } from '../../http/cache-headers.js';

/** The map's structures (`/api/maps/{map_id}/…`, `{map_id}` the map UUID or slug); a map key reads only its own map. */
@Route('api/maps/{map_id}')
@Security('map_key')
@Response<ErrorResponse>(400, 'Malformed parameter or body (`validation_failed` with details)', MAP_PATH_VALIDATION_EXAMPLE)
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class StructuresController extends Controller {
  constructor(private readonly structures: StructuresService) {
    super();
  }

  /**
   * Every structure of the map (any status, with or without a timer).
   * @summary Structures
   * @param map_id Map UUID or slug.
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('structures')
  @Tags('Map collections')
  public async listStructures(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<StructureTimerDto[]>> {
    return { data: await this.structures.list(principalOf(req, 'map_key'), map_id) };
  }

  /**
   * Structure timers: structures Anchoring or Reinforced with an end time, soonest first.
   * @summary Structure timers
   * @param map_id Map UUID or slug.
   * @param system_id Only timers of this map system (record id, a UUID).
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('structure-timers')
  @Tags('Map collections')
  public async listStructureTimers(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Query() system_id?: string,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<StructureTimerDto[]>> {
    return { data: await this.structures.timers(principalOf(req, 'map_key'), map_id, system_id) };
  }
}
