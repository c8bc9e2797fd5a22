/**
 * A request to an endpoint that needs a token is answered 401 `unauthorized` (spec 5.6, decisions §1)
 * before its body is read or parsed: a stranger gets none of the 415, 400 or 413 a key holder would
 * get. Public endpoints and the 4xx of valid keys are unchanged.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';

const JSON_CT = { 'content-type': 'application/json' };
const WRONG_KEY = 'mik_wrongwrongwrongwrongwrongwrongwrongwrongwro';

async function expectUnauthorized(res: Response): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(401);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('www-authenticate')).toBe('Bearer');
  // The message's details are test/api/errors.test.ts's.
  expect(JSON.parse(text)).toEqual({
    error: expect.stringMatching(/^Missing or invalid 'Bearer' token: this endpoint takes /) as unknown,
    code: 'unauthorized',
  });
}

/** 1 MB of `[[[…]]]`. */
const NESTED = '['.repeat(500_000) + ']'.repeat(500_000);

describe('401 before the body', () => {
  let t: TestServer;
  let mapId: string;
  let key: string;
  let aclKey: string;

  beforeAll(async () => {
    t = await startTestServer();
    await importFixture(t.platform);
    const m = await makeMap(t.platform);
    mapId = m.map.id;
    key = m.key;
    const acl = await t.fetch(`/api/map/acls?map_id=${mapId}`, {
      method: 'POST',
      token: key,
      headers: JSON_CT,
      body: JSON.stringify({ acl: { name: 'Before body', owner_eve_id: m.ownerEveId } }),
    });
    aclKey = ((await acl.json()) as { data: { api_key: string } }).data.api_key;
  });
  afterAll(async () => t?.close());

  for (const [name, token] of [
    ['an invalid key', WRONG_KEY],
    ['no key', undefined],
  ] as const) {
    describe(`with ${name}`, () => {
      it('answers 401 to a non-JSON body (not 415)', async () => {
        await expectUnauthorized(
          await t.fetch(`/api/maps/${mapId}/systems`, { method: 'POST', token, headers: { 'content-type': 'text/plain' }, body: 'solar_system_id=1' }),
        );
      });

      it('answers 401 to broken JSON (not 400 invalid_json)', async () => {
        await expectUnauthorized(await t.fetch(`/api/map/acls?map_id=${mapId}`, { method: 'POST', token, headers: JSON_CT, body: '{"acl": ' }));
      });

      it('answers 401 to a 1 MB nested body (not 413 for its size)', async () => {
        // Whatever the key, such a body is never parsed: over this route's 128 KiB it is refused from its
        // Content-Length, and its nesting from its bytes (test/api/request-shape.test.ts).
        await expectUnauthorized(await t.fetch(`/api/maps/${mapId}/systems/30000142`, { method: 'PATCH', token, headers: JSON_CT, body: NESTED }));
      });
    });
  }

  it('answers 401 before a body has even arrived', async () => {
    const u = new URL(t.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect({ host: u.hostname, port: Number(u.port) }, () => {
        socket.write(
          `POST /api/admin/maps HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${WRONG_KEY}\r\n` +
            `Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"slug": "`,
        );
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('\r\n\r\n{')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
      setTimeout(() => {
        socket.destroy();
        reject(new Error('no answer while the body was still being sent'));
      }, 20_000).unref();
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    expect(answer).toContain('"code":"unauthorized"');
  });

  it('answers 401 to a valid key of the wrong kind before the body (an ACL key on a map endpoint)', async () => {
    await expectUnauthorized(await t.fetch(`/api/maps/${mapId}/systems`, { method: 'POST', token: aclKey, headers: JSON_CT, body: '{"solar' }));
  });

  it('keeps the 415 and 400 invalid_json a valid key gets', async () => {
    const typed = await t.fetch(`/api/maps/${mapId}/systems`, { method: 'POST', token: key, headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(typed.status).toBe(415);
    expect(((await typed.json()) as { code: string }).code).toBe('unsupported_media_type');
    const broken = await t.fetch(`/api/map/acls?map_id=${mapId}`, { method: 'POST', token: key, headers: JSON_CT, body: '{"acl": ' });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { code: string }).code).toBe('invalid_json');
  });

  it('labels an early 401 by its route template in the metrics', async () => {
    await expectUnauthorized(await t.fetch(`/api/acls/${mapId}`, { method: 'PUT', headers: JSON_CT, body: '{' }));
    const text = await (await fetch(`${t.opsUrl}/metrics`)).text();
    expect(text).toMatch(/mapintel_http_requests_total\{method="PUT",route="\/api\/acls\/:id",status="401"\} [1-9]/);
  });

  it('leaves public endpoints open: static info, the OpenAPI document and the explorer', async () => {
    expect((await t.fetch('/api/common/system-static-info?id=30000142', { token: WRONG_KEY })).status).toBe(200);
    expect((await t.fetch('/api/common/system-static-info?id=30000142')).status).toBe(200);
    expect((await t.fetch('/api/openapi.json')).status).toBe(200);
    const explorer = await t.fetch('/swaggerui/');
    expect(explorer.status).toBe(200);
    expect(explorer.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('leaves unknown paths and methods to 404 and 405', async () => {
    expect((await t.fetch('/api/map/nope', { method: 'POST', headers: JSON_CT, body: '{}' })).status).toBe(404);
    expect((await t.fetch('/api/map/systems', { method: 'DELETE' })).status).toBe(405);
  });
});
