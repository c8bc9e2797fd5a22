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

/**
 * The configured secrets (the admin token, the encryption key, passwords of the database and Redis
 * URLs) of this process: whatever their shape, they are redacted from every log line, wherever they
 * appear (a URL's path segment or query value, a header, an error message). Shorter values than this
 * are not searched for: a short password would blank out ordinary words of the logs.
 */
const configuredSecrets = new Set<string>();
const SECRET_MIN_LENGTH = 12;

/** Adds configured secrets to what every logger of the process redacts (src/core/core.ts, at start). */
export function addLogSecrets(values: Iterable<string | undefined | null>): void {
  for (const value of values) if (value && value.length >= SECRET_MIN_LENGTH) configuredSecrets.add(value);
}

/** The password of a connection URL (`postgres://user:password@host/db`), if it has one. */
export function urlPassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

function holdsSecret(text: string): boolean {
  for (const secret of configuredSecrets) if (text.includes(secret)) return true;
  return false;
}

/** A log line with every configured secret, as written or escaped (JSON, percent-encoding), replaced. */
function scrubSecrets(line: string): string {
  if (configuredSecrets.size === 0) return line;
  let out = line;
  for (const secret of configuredSecrets) {
    for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])) {
      if (out.includes(form)) out = out.replaceAll(form, '[redacted]');
    }
  }
  return out;
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'mapintel' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      // The last word: configured secrets are blanked in the line as written, whichever field holds them.
      hooks: { streamWrite: scrubSecrets },
    },
    destination,
  );
}

/** A query parameter whose name contains one of these words carries a secret (`access_token`, `x-api-key`, …). */
const SECRET_NAME = /token|key|secret|passw(or)?d/;

/** mapintel's own tokens (map keys, ACL keys, the generated admin token), wherever they appear. */
const OWN_TOKEN = /(?:mik|acl|adm)_[A-Za-z0-9_-]{20,}/i;

/** Percent-decodes until nothing changes (`%2574` is `%74` is `t`); malformed escapes decode byte by byte. */
function decodeFully(text: string): string {
  let current = text;
  for (let i = 0; i < 5; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      next = current.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
    if (next === current) break;
    current = next;
  }
  return current;
}

/**
 * A query parameter name as a reader of it could see it: `+` as space, percent-decoded (repeatedly),
 * folded (`ｔｏｋｅｎ`, `TOKEN`) and without NULs, whitespace and other control or invisible characters
 * (`token%00`, `to%09ken`).
 */
function paramName(raw: string): string {
  return decodeFully(raw.replace(/\+/g, ' '))
    .normalize('NFKC')
    .replace(/[\s\p{C}]/gu, '')
    .toLowerCase();
}

/**
 * A URL for logging: the value of every query parameter whose name contains token, key, secret or
 * password (however spelled or encoded), and any path segment or value that holds one of mapintel's
 * own tokens or a configured secret (addLogSecrets, however encoded), become `[redacted]`. A `#` is not treated as the end of the query: Node hands it through
 * from raw clients, and what follows it is redacted like the rest.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q))
    .split('/')
    .map((segment) => {
      const decoded = decodeFully(segment);
      return OWN_TOKEN.test(decoded) || holdsSecret(decoded) ? '[redacted]' : segment;
    })
    .join('/');
  if (q < 0) return path;
  const redacted = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      if (holdsSecret(decodeFully(name.replace(/\+/g, ' ')))) return '[redacted]';
      if (SECRET_NAME.test(paramName(name))) return `${name}=[redacted]`;
      const decoded = decodeFully(pair.replace(/\+/g, ' '));
      return OWN_TOKEN.test(decoded) || holdsSecret(decoded) ? (eq < 0 ? '[redacted]' : `${name}=[redacted]`) : pair;
    })
    .join('&');
  return `${path}?${redacted}`;
}

/** mapintel's token formats: an id shaped like one is a credential sent in the wrong header. */
const CREDENTIAL_ID = /(?:mik|acl|adm)_/i;
const SAFE_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * The incoming `x-request-id` when it is safe to echo and log: at most 128 safe characters, not shaped
 * like one of mapintel's tokens and not the admin token itself. Otherwise undefined (a fresh id is used).
 */
export function acceptedRequestId(incoming: unknown, adminToken: string | undefined): string | undefined {
  if (typeof incoming !== 'string' || !SAFE_ID.test(incoming) || CREDENTIAL_ID.test(incoming)) return undefined;
  if (adminToken && incoming.includes(adminToken)) return undefined;
  return incoming;
}
