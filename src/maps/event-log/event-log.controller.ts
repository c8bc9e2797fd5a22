import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Request as ExRequest } from 'express';
import { principalOf } from '../../http/principal.js';
import type { EventLogService } from './event-log.service.js';
import type { ErrorResponse } from '../../http/error.dto.js';
import { MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE } from '../../http/error-examples.js';
import { BadRequestError } from '../../common/errors.js';
import { parseEventId, type EventEnvelope } from '../../events/envelope.js';
import { parseEventFilter } from '../../events/event-filter.js';
import { parseSystemFilter } from '../../events/system-filter.js';

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
@Response<ErrorResponse>(400, 'Malformed `after` id, `limit`, `events` or `systems`')
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
   * @param events Only these event types: a comma-separated list of type names, or `*` (every type, the default). Unknown names are a 400.
   * @param systems Only events that name one of these solar systems (a system's own events, a connection's either end, a kill's, signature's or rally point's system, a tracked character's location): a comma-separated list of at most 100 solar system ids. An empty item, a non-integer or more than 100 ids is a 400 naming `systems`. With `events`, both apply; `next_after` pages over the filtered events.
   */
  @Get()
  public async listEvents(
    @Request() req: ExRequest,
    @Path() map_id: string,
    @Query() after?: string,
    @Query() limit?: number,
    @Query() events?: string,
    @Query() systems?: string,
  ): Promise<EventLogResponse> {
    let afterId: string | undefined;
    if (after !== undefined && after !== '') {
      afterId = parseEventId(after);
      if (!afterId) throw new BadRequestError('invalid_event_id', '`after` must be an event id (ULID)', [{ field: 'after', message: 'must be a ULID' }]);
    }
    // Repeated parameters count too (`?systems=1&systems=2`), as on the stream.
    const all = (name: string, one: string | undefined) => {
      const raw = req.query[name];
      return Array.isArray(raw) ? raw.map(String) : one === undefined ? [] : [one];
    };
    const filters = { events: parseEventFilter(all('events', events)), systems: parseSystemFilter(all('systems', systems)) };
    return this.eventLog.page(principalOf(req, 'map_key'), map_id, afterId, limit ?? 100, filters);
  }
}
