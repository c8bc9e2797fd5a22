import { Controller, Get, Query, Response, Route, Tags } from '@tsoa/runtime';
import type { StaticInfoService } from './static-info.service.js';
import type { ErrorResponse } from '../http/error.dto.js';
import { DEPENDENCY_UNAVAILABLE_EXAMPLE } from '../http/error-examples.js';
import type { DataResponse } from '../http/data-response.js';
import type { SystemStaticInfoDto } from './static-info.dto.js';
import { NotFoundError } from '../common/errors.js';

/** Static solar system data (spec 4.2); no authentication. */
@Route('api/common')
@Tags('Common')
export class StaticInfoController extends Controller {
  constructor(private readonly staticInfo: StaticInfoService) {
    super();
  }

  /**
   * Static information of a solar system. Needs no token.
   * @summary Static information of a solar system
   * @param id Solar system id.
   * @isInt id must be an integer
   * @minimum id 0
   * @maximum id 2147483647
   */
  @Get('system-static-info')
  @Response<ErrorResponse>(400, 'Missing or non-integer id')
  @Response<ErrorResponse>(404, 'Unknown solar system', { error: 'System not found', code: 'system_not_found' })
  @Response<ErrorResponse>(429, 'Rate limit exceeded, per client address (see Retry-After)', {
    error: 'Too many requests: limit is 100 per minute',
    code: 'rate_limited',
  })
  @Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
  public async getSystemStaticInfo(@Query() id: number): Promise<DataResponse<SystemStaticInfoDto>> {
    const info = await this.staticInfo.getSystemStaticInfo(id);
    if (!info) throw new NotFoundError('System not found', 'system_not_found');
    return { data: info };
  }
}
