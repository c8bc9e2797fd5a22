import { Controller, Get, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { AppDeps } from '../api/deps.js';
import type { ErrorResponse } from '../api/error.dto.js';
import { DEPENDENCY_UNAVAILABLE_EXAMPLE, RATE_LIMITED_EXAMPLE, UNAUTHORIZED_EXAMPLE } from '../api/error-examples.js';
import type { CharacterDto, DataResponse } from '../maps/map.dto.js';
import { ForbiddenError } from '../errors.js';
import { CHARACTER_COLUMNS, toCharacterDto } from '../maps/map-data.service.js';

/** Characters known to the service (spec 4.3). */
@Route('api/characters')
@Tags('Characters')
export class CharactersController extends Controller {
  constructor(private readonly deps: AppDeps) {
    super();
  }

  /**
   * Every character known to the service; `eve_id` is the id used in ACL operations. Accepts any valid
   * map key or ACL key. Switched off by `SERVICE_CHARACTER_API_DISABLED=true` (403).
   * @summary Characters known to the service
   */
  @Get()
  @Security('any_key')
  @Response<ErrorResponse>(401, 'Token missing or invalid', UNAUTHORIZED_EXAMPLE)
  @Response<ErrorResponse>(403, 'The character API is disabled on this server', {
    error: 'The character API is disabled on this server',
    code: 'character_api_disabled',
  })
  @Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
  @Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
  public async listCharacters(): Promise<DataResponse<CharacterDto[]>> {
    if (this.deps.config.characterApiDisabled) {
      throw new ForbiddenError('character_api_disabled', 'The character API is disabled on this server');
    }
    const rows = await this.deps
      .em()
      .getConnection()
      .execute<Record<string, unknown>[]>(`select ${CHARACTER_COLUMNS} from characters ch order by ch.name, ch.eve_id`);
    return { data: rows.map((r) => toCharacterDto(r)) };
  }
}
