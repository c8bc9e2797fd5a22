import spec from './generated/openapi.json' with { type: 'json' };
import { STREAM_OPENAPI_PATH, streamPathItem } from '../stream/stream.openapi.js';

/**
 * The OpenAPI document tsoa generates from the controllers (`npm run tsoa`, committed): the operations
 * express routes, which the API's own middleware reads (tokens before bodies, cached map reads).
 */
export function openapiSpec(): typeof spec {
  return spec;
}

const published = { ...spec, paths: { ...spec.paths, [STREAM_OPENAPI_PATH]: streamPathItem } };

/** The document served at /api/openapi.json and in the explorer: the controllers' plus the event stream, which is served outside tsoa. */
export function publishedOpenapi(): typeof published {
  return published;
}
