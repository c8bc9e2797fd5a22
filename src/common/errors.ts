/**
 * One error model: services throw AppError (or a subclass); the error middleware in app.ts turns it
 * into `{"error", "code", "details"?}` JSON. Infrastructure errors are translated in toAppError().
 */

export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly details?: ErrorDetail[],
    public readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export class BadRequestError extends AppError {
  constructor(code: string, message: string, details?: ErrorDetail[]) {
    super(400, code, message, details);
  }
}

export class ValidationError extends AppError {
  /** `omitted`: further problems found and not listed in `details` (answered as `details_omitted`). */
  constructor(
    details: ErrorDetail[],
    message = 'Request validation failed',
    public readonly omitted = 0,
  ) {
    super(400, 'validation_failed', message, details);
  }
}

/** The text every 401 starts with: the reference server's, which existing clients match on (decisions §1). */
export const UNAUTHORIZED_MESSAGE = "Missing or invalid 'Bearer' token";

export class UnauthorizedError extends AppError {
  constructor(message = UNAUTHORIZED_MESSAGE, code = 'unauthorized') {
    super(401, code, message, undefined, { 'WWW-Authenticate': 'Bearer' });
  }
}

export class ForbiddenError extends AppError {
  constructor(code: string, message: string) {
    super(403, code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string, code = 'not_found') {
    super(404, code, message);
  }
}

export class ConflictError extends AppError {
  constructor(code: string, message: string) {
    super(409, code, message);
  }
}

export class DependencyUnavailableError extends AppError {
  constructor(what: string, retryAfterSeconds = 5) {
    super(503, 'dependency_unavailable', `${what} is unavailable, retry later`, undefined, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300', // too_many_connections
  // A database that does not answer in time is unavailable, not broken: retry later.
  '57014', // query_canceled (statement_timeout)
  '55P03', // lock_not_available (lock_timeout)
  '25P03', // idle_in_transaction_session_timeout
  'query_deadline_exceeded', // QueryDeadlineError: no answer at all, connection dropped (src/db/pg-options.ts)
]);

function findCode(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown; message?: unknown };
  if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return e.code;
  if (
    typeof e.message === 'string' &&
    /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|The client is closed|The client is offline|Socket closed unexpectedly/i.test(
      e.message,
    )
  ) {
    return 'ECONNREFUSED';
  }
  // A Redis Cluster between a master's loss and its replica's promotion (its slots are served again
  // shortly), or a client of a node the cluster client let go while it learned the new layout.
  if (typeof e.message === 'string' && /^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING)\b|^Disconnects client$/.test(e.message)) return 'ECONNREFUSED';
  if (Array.isArray(e.errors)) {
    for (const inner of e.errors) {
      const c = findCode(inner, depth + 1);
      if (c) return c;
    }
  }
  return findCode(e.cause, depth + 1);
}

function isJsonScalar(raw: unknown): boolean {
  if (typeof raw !== 'string') return false;
  try {
    const v: unknown = JSON.parse(raw);
    return v === null || typeof v !== 'object';
  } catch {
    return false;
  }
}

/** Translates infrastructure errors into AppErrors; returns undefined for unknown errors (→ 500). */
export function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { name?: string; code?: string; status?: number; statusCode?: number; type?: string; constructor?: { name?: string } };
  const ctor = e.constructor?.name ?? '';
  // body-parser errors
  if (e.type === 'entity.too.large') {
    const limit = (err as { limit?: unknown }).limit;
    return new AppError(
      413,
      'payload_too_large',
      `Request body exceeds the size limit${typeof limit === 'number' ? ` of this endpoint (${limit} bytes)` : ''}`,
    );
  }
  if (e.type === 'entity.parse.failed') {
    // body-parser's strict mode refuses a valid JSON null, string, number or boolean too: that is a body
    // of the wrong type, not broken JSON.
    if (isJsonScalar((err as { body?: unknown }).body))
      return new ValidationError([{ field: 'body', message: 'must be an object (or an array, where the endpoint takes one)' }]);
    return new BadRequestError('invalid_json', 'Request body is not valid JSON');
  }
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return new AppError(415, 'unsupported_media_type', 'Unsupported request body encoding');
  }
  if (e.type === 'request.aborted') return new BadRequestError('request_aborted', 'Request aborted');
  if (ctor === 'UniqueConstraintViolationException' || e.code === '23505') {
    return new ConflictError('conflict', 'A record with the same unique value already exists');
  }
  if (ctor === 'ForeignKeyConstraintViolationException' || e.code === '23503') {
    return new ConflictError('conflict', 'A referenced record does not exist or is still referenced');
  }
  if (e.code === '22P02' || e.code === '22003' || e.code === '22021' || e.code === '22001') {
    return new BadRequestError('invalid_input', 'A value is out of range or malformed');
  }
  const conn = findCode(err);
  if (conn || ctor === 'ConnectionException') {
    return new DependencyUnavailableError('A backing service');
  }
  if (typeof (e.status ?? e.statusCode) === 'number') {
    const status = (e.status ?? e.statusCode) as number;
    if (status >= 400 && status < 500) return new AppError(status, 'bad_request', 'Bad request');
  }
  return undefined;
}

export function errorBody(err: AppError): { error: string; code: string; details?: ErrorDetail[]; details_omitted?: number } {
  if (!err.details) return { error: err.message, code: err.code };
  const omitted = err instanceof ValidationError ? err.omitted : 0;
  return omitted > 0
    ? { error: err.message, code: err.code, details: err.details, details_omitted: omitted }
    : { error: err.message, code: err.code, details: err.details };
}
