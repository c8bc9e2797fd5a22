import { Body, Controller, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
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
import { MAP_PATH_VALIDATION_EXAMPLE } from '../../maps/map-path.js';
import type { DataResponse } from '../../http/data-response.js';
import type { DuplicatedMapDto, DuplicateMapRequest } from './map-duplicate.dto.js';
import type { MapDuplicateService } from './map-duplicate.service.js';

/** Copying a map (`POST /api/maps/{map_id}/duplicate`), as the reference server offers it. */
@Route('api/maps/{map_id}/duplicate')
@Security('map_key')
@Response<ErrorResponse>(400, 'Malformed parameter or body (`validation_failed` with details)', MAP_PATH_VALIDATION_EXAMPLE)
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class MapDuplicateController extends Controller {
  constructor(private readonly duplicates: MapDuplicateService) {
    super();
  }

  /**
   * Creates a copy of the map owned by the same character: its systems (hidden ones too), connections
   * and structures, and unless declined its signatures (`copy_signatures`) and ACL links (`copy_acls`),
   * in one transaction. The slug is made from the name (`-2`, `-3`, … when taken). The answer carries a
   * map key of the copy (bound to the owner's character, with the calling key's profile), shown once.
   * No event is emitted on either map. Only the map owner's key may (403 `not_map_owner`).
   * @summary Duplicate a map
   * @param map_id Map UUID or slug.
   */
  @Post()
  @Tags('Map editing')
  @SuccessResponse(201, 'Created')
  @Response<ErrorResponse>(403, "Not the map owner's key", { error: 'Only the map owner can duplicate maps', code: 'not_map_owner' })
  public async duplicateMap(@Request() req: ExRequest, @Path() map_id: string, @Body() body: DuplicateMapRequest): Promise<DataResponse<DuplicatedMapDto>> {
    const copy = await this.duplicates.duplicate(principalOf(req, 'map_key'), map_id, body);
    this.setStatus(201);
    return { data: copy };
  }
}
