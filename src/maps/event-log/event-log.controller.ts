import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalOf } from '../../http/principal.js';
import type { EventLogService } from './event-log.service.js';
import type { ErrorResponse } from '../../http/error.dto.js';
import { MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE } from '../../http/error-examples.js';
import { BadRequestError } from '../../common/errors.js';
import { parseEventId, type EventEnvelope } from '../../events/envelope.js';

export interface EventLogResponse {
  /** Events oldest first; their ids are strictly increasing. */
  data: EventEnvelope[];
  /** Pass as `after` to read on; null when this page was the end of the log. */
  next_after: string | null;
}

/** The event log (decisions §5) for polling clients and resync after a stream reset. */
@Route('api/maps/{map_id}/events')
@Tags('Events')
@Security('map_key')
@Response<ErrorResponse>(400, 'Malformed `after` id or `limit`')
@Response<ErrorResponse>(401, MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE)
@Response<ErrorResponse>(404, 'Unknown map, or a map this key does not belong to')
@Response<ErrorResponse>(429, 'Rate limit exceeded')
export class EventsController extends Controller {
  constructor(private readonly eventLog: EventLogService) {
    super();
  }

  /**
   * Events of the map after `after` (exclusive), oldest first, as event envelopes. Events are
   * kept EVENTS_RETENTION_DAYS days.
   * @summary Event log of a map
   * @param map_id Map UUID or slug.
   * @param after ULID of the last event already seen; omitted means from the oldest kept event.
   * @param limit Page size.
   * @isInt limit must be an integer
   * @minimum limit 1
   * @maximum limit 1000
   */
  @Get()
  public async listEvents(@Request() req: ExRequest, @Path() map_id: string, @Query() after?: string, @Query() limit?: number): Promise<EventLogResponse> {
    let afterId: string | undefined;
    if (after !== undefined && after !== '') {
      afterId = parseEventId(after);
      if (!afterId) throw new BadRequestError('invalid_event_id', '`after` must be an event id (ULID)', [{ field: 'after', message: 'must be a ULID' }]);
    }
    return this.eventLog.page(principalOf(req, 'map_key'), map_id, afterId, limit ?? 100);
  }
}
