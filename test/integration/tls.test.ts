/**
 * TLS to PostgreSQL (DATABASE_SSL_MODE, DATABASE_CA_FILE) and to Redis (rediss://, REDIS_CA_FILE)
 * against servers of the test's own that accept nothing else, with a CA made here: the typed settings
 * reach every connection, a chain or a host name that does not check out is refused, and a plain
 * connection is refused by the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/common/config.js';
import { databaseTimeouts, pgClient } from '../../src/db/pg-options.js';
import { connectRedis } from '../../src/redis/redis.js';
import { createLogger } from '../../src/common/log.js';
import { makeTestCerts, type TestCerts } from '../support/tls-certs.js';
import { startTlsPostgres, startTlsRedis, type TlsServer } from '../support/tls-servers.js';

let certs: TestCerts;
let pg: TlsServer;
let redis: TlsServer;

beforeAll(async () => {
  certs = makeTestCerts();
  [pg, redis] = await Promise.all([startTlsPostgres(certs), startTlsRedis(certs)]);
}, 120_000);
afterAll(async () => {
  await pg?.stop();
  await redis?.stop();
  certs?.remove();
});

/** Connects with the settings a process would derive from `env`; what the server says of the session. */
async function sessionOver(host: string, env: Record<string, string>): Promise<{ ssl: boolean; version: string }> {
  const url = `postgres://postgres@${host}:${pg.port}/postgres`;
  const config = loadConfig({ DATABASE_URL: url, SERVICE_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), ...env });
  const client = pgClient(url, databaseTimeouts(config));
  client.on('error', () => undefined);
  await client.connect();
  try {
    const r = (await client.query('select ssl, version from pg_stat_ssl where pid = pg_backend_pid()')) as { rows: { ssl: boolean; version: string }[] };
    return r.rows[0]!;
  } finally {
    await client.end();
  }
}

describe('TLS to PostgreSQL', () => {
  it('verify-full with the CA file: an encrypted session, the host name checked', async () => {
    const s = await sessionOver('localhost', { DATABASE_SSL_MODE: 'verify-full', DATABASE_CA_FILE: certs.caFile });
    expect(s.ssl).toBe(true);
    expect(s.version).toMatch(/^TLSv1\.[23]$/);
  });

  it('verify-full refuses a host name the certificate does not carry; verify-ca accepts it on the chain alone', async () => {
    await expect(sessionOver('127.0.0.1', { DATABASE_SSL_MODE: 'verify-full', DATABASE_CA_FILE: certs.caFile })).rejects.toThrow(
      /IP: 127\.0\.0\.1 is not in the cert's list/,
    );
    expect((await sessionOver('127.0.0.1', { DATABASE_SSL_MODE: 'verify-ca', DATABASE_CA_FILE: certs.caFile })).ssl).toBe(true);
  });

  it('a certificate another CA signed is refused; require without a CA file encrypts without checking', async () => {
    await expect(sessionOver('localhost', { DATABASE_SSL_MODE: 'verify-ca', DATABASE_CA_FILE: certs.otherCaFile })).rejects.toThrow(
      /unable to verify|self.signed|certificate/i,
    );
    expect((await sessionOver('127.0.0.1', { DATABASE_SSL_MODE: 'require' })).ssl).toBe(true);
  });

  it('disable sends a plain connection, which this server refuses', async () => {
    await expect(sessionOver('localhost', { DATABASE_SSL_MODE: 'disable' })).rejects.toThrow(/no encryption/);
  });

  it('the settings are checked when loaded', () => {
    const base = { DATABASE_URL: 'postgres://db/x', SERVICE_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') };
    expect(() => loadConfig({ ...base, DATABASE_SSL_MODE: 'prefer' })).toThrow('DATABASE_SSL_MODE must be one of disable, require, verify-ca, verify-full');
    expect(() => loadConfig({ ...base, DATABASE_URL: 'postgres://db/x?sslmode=require', DATABASE_SSL_MODE: 'verify-full' })).toThrow(
      'DATABASE_SSL_MODE is set and a database URL carries its own sslmode: set it in one place',
    );
    expect(() => loadConfig({ ...base, DATABASE_CA_FILE: certs.caFile })).toThrow('DATABASE_CA_FILE needs DATABASE_SSL_MODE require, verify-ca or verify-full');
    expect(() => loadConfig({ ...base, DATABASE_SSL_MODE: 'verify-full', DATABASE_CA_FILE: '/nonexistent/ca.pem' })).toThrow(
      'DATABASE_CA_FILE: no such file: /nonexistent/ca.pem',
    );
    expect(() => loadConfig({ ...base, REDIS_URL: 'redis://r:6379', REDIS_CA_FILE: certs.caFile })).toThrow('REDIS_CA_FILE needs a rediss:// REDIS_URL (TLS)');
  });
});

describe('TLS to Redis', () => {
  it('rediss:// with REDIS_CA_FILE connects, and the host name is checked', async () => {
    const lines: string[] = [];
    const log = createLogger('warn', { write: (l: string) => lines.push(l) } as unknown as NodeJS.WritableStream);
    const client = await connectRedis({ url: `rediss://localhost:${redis.port}`, purpose: 'tls-test', log, ca: certs.ca() });
    try {
      expect(await client.ping()).toBe('PONG');
      expect(await client.set('mapintel-tls-test', 'x', { EX: 10 })).toBe('OK');
    } finally {
      await client.close();
    }
  });

  it('a server certificate the CA did not sign never connects, and says why', async () => {
    const lines: string[] = [];
    const log = createLogger('warn', { write: (l: string) => (lines.push(l), true) } as unknown as NodeJS.WritableStream);
    const { readFileSync } = await import('node:fs');
    const connecting = connectRedis({ url: `rediss://localhost:${redis.port}`, purpose: 'tls-test', log, ca: readFileSync(certs.otherCaFile, 'utf8') });
    connecting.catch(() => undefined);
    const outcome = await Promise.race([connecting.then(() => 'connected'), new Promise((r) => setTimeout(() => r('not connected'), 3000))]);
    expect(outcome).toBe('not connected');
    expect(lines.join('')).toMatch(/redis error.*(unable to verify|self.signed|certificate)|(unable to verify|self.signed|certificate).*redis error/);
    void connecting.then((c) => c.destroy()).catch(() => undefined);
  });
});
