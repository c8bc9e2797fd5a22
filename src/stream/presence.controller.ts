import { Controller, Get, Path, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalOf } from '../http/principal.js';
import type { ErrorResponse } from '../http/error.dto.js';
import { MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE } from '../http/error-examples.js';
import type { PresenceDto, PresenceService } from './presence.js';

/** Who is watching a map live (docs/api.md, "Presence"). */
@Route('api/maps/{map_id}/presence')
@Tags('Events')
@Security('map_key')
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to')
@Response<ErrorResponse>(429, 'Rate limit exceeded')
@Response<ErrorResponse>(503, 'Redis unavailable (see Retry-After)')
export class PresenceController extends Controller {
  constructor(private readonly presence: PresenceService) {
    super();
  }

  /**
   * The open stream connections (`GET /api/maps/{map_id}/events/stream`) of the map, on every stream
   * process, in all and per API key of the map: the key's id and name (never the key itself), most
   * connections first. True as soon as a connection is admitted or closed; a stream process that dies
   * without closing its connections is counted until its lease expires (25 s by default). Any map key of
   * the map may read it, as it reads the map. Streams send the same object as `presence_changed` frames.
   * @summary Who is watching the map
   * @param map_id Map UUID or slug.
   * @example map_id "my-map"
   */
  @Get()
  public async getPresence(@Request() req: ExRequest, @Path() map_id: string): Promise<{ data: PresenceDto }> {
    return { data: await this.presence.of(principalOf(req, 'map_key'), map_id) };
  }
}
