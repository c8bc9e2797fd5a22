import { Body, Controller, Delete, Patch, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
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
import type { DataResponse } from '../../http/data-response.js';
import type {
  AddSystemRequest,
  AddSystemsRequest,
  DeletedCountDto,
  DeleteSystemsAndConnectionsRequest,
  SystemDto,
  UpdateSystemRequest,
} from './systems.dto.js';

/**
 * Editing systems (`/api/maps/{map_id}/…`). A map key edits only its own map (another map, known or not,
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
export class SystemEditsController extends Controller {
  constructor(private readonly systems: SystemsService) {
    super();
  }

  /**
   * Adds systems to the map. The body is one system object, answered with `{"data": System}`, or
   * `{"systems": [...]}` (1–100, one transaction), answered with `{"data": [System]}` in request order.
   *
   * - A new system gets the given fields (defaults: position 0/0, status 0, unlocked) and emits `add_system`.
   * - A hidden (deleted) system becomes visible again, keeping its earlier settings except the given
   *   fields, and emits `add_system`.
   * - A system already visible is updated with the given fields; `system_metadata_changed` lists the
   *   fields that changed (no event when none did).
   *
   * Answers 201 in every case. 404 `solar_system_not_found` (with details) when a solar system is not
   * in the static data; then nothing is written.
   * @summary Add systems
   * @param map_id Map UUID or slug.
   */
  @Post('systems')
  @Tags('Map editing')
  @SuccessResponse(201, 'Created')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or solar system not in the static data (`solar_system_not_found`)', {
    error: 'Solar system not found',
    code: 'solar_system_not_found',
    details: [{ field: 'solar_system_id', message: '123 is not a known solar system' }],
  })
  public async addSystems(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Body() body: AddSystemRequest | AddSystemsRequest,
  ): Promise<DataResponse<SystemDto | SystemDto[]>> {
    const systems = await this.systems.addFromBody(principalOf(req, 'map_key'), map_id, body);
    this.setStatus(201);
    return { data: systems };
  }

  /**
   * Changes fields of a visible system; omitted fields are kept, null clears a text field. Emits
   * `system_metadata_changed` whose `changed` lists the fields whose value changed; no event when
   * nothing changed. Answers the system.
   * @summary Update a system
   * @param map_id Map UUID or slug.
   * @param solar_system_id Solar system id of a visible system of the map.
   * @isInt solar_system_id must be an integer
   * @minimum solar_system_id 0
   * @maximum solar_system_id 2147483647
   */
  @Patch('systems/{solar_system_id}')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or system not on the map (`system_not_found`)', {
    error: 'System not found',
    code: 'system_not_found',
  })
  public async updateSystem(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() solar_system_id: number,
    @Body() body: UpdateSystemRequest,
  ): Promise<DataResponse<SystemDto>> {
    return { data: await this.systems.update(principalOf(req, 'map_key'), map_id, solar_system_id, body) };
  }

  /**
   * Deletes a system from the map: it is hidden (`visible: false`, settings kept for a later re-add)
   * and its connections are removed. Events, in one transaction: `connection_removed` for each removed
   * connection, then `deleted_system`. A locked system is refused with 409 `system_locked`.
   * @summary Delete a system
   * @param map_id Map UUID or slug.
   * @param solar_system_id Solar system id of a visible system of the map.
   * @isInt solar_system_id must be an integer
   * @minimum solar_system_id 0
   * @maximum solar_system_id 2147483647
   */
  @Delete('systems/{solar_system_id}')
  @Tags('Map editing')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or system not on the map (`system_not_found`)', {
    error: 'System not found',
    code: 'system_not_found',
  })
  @Response<ErrorResponse>(409, 'System is locked', { error: 'System is locked; unlock it before deleting it', code: 'system_locked' })
  public async deleteSystem(@Request() req: ExRequest, @Path() map_id: string, @Path() solar_system_id: number): Promise<void> {
    await this.systems.remove(principalOf(req, 'map_key'), map_id, solar_system_id);
    this.setStatus(204);
  }

  /**
   * Deletes systems and connections in one transaction: each listed system is hidden with its
   * connections (as the single delete does), each listed connection removed. Ids that name nothing
   * on the map are skipped and not counted. A locked system or connection refuses the whole batch with
   * 409 `system_locked` / `connection_locked` (details name it); nothing is deleted then.
   *
   * Events, one per deleted item: `connection_removed` for each listed connection, then per system
   * (in request order) `connection_removed` for each of its other connections and `deleted_system`.
   * @summary Delete systems and connections
   * @param map_id Map UUID or slug.
   */
  @Delete('systems')
  @Tags('Map editing')
  @Response<ErrorResponse>(409, 'A listed system or connection is locked', {
    error: 'A listed system is locked; unlock it before deleting it',
    code: 'system_locked',
    details: [{ field: 'system_ids[0]', message: '30000142 is locked' }],
  })
  public async deleteSystems(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Body() body: DeleteSystemsAndConnectionsRequest,
  ): Promise<DataResponse<DeletedCountDto>> {
    return { data: await this.systems.removeMany(principalOf(req, 'map_key'), map_id, body) };
  }
}
