import { Body, Controller, Path, Put, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
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
import type { TrackingService } from './tracking.service.js';
import type { TrackedCharacterDto } from '../map.dto.js';
import type { DataResponse } from '../../http/data-response.js';
import type { SetTrackedRequest } from './tracking.dto.js';

/**
 * Editing character tracking (`/api/maps/{map_id}/…`). A map key edits only its own map (another map, known or not,
 * is 404); writes are attributed to the key's character. Every change and its events (decisions §5)
 * commit in one transaction; a refused request writes nothing.
 */
@Route('api/maps/{map_id}')
@Security('map_key')
@Response<ErrorResponse>(400, 'Malformed parameter or body (`validation_failed` with details)', MAP_PATH_VALIDATION_EXAMPLE)
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class TrackingEditsController extends Controller {
  constructor(private readonly tracking: TrackingService) {
    super();
  }

  /**
   * Tracks (`tracked: true`) or untracks a known character on the map, adding it to the map's
   * characters when needed. No event. Answers the tracked character entry.
   * @summary Track or untrack a character
   * @param map_id Map UUID or slug.
   * @param eve_id eve_id of a known character.
   * @pattern eve_id ^[1-9][0-9]{0,19}$ must be decimal digits without a leading zero
   */
  @Put('tracked-characters/{eve_id}')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or unknown character (`character_not_found`)', {
    error: 'Character not found',
    code: 'character_not_found',
  })
  public async setTracked(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() eve_id: string,
    @Body() body: SetTrackedRequest,
  ): Promise<DataResponse<TrackedCharacterDto>> {
    return { data: await this.tracking.setTracked(principalOf(req, 'map_key'), map_id, eve_id, body.tracked) };
  }
}
