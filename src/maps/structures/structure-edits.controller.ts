import { Body, Controller, Delete, Path, Post, Put, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
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
import type { DataResponse } from '../../http/data-response.js';
import type { CreateStructureRequest, StructureTimerDto, UpdateStructureRequest } from './structures.dto.js';

/**
 * Editing structures (timers) (`/api/maps/{map_id}/…`). A map key edits only its own map (another map, known or not,
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
export class StructureEditsController extends Controller {
  constructor(private readonly structures: StructuresService) {
    super();
  }

  /**
   * Adds a structure (timer) to a visible system of the map. No event.
   * `character_eve_id` is the key's character.
   * @summary Add a structure
   * @param map_id Map UUID or slug.
   */
  @Post('structures')
  @Tags('Map editing')
  @SuccessResponse(201, 'Created')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or system not on the map (`system_not_found`)', {
    error: 'System not found',
    code: 'system_not_found',
  })
  public async addStructure(@Request() req: ExRequest, @Path() map_id: string, @Body() body: CreateStructureRequest): Promise<DataResponse<StructureTimerDto>> {
    const structure = await this.structures.create(principalOf(req, 'map_key'), map_id, body);
    this.setStatus(201);
    return { data: structure };
  }

  /**
   * Changes fields of a structure; omitted fields are kept, null clears. No event.
   * @summary Update a structure
   * @param map_id Map UUID or slug.
   * @param id Structure id (UUID).
   */
  @Put('structures/{id}')
  @Tags('Map editing')
  @Response<ErrorResponse>(
    404,
    'Unknown map (`map_not_found`), structure not found (`structure_not_found`) or new system not on the map (`system_not_found`)',
    { error: 'Structure not found', code: 'structure_not_found' },
  )
  public async updateStructure(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() id: string,
    @Body() body: UpdateStructureRequest,
  ): Promise<DataResponse<StructureTimerDto>> {
    return { data: await this.structures.update(principalOf(req, 'map_key'), map_id, id, body) };
  }

  /**
   * Removes a structure. No event.
   * @summary Delete a structure
   * @param map_id Map UUID or slug.
   * @param id Structure id (UUID).
   */
  @Delete('structures/{id}')
  @Tags('Map editing')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or structure not found (`structure_not_found`)', {
    error: 'Structure not found',
    code: 'structure_not_found',
  })
  public async deleteStructure(@Request() req: ExRequest, @Path() map_id: string, @Path() id: string): Promise<void> {
    await this.structures.remove(principalOf(req, 'map_key'), map_id, id);
    this.setStatus(204);
  }
}
