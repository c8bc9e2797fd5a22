/**
 * Example error bodies shared by the controllers' `@Response` decorators (tsoa reads these constants
 * when it generates the OpenAPI spec). They are the bodies the error middleware really sends.
 */
import type { ErrorResponse } from './error.dto.js';

/*
 * 401s: one per security scheme. The message names the token the endpoint takes, then what was wrong
 * (src/auth/token-refusal.ts); each example is one of those messages (test/unit/token-refusal.test.ts).
 */
export const MAP_KEY_UNAUTHORIZED_DESCRIPTION = 'Map API key missing, malformed, revoked or unknown, or a token of another kind (the message says which)';
export const ACL_KEY_UNAUTHORIZED_DESCRIPTION = 'ACL API key missing, malformed or unknown, or a token of another kind (the message says which)';
export const ANY_KEY_UNAUTHORIZED_DESCRIPTION = 'Map or ACL API key missing, malformed, revoked or unknown, or the admin token (the message says which)';
export const ADMIN_UNAUTHORIZED_DESCRIPTION = 'Admin token missing, malformed or wrong, or a token of another kind (the message says which)';

/** The 401 of an endpoint that takes a map API key, called without a token. */
export const MAP_KEY_UNAUTHORIZED_EXAMPLE: ErrorResponse = {
  error: "Missing or invalid 'Bearer' token: this endpoint takes a map API key, and none was given",
  code: 'unauthorized',
};

/** The 401 of an endpoint that takes an ACL API key, called with a map key. */
export const ACL_KEY_UNAUTHORIZED_EXAMPLE: ErrorResponse = {
  error: "Missing or invalid 'Bearer' token: this endpoint takes an ACL API key, not a map API key",
  code: 'unauthorized',
};

/** The 401 of an endpoint that takes either key, called with the admin token. */
export const ANY_KEY_UNAUTHORIZED_EXAMPLE: ErrorResponse = {
  error: "Missing or invalid 'Bearer' token: this endpoint takes a map or ACL API key, not the admin token",
  code: 'unauthorized',
};

/** The 401 of an admin endpoint, called with a map key. */
export const ADMIN_UNAUTHORIZED_EXAMPLE: ErrorResponse = {
  error: "Missing or invalid 'Bearer' token: this endpoint takes the admin token, not a map API key",
  code: 'unauthorized',
};

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
