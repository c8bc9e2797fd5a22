import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths redacted from every log line: tokens, keys and secrets never reach the logs. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'token',
  'apiKey',
  'api_key',
  'secret',
  'adminToken',
  'encryptionKey',
  '*.token',
  '*.api_key',
  '*.apiKey',
  '*.secret',
  '*.password',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'mapintel' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/** Removes the `token` query parameter (stream clients may send their key there) from a URL for logging. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:token|api_key|key)=)[^&#]*/gi, '$1[redacted]');
}
