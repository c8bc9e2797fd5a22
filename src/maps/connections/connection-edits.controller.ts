import { Body, Controller, Delete, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
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
import type { ConnectionsService } from './connections.service.js';
import type { DataResponse } from '../../http/data-response.js';
import type { AddConnectionRequest, ConnectionDto, UpdateConnectionRequest } from './connections.dto.js';

/**
 * Editing connections (`/api/maps/{map_id}/…`). A map key edits only its own map (another map, known or not,
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
export class ConnectionEditsController extends Controller {
  constructor(private readonly connections: ConnectionsService) {
    super();
  }

  /**
   * Connects two visible systems of the map; emits `connection_added`. Enumerations:
   * `type` 0–2, `mass_status` 0–2, `time_status` 0–6, `ship_size_type` 0–4.
   * @summary Add a connection
   * @param map_id Map UUID or slug.
   */
  @Post('connections')
  @Tags('Map editing')
  @SuccessResponse(201, 'Created')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or an end is not a visible system of the map (`system_not_found`)', {
    error: 'System not found',
    code: 'system_not_found',
    details: [{ field: 'solar_system_target', message: '31000005 is not a system on this map' }],
  })
  @Response<ErrorResponse>(409, 'The systems are already connected', { error: 'These systems are already connected', code: 'connection_exists' })
  public async addConnection(@Request() req: ExRequest, @Path() map_id: string, @Body() body: AddConnectionRequest): Promise<DataResponse<ConnectionDto>> {
    const connection = await this.connections.add(principalOf(req, 'map_key'), map_id, body);
    this.setStatus(201);
    return { data: connection };
  }

  /**
   * Changes fields of a connection; omitted fields are kept. Emits `connection_updated` whose
   * `changed` lists the fields whose value changed; no event when nothing changed.
   * @summary Update a connection
   * @param map_id Map UUID or slug.
   * @param id Connection id (UUID).
   */
  @Patch('connections/{id}')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or connection not found (`connection_not_found`)', {
    error: 'Connection not found',
    code: 'connection_not_found',
  })
  public async updateConnection(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() id: string,
    @Body() body: UpdateConnectionRequest,
  ): Promise<DataResponse<ConnectionDto>> {
    return { data: await this.connections.update(principalOf(req, 'map_key'), map_id, id, body) };
  }

  /**
   * Removes a connection; emits `connection_removed`. A locked connection is refused with 409
   * `connection_locked`.
   * @summary Delete a connection
   * @param map_id Map UUID or slug.
   * @param id Connection id (UUID).
   */
  @Delete('connections/{id}')
  @Tags('Map editing')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or connection not found (`connection_not_found`)', {
    error: 'Connection not found',
    code: 'connection_not_found',
  })
  @Response<ErrorResponse>(409, 'Connection is locked', { error: 'Connection is locked; unlock it before deleting it', code: 'connection_locked' })
  public async deleteConnection(@Request() req: ExRequest, @Path() map_id: string, @Path() id: string): Promise<void> {
    await this.connections.remove(principalOf(req, 'map_key'), map_id, id);
    this.setStatus(204);
  }

  /**
   * Changes fields of the connection between two systems, found in either orientation (as the
   * reference server does); otherwise as PATCH `…/connections/{id}`. 404 `connection_not_found` when
   * the two systems are not connected.
   * @summary Update the connection between two systems
   * @param map_id Map UUID or slug.
   * @param solar_system_source Solar system id of one end.
   * @param solar_system_target Solar system id of the other end.
   * @isInt solar_system_source must be an integer
   * @minimum solar_system_source 0
   * @maximum solar_system_source 2147483647
   * @isInt solar_system_target must be an integer
   * @minimum solar_system_target 0
   * @maximum solar_system_target 2147483647
   */
  @Patch('connections')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or no connection between the systems (`connection_not_found`)', {
    error: 'Connection not found',
    code: 'connection_not_found',
  })
  public async updateConnectionByEnds(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Query() solar_system_source: number,
    @Query() solar_system_target: number,
    @Body() body: UpdateConnectionRequest,
  ): Promise<DataResponse<ConnectionDto>> {
    return { data: await this.connections.updateByEnds(principalOf(req, 'map_key'), map_id, solar_system_source, solar_system_target, body) };
  }

  /**
   * Removes the connection between two systems, found in either orientation; emits
   * `connection_removed`. 404 `connection_not_found` when the two systems are not connected; 409
   * `connection_locked` when it is locked.
   * @summary Delete the connection between two systems
   * @param map_id Map UUID or slug.
   * @param solar_system_source Solar system id of one end.
   * @param solar_system_target Solar system id of the other end.
   * @isInt solar_system_source must be an integer
   * @minimum solar_system_source 0
   * @maximum solar_system_source 2147483647
   * @isInt solar_system_target must be an integer
   * @minimum solar_system_target 0
   * @maximum solar_system_target 2147483647
   */
  @Delete('connections')
  @Tags('Map editing')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or no connection between the systems (`connection_not_found`)', {
    error: 'Connection not found',
    code: 'connection_not_found',
  })
  @Response<ErrorResponse>(409, 'Connection is locked', { error: 'Connection is locked; unlock it before deleting it', code: 'connection_locked' })
  public async deleteConnectionByEnds(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Query() solar_system_source: number,
    @Query() solar_system_target: number,
  ): Promise<void> {
    await this.connections.removeByEnds(principalOf(req, 'map_key'), map_id, solar_system_source, solar_system_target);
    this.setStatus(204);
  }
}
