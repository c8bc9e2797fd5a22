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
import type { SignaturesService } from './signatures.service.js';
import type { SignatureDto } from './signatures.dto.js';
import type { CachedReadHeaders } from '../../http/cache-headers.js';

/** The map's signatures (`/api/maps/{map_id}/…`, `{map_id}` the map UUID or slug); a map key reads only its own map. */
@Route('api/maps/{map_id}')
@Security('map_key')
@Response<ErrorResponse>(400, 'Malformed parameter or body (`validation_failed` with details)', MAP_PATH_VALIDATION_EXAMPLE)
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class SignaturesController extends Controller {
  constructor(private readonly signatures: SignaturesService) {
    super();
  }

  /**
   * Signatures of the map's visible systems, by solar system id then signature id.
   * @summary Signatures
   * @param map_id Map UUID or slug.
   * @param solar_system_id Only this system's signatures.
   * @isInt solar_system_id must be an integer
   * @minimum solar_system_id 0
   * @maximum solar_system_id 2147483647
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('signatures')
  @Tags('Map collections')
  public async listSignatures(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Query() solar_system_id?: number,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<SignatureDto[]>> {
    return { data: await this.signatures.list(principalOf(req, 'map_key'), map_id, solar_system_id) };
  }
}
