/** Shared documentation of the `/api/maps/{map_id}/…` controllers. */
import type { ErrorResponse } from '../http/error.dto.js';

/** The 400 every `/api/maps/{map_id}/…` endpoint documents. */
export const MAP_PATH_VALIDATION_EXAMPLE: ErrorResponse = {
  error: 'Request validation failed',
  code: 'validation_failed',
  details: [{ field: 'status', message: 'max 6' }],
};
