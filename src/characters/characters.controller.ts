import { Controller, Get, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalIn } from '../http/principal.js';
import type { ErrorResponse } from '../http/error.dto.js';
import {
  DEPENDENCY_UNAVAILABLE_EXAMPLE,
  RATE_LIMITED_EXAMPLE,
  ANY_KEY_UNAUTHORIZED_DESCRIPTION,
  ANY_KEY_UNAUTHORIZED_EXAMPLE,
} from '../http/error-examples.js';
import type { DataResponse } from '../http/data-response.js';
import type { CharacterDto } from './character.dto.js';
import type { CharactersService } from './characters.service.js';

/** Characters known to the service (spec 4.3). */
@Route('api/characters')
@Tags('Characters')
export class CharactersController extends Controller {
  constructor(private readonly characters: CharactersService) {
    super();
  }

  /**
   * Every character known to the service; `eve_id` is the id used in ACL operations. Accepts any valid
   * map key or ACL key. Switched off by `SERVICE_CHARACTER_API_DISABLED=true` (403).
   * @summary Characters known to the service
   */
  @Get()
  @Security('any_key')
  @Response<ErrorResponse>(401, ANY_KEY_UNAUTHORIZED_DESCRIPTION, ANY_KEY_UNAUTHORIZED_EXAMPLE)
  @Response<ErrorResponse>(403, 'The character API is disabled on this server', {
    error: 'The character API is disabled on this server',
    code: 'character_api_disabled',
  })
  @Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
  @Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
  public async listCharacters(@Request() req: ExRequest): Promise<DataResponse<CharacterDto[]>> {
    return { data: await this.characters.list(principalIn(req)) };
  }
}
