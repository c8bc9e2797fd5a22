/**
 * The typed configuration: docs/configuration.md documents exactly the settings of src/common/config.ts, and
 * loadConfig parses, bounds and validates them, reporting every problem at once.
 */
import { describe, expect, it } from 'vitest';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, loadConfig, loadDemoConfig, SETTINGS } from '../../src/common/config.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = path.join(ROOT, 'docs/configuration.md');

interface DocRow {
  name: string;
  meaning: string;
  default: string;
  unit: string;
}

const cell = (text: string) => text.trim().replace(/^`(.*)`$/s, '$1');

/** The rows of the markdown table whose header is `| Name | Meaning | Default | Unit |`. */
function parseSettingsTable(markdown: string): DocRow[] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((l) => /^\|\s*Name\s*\|\s*Meaning\s*\|\s*Default\s*\|\s*Unit\s*\|\s*$/i.test(l.trim()));
  if (header < 0) throw new Error('docs/configuration.md has no table with the header | Name | Meaning | Default | Unit |');
  if (!/^\|(\s*:?-+:?\s*\|){4}\s*$/.test(lines[header + 1]!.trim())) throw new Error('the settings table has no separator row');
  const rows: DocRow[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.trim().startsWith('|')) break;
    const cells = line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|');
    if (cells.length !== 4) throw new Error(`settings table row does not have 4 cells: ${line}`);
    const [name, meaning, def, unit] = cells.map(cell) as [string, string, string, string];
    rows.push({ name, meaning, default: def === '(unset)' ? '' : def, unit });
  }
  return rows;
}

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  return [];
}

const KEY_32 = Buffer.alloc(32, 9).toString('base64');

describe('docs/configuration.md', () => {
  it('lists exactly the settings of src/common/config.ts, with the same defaults and units', async () => {
    const rows = parseSettingsTable(await readFile(DOCS, 'utf8'));
    const documented = rows.map((r) => r.name);
    expect(new Set(documented).size, 'a setting is listed twice').toBe(documented.length);
    expect([...documented].sort()).toEqual(SETTINGS.map((s) => s.name).sort());
    for (const s of SETTINGS) {
      const row = rows.find((r) => r.name === s.name)!;
      expect({ name: s.name, default: row.default, unit: row.unit }).toEqual({ name: s.name, default: s.default, unit: s.unit });
      expect(row.meaning, `meaning of ${s.name}`).not.toBe('');
    }
  });

  it('explains the embedded default, DATABASE_URL, REDIS_URL and the secrets', async () => {
    const text = await readFile(DOCS, 'utf8');
    for (const word of ['DATABASE_URL', 'REDIS_URL', 'DATA_DIR', 'SERVICE_ENCRYPTION_KEY', 'SERVICE_ADMIN_TOKEN', 'openssl rand -base64 32']) {
      expect(text).toContain(word);
    }
  });
});

describe('SETTINGS', () => {
  it('declares each setting once, with a meaning and a unit', () => {
    const names = SETTINGS.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const s of SETTINGS) {
      expect(s.name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(s.meaning.length, s.name).toBeGreaterThan(10);
      expect(s.unit, s.name).not.toBe('');
    }
  });

  it('is the only place that reads process.env in src/', async () => {
    const offenders: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(file);
        else if (/\.ts$/.test(entry.name) && path.relative(ROOT, file) !== path.join('src', 'common', 'config.ts')) {
          if (/process\.env\b/.test(await readFile(file, 'utf8'))) offenders.push(path.relative(ROOT, file));
        }
      }
    };
    await walk(path.join(ROOT, 'src'));
    expect(offenders).toEqual([]);
  });
});

describe('loadDemoConfig', () => {
  it('accepts local and http webhook receivers unless the environment says otherwise; serve does not', () => {
    expect(loadDemoConfig({}).webhooksAllowInsecureUrls).toBe(true);
    expect(loadDemoConfig({ SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'false' }).webhooksAllowInsecureUrls).toBe(false);
    expect(loadDemoConfig({ SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: '' }).webhooksAllowInsecureUrls).toBe(true);
    expect(loadConfig({}).webhooksAllowInsecureUrls).toBe(false);
    // Everything else as serve reads it.
    expect({ ...loadDemoConfig({ PORT: '9' }), webhooksAllowInsecureUrls: false }).toEqual(loadConfig({ PORT: '9' }));
  });
});

