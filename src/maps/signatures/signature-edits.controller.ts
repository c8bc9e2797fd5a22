import { Body, Controller, Delete, Path, Put, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
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
import type { DataResponse } from '../../http/data-response.js';
import type { SignaturesUpdatedDto, UpsertSignaturesRequest } from './signatures.dto.js';

/**
 * Editing signatures (`/api/maps/{map_id}/…`). A map key edits only its own map (another map, known or not,
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
export class SignatureEditsController extends Controller {
  constructor(private readonly signatures: SignaturesService) {
    super();
  }

  /**
   * Adds and updates signatures of a visible system in one transaction. Signature ids are matched
   * case-insensitively and stored upper-case; for an existing signature omitted fields are kept and
   * null clears. With `replace: true` the system's signatures not listed are removed.
   *
   * Events: `signature_added` per new signature, `signature_removed` per removed one, then one
   * `signatures_updated` {solar_system_id, added_count, updated_count, removed_count} for the batch
   * (none when the batch changed nothing). `updated_count` counts listed signatures whose fields changed.
   * Answers the counts and every signature of the system after the batch. `character_eve_id` of added
   * or changed signatures is the key's character.
   * @summary Upsert a system's signatures
   * @param map_id Map UUID or slug.
   * @param solar_system_id Solar system id of a visible system of the map.
   * @isInt solar_system_id must be an integer
   * @minimum solar_system_id 0
   * @maximum solar_system_id 2147483647
   */
  @Put('systems/{solar_system_id}/signatures')
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), or the system (or a `linked_system_id`) not on the map (`system_not_found`)', {
    error: 'System not found',
    code: 'system_not_found',
  })
  public async upsertSignatures(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() solar_system_id: number,
    @Body() body: UpsertSignaturesRequest,
  ): Promise<DataResponse<SignaturesUpdatedDto>> {
    return { data: await this.signatures.upsert(principalOf(req, 'map_key'), map_id, solar_system_id, body) };
  }

  /**
   * Removes one signature of a system; emits `signature_removed`.
   * @summary Delete a signature
   * @param map_id Map UUID or slug.
   * @param solar_system_id Solar system id of a visible system of the map.
   * @isInt solar_system_id must be an integer
   * @minimum solar_system_id 0
   * @maximum solar_system_id 2147483647
   * @param signature_id Signature id such as `ABC-123` (any case).
   */
  @Delete('systems/{solar_system_id}/signatures/{signature_id}')
  @Tags('Map editing')
  @SuccessResponse(204, 'Deleted')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), system not on the map (`system_not_found`) or signature not found (`signature_not_found`)', {
    error: 'Signature not found',
    code: 'signature_not_found',
  })
  public async deleteSignature(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() solar_system_id: number,
    @Path() signature_id: string,
  ): Promise<void> {
    await this.signatures.remove(principalOf(req, 'map_key'), map_id, solar_system_id, signature_id);
    this.setStatus(204);
  }
}
