/**
 * Example error bodies shared by the controllers' `@Response` decorators (tsoa reads these constants
 * when it generates the OpenAPI spec). They are the bodies the error middleware really sends.
 */
import type { ErrorResponse } from './error.dto.js';

export const UNAUTHORIZED_EXAMPLE: ErrorResponse = { error: "Missing or invalid 'Bearer' token", code: 'unauthorized' };

export const MAP_NOT_FOUND_EXAMPLE: ErrorResponse = { error: 'Map not found', code: 'map_not_found' };

export const MAP_IDENTIFIER_REQUIRED_EXAMPLE: ErrorResponse = {
  error: 'Map identifier required. Provide `map_id` or `slug`.',
  code: 'map_identifier_required',
};

export const RATE_LIMITED_EXAMPLE: ErrorResponse = { error: 'Too many requests: limit is 100 per minute', code: 'rate_limited' };

export const DEPENDENCY_UNAVAILABLE_EXAMPLE: ErrorResponse = {
  error: 'A backing service is unavailable, retry later',
  code: 'dependency_unavailable',
};