describe('loadConfig', () => {
  it('puts the embedded PostgreSQL below every range systems hand to outgoing connections by default', () => {
    // Linux 32768-60999, macOS and Windows 49152-65535: a port in there can be taken at any moment by
    // some program's connection, and the embedded server would fail to start now and then.
    expect(loadConfig({}).embeddedPgPort).toBeLessThan(32768);
  });

  it('uses the documented defaults when nothing is set', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      publicBaseUrl: 'http://localhost:8080',
      databaseUrl: undefined,
      databasePoolMax: 10,
      databasePoolMin: 2,
      databaseSchema: 'public',
      dataDir: './data',
      embeddedPgPort: 25432,
      redisUrl: undefined,
      redisKeyPrefix: 'mapintel:',
      adminToken: undefined,
      encryptionKey: undefined,
      characterApiDisabled: false,
      sseEnabled: false,
      webhooksEnabled: false,
      rateLimitPerMinute: 100,
      trustedProxies: [],
      maxBodyBytes: 1_048_576,
      requestTimeoutMs: 30_000,
      shutdownTimeoutMs: 10_000,
      logLevel: 'info',
    });
  });

  it('treats an empty variable as unset and ignores variables it does not declare', () => {
    const c = loadConfig({ PORT: '', LOG_LEVEL: '', DATABASE_URL: '', SOMETHING_ELSE: 'x', PATH: '/bin' });
    expect(c.port).toBe(8080);
    expect(c.logLevel).toBe('info');
    expect(c.databaseUrl).toBeUndefined();
  });

  it('reads every setting when given', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://u:p@db:5432/mapintel',
      DATABASE_POOL_MAX: '20',
      DATABASE_SCHEMA: 'tenant_1',
      REDIS_URL: 'rediss://cache:6380',
      REDIS_KEY_PREFIX: 'mi:',
      SERVICE_ADMIN_TOKEN: 'a'.repeat(16),
      SERVICE_ENCRYPTION_KEY: KEY_32,
      SERVICE_RATE_LIMIT_PER_MINUTE: '250',
      SERVICE_TRUSTED_PROXIES: ' 10.0.0.0/8, ,192.168.1.1 ',
      SERVICE_MAX_BODY_BYTES: '2048',
      SERVICE_SHUTDOWN_TIMEOUT_MS: '0',
      LOG_LEVEL: 'debug',
    });
    expect(c).toMatchObject({
      port: 9000,
      host: '127.0.0.1',
      publicBaseUrl: 'http://127.0.0.1:9000',
      databaseUrl: 'postgres://u:p@db:5432/mapintel',
      databasePoolMax: 20,
      databaseSchema: 'tenant_1',
      redisUrl: 'rediss://cache:6380',
      redisKeyPrefix: 'mi:',
      adminToken: 'a'.repeat(16),
      encryptionKey: KEY_32,
      rateLimitPerMinute: 250,
      trustedProxies: ['10.0.0.0/8', '192.168.1.1'],
      maxBodyBytes: 2048,
      shutdownTimeoutMs: 0,
      logLevel: 'debug',
    });
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://maps.example.org' }).publicBaseUrl).toBe('https://maps.example.org');
  });

  it('reads the database deadlines: 15 s query, 5 s connect and lock, 60 s idle in transaction by default; 0 switches all but connect off', () => {
    expect(loadConfig({})).toMatchObject({
      databaseQueryTimeoutMs: 15_000,
      databaseConnectTimeoutMs: 5000,
      databaseLockTimeoutMs: 5000,
      databaseIdleInTransactionTimeoutMs: 60_000,
    });
    const off = { DATABASE_QUERY_TIMEOUT_MS: '0', DATABASE_LOCK_TIMEOUT_MS: '0', DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '0' };
    expect(loadConfig(off)).toMatchObject({ databaseQueryTimeoutMs: 0, databaseLockTimeoutMs: 0, databaseIdleInTransactionTimeoutMs: 0 });
    expect(problemsOf({ DATABASE_CONNECT_TIMEOUT_MS: '0', DATABASE_QUERY_TIMEOUT_MS: '-1' })).toEqual([
      'DATABASE_CONNECT_TIMEOUT_MS must be an integer from 100 to 600000 (got "0")',
      'DATABASE_QUERY_TIMEOUT_MS must be an integer from 0 to 86400000 (got "-1")',
    ]);
  });

  it('parses booleans: true/1/yes/on and false/0/no/off, in any case', () => {
    for (const v of ['true', 'TRUE', '1', 'yes', 'On', ' true ']) {
      expect(loadConfig({ SERVICE_SSE_ENABLED: v }).sseEnabled, v).toBe(true);
    }
    for (const v of ['false', 'False', '0', 'no', 'OFF']) {
      expect(loadConfig({ SERVICE_SSE_ENABLED: v }).sseEnabled, v).toBe(false);
    }
    expect(loadConfig({ SERVICE_CHARACTER_API_DISABLED: 'true' }).characterApiDisabled).toBe(true);
    expect(loadConfig({ SERVICE_WEBHOOKS_ENABLED: 'yes' }).webhooksEnabled).toBe(true);
    expect(problemsOf({ SERVICE_WEBHOOKS_ENABLED: 'maybe' })).toEqual(['SERVICE_WEBHOOKS_ENABLED must be true or false (got "maybe")']);
  });

  it('reads the webhook retry schedule as a list of durations', () => {
    expect(loadConfig({}).webhookRetryWaitsMs).toEqual([1_000, 5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000]);
    expect(loadConfig({ WEBHOOK_RETRY_WAITS: '250ms, 2s,1m,1h,40' }).webhookRetryWaitsMs).toEqual([250, 2_000, 60_000, 3_600_000, 40]);
    for (const bad of ['1x', '1s,,2s', '-1s', 'soon']) {
      expect(problemsOf({ WEBHOOK_RETRY_WAITS: bad }), bad).toEqual([
        `WEBHOOK_RETRY_WAITS must be a comma list of durations such as 1s,5s,30s,2m,1h (got "${bad}")`,
      ]);
    }
  });

  it('rejects non-boolean text for every boolean setting', () => {
    for (const s of SETTINGS.filter((x) => x.unit === 'boolean')) {
      expect(problemsOf({ [s.name]: 'enabled' }), s.name).toEqual([`${s.name} must be true or false (got "enabled")`]);
    }
  });

  it('rejects non-integers for every integer setting', () => {
    const integers = SETTINGS.filter((s) => /^\d+$/.test(s.default));
    expect(integers.length).toBeGreaterThan(5);
    for (const s of integers) {
      for (const bad of ['abc', '1.5', '1e3', '0x10', '12abc']) {
        const problems = problemsOf({ [s.name]: bad });
        expect(problems, `${s.name}=${bad}`).toHaveLength(1);
        expect(problems[0]).toMatch(new RegExp(`^${s.name} must be an integer from -?\\d+ to \\d+ \\(got "${bad.replace('.', '\\.')}"\\)$`));
      }
    }
  });

  it.each([
    ['PORT', 0, 65535, 'port'],
    ['EMBEDDED_PG_PORT', 1, 65535, 'embeddedPgPort'],
    ['DATABASE_POOL_MAX', 1, 1000, 'databasePoolMax'],
    ['SERVICE_RATE_LIMIT_PER_MINUTE', 1, 1_000_000, 'rateLimitPerMinute'],
    ['SERVICE_MAX_BODY_BYTES', 1024, 100 * 1024 * 1024, 'maxBodyBytes'],
    ['SERVICE_SHUTDOWN_TIMEOUT_MS', 0, 600_000, 'shutdownTimeoutMs'],
    ['SERVICE_REQUEST_TIMEOUT_MS', 100, 600_000, 'requestTimeoutMs'],
  ] as const)('bounds %s to %i..%i', (name, min, max, field) => {
    expect(loadConfig({ [name]: String(min) })[field]).toBe(min);
    expect(loadConfig({ [name]: String(max) })[field]).toBe(max);
    expect(loadConfig({ [name]: ` ${max} ` })[field]).toBe(max);
    expect(problemsOf({ [name]: String(min - 1) })).toEqual([`${name} must be an integer from ${min} to ${max} (got "${min - 1}")`]);
    expect(problemsOf({ [name]: String(max + 1) })).toEqual([`${name} must be an integer from ${min} to ${max} (got "${max + 1}")`]);
  });

  it('accepts a SERVICE_ENCRYPTION_KEY of exactly 32 bytes in base64 only', () => {
    expect(loadConfig({ SERVICE_ENCRYPTION_KEY: KEY_32 }).encryptionKey).toBe(KEY_32);
    const message = 'SERVICE_ENCRYPTION_KEY must be 32 bytes encoded as base64';
    expect(problemsOf({ SERVICE_ENCRYPTION_KEY: Buffer.alloc(31, 1).toString('base64') })).toEqual([message]);
    expect(problemsOf({ SERVICE_ENCRYPTION_KEY: Buffer.alloc(33, 1).toString('base64') })).toEqual([message]);
    expect(problemsOf({ SERVICE_ENCRYPTION_KEY: Buffer.alloc(16, 1).toString('base64') })).toEqual([message]);
    // 32 characters of text are not 32 bytes of key; neither is a 64-digit hex key.
    expect(problemsOf({ SERVICE_ENCRYPTION_KEY: 'a-32-character-passphrase-123456' })).toEqual([message]);
    expect(problemsOf({ SERVICE_ENCRYPTION_KEY: 'ab'.repeat(32) })).toEqual([message]);
  });

  it('validates URLs, the schema name, the admin token and the log level', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://db/x' })).toEqual(['DATABASE_URL must start with postgres:// or postgresql://']);
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/x' }).databaseUrl).toBe('postgresql://db/x');
    expect(problemsOf({ REDIS_URL: 'http://cache' })).toEqual(['REDIS_URL must start with redis:// or rediss://']);
    expect(problemsOf({ DATABASE_SCHEMA: 'Public; drop' })).toEqual(['DATABASE_SCHEMA must be a lower-case SQL identifier']);
    expect(problemsOf({ SERVICE_ADMIN_TOKEN: 'short' })).toEqual(['SERVICE_ADMIN_TOKEN must be at least 16 characters']);
    expect(problemsOf({ LOG_LEVEL: 'verbose' })).toEqual(['LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent']);
  });

  it('refuses a SERVICE_ADMIN_TOKEN with characters a bearer token cannot carry, naming the allowed ones', () => {
    const message = 'SERVICE_ADMIN_TOKEN may contain only letters, digits and - . _ ~ + / = (at most 256 characters): openssl rand -hex 32';
    for (const token of [
      'admin:token:0123456789',
      'admin!token!0123456789',
      'admin token 0123456789',
      'admin,token;0123456789',
      'tökenwithumlaut0123',
      'a'.repeat(257),
    ]) {
      expect(problemsOf({ SERVICE_ADMIN_TOKEN: token }), token).toEqual([message]);
    }
    for (const token of ['adm_' + 'A-z0_'.repeat(8), 'a'.repeat(16), 'a'.repeat(256), 'base64+/token=value==', 'dotted.tilde~token-1']) {
      expect(loadConfig({ SERVICE_ADMIN_TOKEN: token }).adminToken, token).toBe(token);
    }
  });

  it('keeps DATABASE_POOL_MIN idle connections, never more than DATABASE_POOL_MAX', () => {
    expect(loadConfig({ DATABASE_POOL_MIN: '0' }).databasePoolMin).toBe(0);
    expect(loadConfig({ DATABASE_POOL_MIN: '4', DATABASE_POOL_MAX: '6' })).toMatchObject({ databasePoolMin: 4, databasePoolMax: 6 });
    expect(loadConfig({ DATABASE_POOL_MIN: '8', DATABASE_POOL_MAX: '3' })).toMatchObject({ databasePoolMin: 3, databasePoolMax: 3 });
    expect(loadConfig({ DATABASE_POOL_MAX: '1' })).toMatchObject({ databasePoolMin: 1, databasePoolMax: 1 });
    for (const bad of ['-1', '1001', 'two', '1.5']) {
      expect(problemsOf({ DATABASE_POOL_MIN: bad }), bad).toEqual([`DATABASE_POOL_MIN must be an integer from 0 to 1000 (got "${bad}")`]);
    }
  });

  it('throws one ConfigError listing every problem', () => {
    const env = {
      PORT: 'http',
      DATABASE_POOL_MAX: '0',
      DATABASE_URL: 'mysql://db',
      SERVICE_SSE_ENABLED: 'maybe',
      SERVICE_ENCRYPTION_KEY: 'c2hvcnQ=',
      LOG_LEVEL: 'loud',
    };
    let error: unknown;
    try {
      loadConfig(env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const e = error as ConfigError;
    expect(e.problems).toHaveLength(6);
    for (const name of Object.keys(env)) {
      expect(
        e.problems.filter((p) => p.startsWith(`${name} `)),
        name,
      ).toHaveLength(1);
      expect(e.message).toContain(`  - ${name} `);
    }
    expect(e.message.split('\n')[0]).toBe('invalid configuration:');
  });
});
