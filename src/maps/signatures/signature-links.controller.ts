import { Body, Controller, Delete, Path, Post, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
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
import type { DataResponse } from '../../http/data-response.js';
import type { LinkSignatureRequest, SignatureDto } from './signatures.dto.js';
import type { SignatureLinksService } from './signature-links.service.js';

/**
 * Linking a signature to the system its wormhole leads to (`/api/maps/{map_id}/signatures/{id}/link`).
 * A change and its `signatures_updated` event commit in one transaction.
 */
@Route('api/maps/{map_id}/signatures/{id}/link')
@Security('map_key')
@Response<ErrorResponse>(400, 'Malformed parameter or body (`validation_failed` with details)', MAP_PATH_VALIDATION_EXAMPLE)
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class SignatureLinksController extends Controller {
  constructor(private readonly links: SignatureLinksService) {
    super();
  }

  /**
   * Links a signature to the system it leads to: `linked_system_id` becomes `solar_system_target` and
   * `group` becomes `Wormhole`. The target must be a visible system of the map other than the
   * signature's own (404 `system_not_found` naming `solar_system_target`). Emits `signatures_updated`
   * for the signature's system (`updated_count` 1); linking again to the same system changes nothing
   * and emits nothing. Answers the signature.
   * @summary Link a signature to a system
   * @param map_id Map UUID or slug.
   * @param id Signature record id (the `id` UUID of a signature, not its `ABC-123` id).
   */
  @Post()
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`), signature (`signature_not_found`) or target system (`system_not_found`)', {
    error: 'System not found',
    code: 'system_not_found',
    details: [{ field: 'solar_system_target', message: '31000005 is not a system on this map' }],
  })
  public async linkSignature(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Path() id: string,
    @Body() body: LinkSignatureRequest,
  ): Promise<DataResponse<SignatureDto>> {
    return { data: await this.links.link(principalOf(req, 'map_key'), map_id, id, body.solar_system_target) };
  }

  /**
   * Clears a signature's link (`linked_system_id` null; `group` is kept). Emits `signatures_updated`
   * for the signature's system. 409 `signature_not_linked` when the signature has no link.
   * @summary Unlink a signature
   * @param map_id Map UUID or slug.
   * @param id Signature record id (the `id` UUID of a signature).
   */
  @Delete()
  @Tags('Map editing')
  @Response<ErrorResponse>(404, 'Unknown map (`map_not_found`) or signature (`signature_not_found`)', {
    error: 'Signature not found',
    code: 'signature_not_found',
  })
  @Response<ErrorResponse>(409, 'The signature is not linked', { error: 'Signature is not linked to a system', code: 'signature_not_linked' })
  public async unlinkSignature(@Request() req: ExRequest, @Path() map_id: string, @Path() id: string): Promise<DataResponse<SignatureDto>> {
    return { data: await this.links.unlink(principalOf(req, 'map_key'), map_id, id) };
  }
}
