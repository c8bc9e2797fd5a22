import type { ErrorRequestHandler } from 'express';
import { ValidateError } from '@tsoa/runtime';
import type { AppDeps } from './deps.js';
import { AppError, errorBody, toAppError, ValidationError } from '../common/errors.js';
import { redactUrl } from '../common/log.js';
import { validationDetails } from '../http/validation-details.js';
import { MAX_VALIDATION_DETAILS } from './bounded-validation.js';

/** The one error stage: AppError → its JSON; tsoa validation → 400; infrastructure → 4xx/503; else 500. */
export function errorHandler(deps: AppDeps): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let appErr: AppError | undefined;
    if (err instanceof ValidateError) {
      // The first MAX_VALIDATION_DETAILS problems, and how many more were found (bounded-validation.ts).
      const details = validationDetails(err.fields);
      appErr = new ValidationError(details.slice(0, MAX_VALIDATION_DETAILS), undefined, Math.max(0, details.length - MAX_VALIDATION_DETAILS));
    } else appErr = toAppError(err);
    if (!appErr) {
      deps.log.error({ err, method: req.method, url: redactUrl(req.originalUrl) }, 'unhandled error');
      appErr = new AppError(500, 'internal_error', 'Internal server error');
    } else if (appErr.status === 503) {
      deps.log.warn({ err: { message: (err as Error)?.message }, url: redactUrl(req.originalUrl) }, 'dependency unavailable');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [k, v] of Object.entries(appErr.headers)) res.setHeader(k, v);
    res.status(appErr.status).json(errorBody(appErr));
  };
}
