import { Body, Controller, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
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
import type { ActivityService } from './activity.service.js';
import type { DataResponse } from '../../http/data-response.js';
import type { CharacterActivityDayDto, CharacterActivityRequest } from './activity.dto.js';

/**
 * Editing character activity (`/api/maps/{map_id}/…`). A map key edits only its own map (another map, known or not,
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
export class ActivityController extends Controller {
  constructor(private readonly activity: ActivityService) {
    super();
  }

  /**
   * Adds to today's (UTC) activity counters of a character (`character_eve_id`, default: the key's
   * character). Increments are 0–10000 each, at least one positive; totals saturate at 2147483647.
   * Answers the character's counters for the day after the increment. No event.
   * @summary Record character activity
   * @param map_id Map UUID or slug.
   */
  @Post('character-activity')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or unknown character (`character_not_found`)', {
    error: 'Character not found',
    code: 'character_not_found',
  })
  public async recordActivity(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Body() body: CharacterActivityRequest,
  ): Promise<DataResponse<CharacterActivityDayDto>> {
    return { data: await this.activity.record(principalOf(req, 'map_key'), map_id, body) };
  }
}
