import { Body, Controller, Delete, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
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
import type { KillsService } from './kills.service.js';
import type { DataResponse } from '../../http/data-response.js';
import type { KillImportResultDto, KillInput, KillInputList, KillsBatchRequest } from './kills.dto.js';

/**
 * Editing kills: the import (`/api/maps/{map_id}/…`). A map key edits only its own map (another map, known or not,
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
export class KillsController extends Controller {
  constructor(private readonly kills: KillsService) {
    super();
  }

  /**
   * Imports killmails: one killmail object, an array, or
   * `{"kills": [...]}` (1–200, one transaction). Idempotent by `killmail_id`: a killmail the map
   * already has is counted in `duplicates`, left as it is and emits nothing; each new one emits
   * `map_kill`. The solar system must exist in the static data (it need not be on the map). A
   * `kill_time` more than 5 minutes in the future is 400 `validation_failed` naming the field.
   * @summary Import kills
   * @param map_id Map UUID or slug.
   */
  @Post('kills')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or solar system not in the static data (`solar_system_not_found`)', {
    error: 'Solar system not found',
    code: 'solar_system_not_found',
    details: [{ field: 'kills[0].solar_system_id', message: '123 is not a known solar system' }],
  })
  public async importKills(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Body() body: KillInput | KillInputList | KillsBatchRequest,
  ): Promise<DataResponse<KillImportResultDto>> {
    return { data: await this.kills.import(principalOf(req, 'map_key'), map_id, body) };
  }

  /**
   * Deletes one kill of the map, addressed by its killmail id. No event (the catalogue has no type for
   * a removed kill); reads show the change at once.
   * @summary Delete a kill
   * @param map_id Map UUID or slug.
   * @param killmail_id Killmail id of a kill of the map.
   * @isInt killmail_id must be an integer
   * @minimum killmail_id 1
   * @maximum killmail_id 9007199254740991
   */
  @Delete('kills/{killmail_id}')
  @Tags('Map editing')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or no kill with this killmail id on the map (`kill_not_found`)', {
    error: 'Kill not found',
    code: 'kill_not_found',
  })
  public async deleteKill(@Request() req: ExRequest, @Path() map_id: string, @Path() killmail_id: number): Promise<void> {
    await this.kills.remove(principalOf(req, 'map_key'), map_id, killmail_id);
    this.setStatus(204);
  }
}
