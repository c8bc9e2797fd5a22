/**
 * The OpenAPI description of GET /api/maps/{map_id}/events/stream. The stream is served by the stream
 * role on node:http (not a tsoa controller), so its path item is written here and merged into the
 * document the API serves (`openapiSpec`).
 */
import type { ErrorResponse } from '../http/error.dto.js';
import { MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE } from '../http/error-examples.js';

const error = (description: string, example?: ErrorResponse) => ({
  description,
  content: {
    'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' }, ...(example ? { examples: { 'Example 1': { value: example } } } : {}) },
  },
});

export const STREAM_OPENAPI_PATH = '/api/maps/{map_id}/events/stream';

export const streamPathItem = {
  get: {
    operationId: 'StreamEvents',
    summary: 'Live events of a map (Server-Sent Events)',
    description: [
      "A `text/event-stream` of the map's events: first `retry: <ms>`, then `event: connected` with",
      '`{"map_id", "server_time", "last_event_id"}`, then each event as `id: <event id>` and `data: <envelope JSON>`',
      '(the `EventEnvelope` schema; no `event:` line), and `: keepalive` comments when idle.',
      'With `last_event_id` (or the `Last-Event-ID` header) every later event of the map that matches',
      '`events` comes first, in order, with no gap or duplicate before the live ones; an id older than the',
      'kept history, or after the map\'s newest event, gets `event: reset` with `{"reason", "earliest_event_id"}` instead:',
      'never a partial replay, also after Redis lost events (they are then read from the event log).',
      "Resume from a map read's `Map-Event-Id` header (`0` for a map without events: every event of its log) to get",
      'exactly the events after that answer. `event: presence_changed` frames (no `id:` line) carry',
      '`{"connections", "keys": [{"key_id", "name", "connections"}]}` (as `GET /api/maps/{map_id}/presence`): once shortly',
      'after connecting, then when the numbers change, at most one a second (not for keys of the reference profile).',
      'Needs `SERVICE_SSE_ENABLED=true` and a process running the stream role. Connections are capped per map',
      'and per key across every process (429 with `Retry-After`).',
      '"Try it out" waits for the stream to end and shows nothing meanwhile: use `curl -sN` or the event console',
      'at `/console`.',
    ].join('\n'),
    tags: ['Events'],
    security: [{ map_key: [] }],
    parameters: [
      { in: 'path', name: 'map_id', required: true, description: 'Map UUID or slug.', schema: { type: 'string' } },
      {
        in: 'query',
        name: 'events',
        required: false,
        description: 'Event types to receive: a comma list (or the parameter repeated) of `EventType` names, or `*` (the default) for all.',
        schema: { type: 'string' },
      },
      {
        in: 'query',
        name: 'systems',
        required: false,
        description:
          "Only events that name one of these solar systems (a system's own events, a connection's either end, a kill's, signature's or rally point's system, a tracked character's location): a comma list (or the parameter repeated) of at most 100 solar system ids. With `events`, both apply; a resume replays only matching events. Malformed (an empty item, not an integer, more than 100): 400 `validation_failed` naming `systems`.",
        schema: { type: 'string' },
      },
      {
        in: 'query',
        name: 'last_event_id',
        required: false,
        description:
          "Id of the last event already seen (or a map read's `Map-Event-Id`; `0`: before the map's first event): resume after it. Wins over the `Last-Event-ID` header.",
        schema: { type: 'string' },
      },
      {
        in: 'header',
        name: 'Last-Event-ID',
        required: false,
        description: 'What a browser EventSource sends when it reconnects: the id of the last event it received.',
        schema: { type: 'string' },
      },
      {
        in: 'query',
        name: 'token',
        required: false,
        description: 'The map API key, for clients that cannot send an Authorization header (EventSource). Never logged.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      '200': {
        description: 'The stream; it stays open until the client leaves or the server closes it (the client then reconnects with its last id).',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
      '400': error(
        'A map id that is not valid percent-encoding (`bad_request`), an unknown event type in `events` or a malformed `systems` list (`validation_failed`), or a malformed last event id (`invalid_event_id`)',
      ),
      '401': error(MAP_KEY_UNAUTHORIZED_DESCRIPTION, MAP_KEY_UNAUTHORIZED_EXAMPLE),
      '403': error('Server-Sent Events are switched off on this server (`sse_disabled`)'),
      '404': error('Unknown map, or a map this key does not belong to'),
      '429': error('Too many streams of this map, key or process (`map_stream_limit`, `key_stream_limit`, `server_stream_limit`); see Retry-After'),
      '503': error(
        'The process is shutting down, does not run the stream role, or the connection counts are being rebuilt after Redis lost them (`shutting_down`, `stream_not_served`, `dependency_unavailable`); see Retry-After',
      ),
    },
  },
};
