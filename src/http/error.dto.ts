/** One field-level validation problem. */
export interface ErrorDetailDto {
  field: string;
  message: string;
}

/** Every error response: a message, a stable code, and per-field details for validation errors. */
export interface ErrorResponse {
  /** Human-readable message. */
  error: string;
  /** Stable snake_case code, e.g. `map_identifier_required`, `validation_failed`, `rate_limited`. */
  code: string;
  /** Present for validation failures: the first 20 problems found. */
  details?: ErrorDetailDto[];
  /**
   * Present when a validation failure found more problems than `details` lists: how many more (validation
   * stops once it has found 100, so a body may hold more still).
   * @isInt
   */
  details_omitted?: number;
}
