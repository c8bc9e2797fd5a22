import { Controller, Get, Response, Route, Tags } from '@tsoa/runtime';
import type { ErrorResponse } from '../http/error.dto.js';
import { eventCatalog } from './event-schemas.js';

/** One event type of the catalog. */
export interface EventTypeDto {
  /** The envelope's `type`. */
  type: string;
  description: string;
  /** JSON Schema (2020-12) of the envelope's `payload` for this type. */
  schema: Record<string, unknown>;
}

export interface EventCatalogResponse {
  data: EventTypeDto[];
}

/** The event catalog: which event types exist and what their payloads look like; no authentication. */
@Route('api/events')
@Tags('Events')
export class EventCatalogController extends Controller {
  /**
   * Every event type the platform emits, on the stream, in the event log and to webhooks (map event
   * types in the order of the spec, then `ping`, sent only to webhooks), each with a JSON Schema
   * (2020-12) of its `payload`. Every event carries the same envelope: `{"id", "type", "map_id", "ts",
   * "payload"}`. Needs no token.
   * @summary Event catalog
   */
  @Get('catalog')
  @Response<ErrorResponse>(429, 'Rate limit exceeded, per client address (see Retry-After)')
  public getEventCatalog(): EventCatalogResponse {
    return { data: eventCatalog() };
  }
}
