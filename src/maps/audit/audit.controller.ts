import { Controller, Get, Header, Query, SuccessResponse, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalOf } from '../../http/principal.js';
import type { ErrorResponse } from '../../http/error.dto.js';
import {
  DEPENDENCY_UNAVAILABLE_EXAMPLE,
  MAP_IDENTIFIER_REQUIRED_EXAMPLE,
  MAP_NOT_FOUND_EXAMPLE,
  RATE_LIMITED_EXAMPLE,
  MAP_KEY_UNAUTHORIZED_DESCRIPTION,
  MAP_KEY_UNAUTHORIZED_EXAMPLE,
} from '../../http/error-examples.js';
import type { DataResponse } from '../../http/data-response.js';
import type { CachedReadHeaders } from '../../http/cache-headers.js';
import type { AuditEntryDto, AuditPeriod } from './audit.dto.js';
import type { AuditService } from './audit.service.js';

/** The map's audit feed (`GET /api/map/audit`), as the reference server offers it, read from the event log. */
@Route('api/map')
@Tags('Map data')
@Security('map_key')
@Response<ErrorResponse>(400, 'Missing map selector or `period`, malformed parameter', MAP_IDENTIFIER_REQUIRED_EXAMPLE)
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to', MAP_NOT_FOUND_EXAMPLE)
@Response<ErrorResponse>(429, 'Rate limit exceeded (see Retry-After)', RATE_LIMITED_EXAMPLE)
@Response<ErrorResponse>(503, 'Database unavailable (see Retry-After)', DEPENDENCY_UNAVAILABLE_EXAMPLE)
export class AuditController extends Controller {
  constructor(private readonly audit: AuditService) {
    super();
  }

  /**
   * The map's events over the period, newest first (at most `limit`, default and maximum 1000), from
   * the event log (as far back as its retention keeps): each with `entity_type`, a readable
   * `event_name`, its `event_type`, the payload as `event_data`, the `character` the payload names and
   * `inserted_at`. `period` is required: 1H, 1D, 1W, 1M, 2M or 3M (a month is 31 days).
   * @summary Audit feed of the map
   * @param map_id Map UUID; give `map_id` or `slug` (or both, naming the same map).
   * @param slug Map slug; give `map_id` or `slug`.
   * @param period How far back: 1H, 1D, 1W, 1M, 2M or 3M.
   * @param limit Entries at most (1–1000, default 1000).
   * @param _if_none_match ETag of an earlier answer: 304 without a body while it is still the current one.
   * @isInt limit must be an integer
   * @minimum limit 1
   * @maximum limit 1000
   */
  @SuccessResponse<{ [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(200, 'Ok')
  @Response<void, { [H in keyof CachedReadHeaders]: CachedReadHeaders[H] }>(304, 'Not Modified: `If-None-Match` names the current ETag; no body')
  @Get('audit')
  public async getAudit(
    @Request() req: ExRequest,
    @Query() period: AuditPeriod,
    @Query() map_id?: string,
    @Query() slug?: string,
    @Query() limit?: number,
    @Header('If-None-Match') _if_none_match?: string,
  ): Promise<DataResponse<AuditEntryDto[]>> {
    return { data: await this.audit.feed(principalOf(req, 'map_key'), { map_id, slug }, period, limit) };
  }
}
