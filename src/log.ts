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

const SECRET_PARAMS = new Set(['token', 'api_key', 'key']);

/** A query parameter name as the query parser reads it: percent-decoded, `+` as space, without `[...]`. */
function paramName(raw: string): string {
  let name = raw.replace(/\+/g, ' ');
  try {
    name = decodeURIComponent(name);
  } catch {
    // malformed escape: compare the raw text
  }
  return name.replace(/\[.*$/s, '').trim().toLowerCase();
}

/**
 * Removes the `token` query parameter (stream clients may send their key there), and `api_key`/`key`,
 * from a URL for logging, however the name is spelled (`TOKEN`, `%74oken`, `token[]`).
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const redacted = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return SECRET_PARAMS.has(paramName(name)) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q + 1)}${redacted}${hash < 0 ? '' : url.slice(hash)}`;
}
