/**
 * The configured admin token never reaches the logs, whatever its shape: the docs recommend
 * `openssl rand -hex 32`, which carries no `adm_` prefix to recognise it by.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';

/** As `openssl rand -hex 32` makes one. */
const HEX_ADMIN_TOKEN = randomBytes(32).toString('hex');

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ env: { SERVICE_ADMIN_TOKEN: HEX_ADMIN_TOKEN } });
});
afterAll(async () => t?.close());

/** A raw request, so the path and headers go out exactly as written. */
function raw(path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${t.url}${path}`, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the admin token in logged URLs and headers', () => {
  it('is the configured one, and works as a token (the test would prove nothing otherwise)', async () => {
    expect((await t.fetch('/api/admin/users', { token: HEX_ADMIN_TOKEN })).status).toBe(200);
  });

  it('never appears in the log: path segment, query value of any name, encoded forms, headers', async () => {
    const encoded = [...HEX_ADMIN_TOKEN].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    const requests: [string, Record<string, string>?][] = [
      [`/api/admin/maps/${HEX_ADMIN_TOKEN}/keys`],
      [`/api/nothing/${HEX_ADMIN_TOKEN}`],
      [`/api/nothing/prefix-${HEX_ADMIN_TOKEN}-suffix`],
      [`/api/map/systems?map_id=${HEX_ADMIN_TOKEN}`],
      [`/api/map/systems?q=${HEX_ADMIN_TOKEN}&other=1`],
      [`/api/map/systems?q=${encoded}`],
      [`/api/map/systems?${HEX_ADMIN_TOKEN}=1`],
      [`/api/common/system-static-info?id=30000142&note=x${HEX_ADMIN_TOKEN}`],
      [`/api/nothing/${encoded}`],
      ['/api/map/systems', { 'x-request-id': HEX_ADMIN_TOKEN }],
    ];
    for (const [path, headers] of requests) expect(await raw(path, headers)).toBeGreaterThanOrEqual(400);
    // A header or field a log line carries, whatever its name.
    t.server.core.log.warn({ headers: { 'x-forwarded-auth': HEX_ADMIN_TOKEN }, detail: `token was ${HEX_ADMIN_TOKEN}` }, 'diagnostic');

    const logs = t.rawLogs();
    expect(logs).not.toContain(HEX_ADMIN_TOKEN);
    expect(logs.toLowerCase()).not.toContain(encoded.toLowerCase());
    // The lines are there, redacted, not dropped.
    const urls = t.logs.filter((l) => l.msg === 'request').map((l) => String(l.url));
    expect(urls).toContain('/api/admin/maps/[redacted]/keys');
    expect(urls).toContain('/api/map/systems?q=[redacted]&other=1');
    expect(urls).toContain('/api/map/systems?map_id=[redacted]');
    expect(t.logs.find((l) => l.msg === 'diagnostic')).toMatchObject({ headers: { 'x-forwarded-auth': '[redacted]' }, detail: 'token was [redacted]' });
  });
});
