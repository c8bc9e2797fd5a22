/**
 * The error surface (decisions §1): unknown paths and wrong methods answer JSON, bodiless requests may
 * carry a JSON content type, and the 401 messages say which token an endpoint takes. Request ids,
 * health, readiness and metrics: test/api/request-ids-health-metrics.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestServer } from '../support/app.js';
import { makeCharacter } from '../support/factories.js';
import { JSON_CT, startErrorsServer } from '../support/errors.js';

async function expectJsonError(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(body.code).toBe(code);
  expect(typeof body.error).toBe('string');
  expect(Object.keys(body).filter((k) => k !== 'error' && k !== 'code' && k !== 'details')).toEqual([]);
  return body;
}

function allowOf(res: Response): string[] {
  return (res.headers.get('allow') ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
    .sort();
}
describe('errors, request ids, health and metrics', () => {
  let t: TestServer;
  let key: string;
  let mapId: string;
  let aclId: string;
  let aclKey: string;
  let ownerEveId: string;

  beforeAll(async () => {
    ({ t, key, mapId, aclId, aclKey, ownerEveId } = await startErrorsServer());
  });
  afterAll(async () => t?.close());

  describe('unknown paths', () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', '/api/nope'],
      ['GET', '/api/map/nope'],
      ['POST', '/api/nope'],
      ['DELETE', '/api/map/systems/extra'],
      ['GET', '/api/acls'],
      ['GET', '/index.html'],
    ] as const) {
      it(`${method} ${path} answers 404 JSON not_found`, async () => {
        const res = await t.fetch(path, {
          method,
          token: key,
          ...(method === 'POST' ? { headers: JSON_CT, body: '{}' } : {}),
        });
        await expectJsonError(res, 404, 'not_found');
        expect(res.headers.get('allow')).toBeNull();
      });
    }

    it('answers 404 on an unknown path and 405 on a known one with the wrong method, whatever the body carries', async () => {
      for (const [body, headers] of [
        ['{not json', JSON_CT],
        ['plain words', { 'content-type': 'text/plain' }],
        ['x'.repeat(300_000), JSON_CT],
      ] as const) {
        await expectJsonError(await t.fetch('/api/nope', { method: 'POST', token: key, headers, body }), 404, 'not_found');
        await expectJsonError(await t.fetch('/api/maps/some-map/nothing-here', { method: 'PUT', token: key, headers, body }), 404, 'not_found');
        const wrong = await t.fetch('/api/map/systems', { method: 'POST', token: key, headers, body });
        await expectJsonError(wrong, 405, 'method_not_allowed');
        expect(allowOf(wrong)).toEqual(['GET', 'HEAD']);
      }
      // A route still refuses what it cannot read.
      await expectJsonError(await t.fetch('/api/map/acls', { method: 'POST', token: key, headers: JSON_CT, body: '{not json' }), 400, 'invalid_json');
    });

    it('never answers an HTML page, even when the client asks for HTML', async () => {
      const res = await t.fetch('/api/nope', { headers: { accept: 'text/html' } });
      await expectJsonError(res, 404, 'not_found');
    });
  });

  describe('known paths with the wrong method', () => {
    const cases: [string, string, string[]][] = [
      ['DELETE', '/api/map/systems', ['GET']],
      ['POST', '/api/map/systems', ['GET']],
      ['PUT', '/api/map/connections', ['GET']],
      ['PATCH', '/api/map/acls', ['GET', 'POST']],
      ['DELETE', '/api/map/acls', ['GET', 'POST']],
      ['POST', '/api/characters', ['GET']],
      ['DELETE', '/api/common/system-static-info', ['GET']],
      ['DELETE', '/api/acls/00000000-0000-4000-8000-000000000000', ['GET', 'PUT']],
      ['PATCH', '/api/acls/00000000-0000-4000-8000-000000000000', ['GET', 'PUT']],
      ['GET', '/api/acls/00000000-0000-4000-8000-000000000000/members', ['POST']],
      ['GET', '/api/acls/00000000-0000-4000-8000-000000000000/members/123', ['DELETE', 'PUT']],
      ['PATCH', '/api/admin/users', ['GET', 'POST']],
      ['DELETE', '/api/admin/maps/some-map/keys', ['GET', 'POST']],
    ];
    for (const [method, path, allow] of cases) {
      it(`${method} ${path} answers 405 JSON with Allow: ${allow.join(', ')}`, async () => {
        const res = await t.fetch(path, {
          method,
          token: key,
          ...(method === 'POST' || method === 'PUT' || method === 'PATCH' ? { headers: JSON_CT, body: '{}' } : {}),
        });
        await expectJsonError(res, 405, 'method_not_allowed');
        // GET routes also serve HEAD.
        expect(allowOf(res)).toEqual(allow.includes('GET') ? [...allow, 'HEAD'].sort() : allow);
      });
    }

    it('answers OPTIONS on a known path with 204 and Allow, on an unknown one with 404 JSON', async () => {
      const res = await t.fetch('/api/map/acls', { method: 'OPTIONS' });
      expect(res.status).toBe(204);
      expect(allowOf(res)).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST']);
      expect(await res.text()).toBe('');
      await expectJsonError(await t.fetch('/api/nowhere', { method: 'OPTIONS' }), 404, 'not_found');
    });

    it('answers 405 before authentication: the path exists whoever asks', async () => {
      const res = await t.fetch('/api/map/systems', { method: 'DELETE' });
      await expectJsonError(res, 405, 'method_not_allowed');
      expect(allowOf(res)).toEqual(['GET', 'HEAD']);
    });

    it('a 405 wrote nothing', async () => {
      const res = await t.fetch(`/api/map/acls?map_id=${mapId}`, {
        method: 'PUT',
        token: key,
        headers: JSON_CT,
        body: JSON.stringify({ acl: { name: 'x', owner_eve_id: '1' } }),
      });
      await expectJsonError(res, 405, 'method_not_allowed');
      const rows = await t.platform.orm.em.fork().getConnection().execute<{ n: number }[]>('select count(*)::int as n from acls');
      expect(rows[0]!.n).toBe(1);
    });
  });

  describe('bodiless requests with a JSON content type', () => {
    it('GET with Content-Type: application/json and no body answers 200', async () => {
      const res = await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key, headers: JSON_CT });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(1);
    });

    it('GET with Content-Type: application/json and Content-Length: 0 answers 200', async () => {
      const res = await t.fetch(`/api/acls/${aclId}`, { token: aclKey, headers: { ...JSON_CT, 'content-length': '0' } });
      expect(res.status).toBe(200);
    });

    it('GET with another content type and no body answers 200 (415 is for bodies only)', async () => {
      const res = await t.fetch('/api/common/system-static-info?id=30000142', { headers: { 'content-type': 'text/plain' } });
      expect(res.status).toBe(200);
    });

    it('DELETE of an ACL member with Content-Type: application/json and no body answers 200 {ok: true}', async () => {
      const ch = await makeCharacter(t.platform);
      const add = await t.fetch(`/api/acls/${aclId}/members`, {
        method: 'POST',
        token: aclKey,
        headers: JSON_CT,
        body: JSON.stringify({ member: { eve_character_id: ch.eve_id, role: 'viewer' } }),
      });
      expect(add.status).toBe(200);
      const res = await t.fetch(`/api/acls/${aclId}/members/${ch.eve_id}`, { method: 'DELETE', token: aclKey, headers: JSON_CT });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
    });

    it('DELETE of a map key with Content-Type: application/json and no body answers 200', async () => {
      const ch = await makeCharacter(t.platform);
      const issued = await t.fetch(`/api/admin/maps/${mapId}/keys`, {
        method: 'POST',
        token: ADMIN_TOKEN,
        headers: JSON_CT,
        body: JSON.stringify({ character_eve_id: ch.eve_id }),
      });
      expect(issued.status).toBe(201);
      const keyId = ((await issued.json()) as { data: { id: string } }).data.id;
      const res = await t.fetch(`/api/admin/maps/${mapId}/keys/${keyId}`, { method: 'DELETE', token: ADMIN_TOKEN, headers: JSON_CT });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { revoked_at: string | null } }).data.revoked_at).not.toBeNull();
    });

    it('a body-carrying DELETE with a non-JSON content type is a 415', async () => {
      const res = await t.fetch(`/api/acls/${aclId}/members/1`, { method: 'DELETE', token: aclKey, headers: { 'content-type': 'text/plain' }, body: 'x' });
      await expectJsonError(res, 415, 'unsupported_media_type');
    });
  });

  describe('401 messages', () => {
    const REF = "Missing or invalid 'Bearer' token: ";
    const MALFORMED = "the Authorization header is not 'Bearer <token>' with a token of 16 to 256 letters, digits and - . _ ~ + / =";

    async function expect401(path: string, headers: Record<string, string>, message: string, method = 'GET'): Promise<void> {
      const res = await t.fetch(path, { method, headers });
      const body = await expectJsonError(res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(body).toEqual({ error: `${REF}${message}`, code: 'unauthorized' });
    }
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    it('a request without a token: which token the endpoint takes', async () => {
      await expect401(`/api/map/systems?map_id=${mapId}`, {}, 'this endpoint takes a map API key, and none was given');
      await expect401(`/api/acls/${aclId}`, {}, 'this endpoint takes an ACL API key, and none was given');
      await expect401('/api/characters', {}, 'this endpoint takes a map or ACL API key, and none was given');
      await expect401('/api/admin/users', {}, 'this endpoint takes the admin token, and none was given');
    });

    it('a malformed Authorization header: says so, without repeating it', async () => {
      for (const authorization of [`Basic ${key}`, 'Bearer', 'Bearer short', `Bearer ${key} ${key}`]) {
        await expect401(`/api/map/systems?map_id=${mapId}`, { authorization }, `this endpoint takes a map API key; ${MALFORMED}`);
      }
    });

    it('an ACL key on a map endpoint, and a map key on an ACL endpoint: names both kinds, before the body', async () => {
      await expect401(`/api/map/systems?map_id=${mapId}`, bearer(aclKey), 'this endpoint takes a map API key, not an ACL API key');
      await expect401(`/api/maps/${mapId}/systems`, { ...bearer(aclKey), ...JSON_CT }, 'this endpoint takes a map API key, not an ACL API key', 'POST');
      await expect401(`/api/acls/${aclId}`, bearer(key), 'this endpoint takes an ACL API key, not a map API key');
    });

    it('a map key on an admin endpoint, and the admin token on a map endpoint', async () => {
      await expect401('/api/admin/users', bearer(key), 'this endpoint takes the admin token, not a map API key');
      // The test admin token has no adm_ prefix: it is told by what it is.
      await expect401(`/api/map/systems?map_id=${mapId}`, bearer(ADMIN_TOKEN), 'this endpoint takes a map API key, not the admin token');
      await expect401('/api/characters', bearer(ADMIN_TOKEN), 'this endpoint takes a map or ACL API key, not the admin token');
    });

    it('a revoked map key: says it was revoked, used before its revocation or never', async () => {
      for (const usedBefore of [true, false]) {
        const issued = await t.platform.admin.issueKey(mapId, { character_eve_id: ownerEveId });
        if (usedBefore) expect((await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: issued.api_key })).status).toBe(200);
        await t.platform.admin.revokeKey(mapId, issued.id);
        await expect401(
          `/api/map/systems?map_id=${mapId}`,
          bearer(issued.api_key),
          'this endpoint takes a map API key; the map API key given has been revoked',
        );
        // Elsewhere it is a map key like any other.
        await expect401(`/api/acls/${aclId}`, bearer(issued.api_key), 'this endpoint takes an ACL API key, not a map API key');
      }
    });

    it('an unknown map key: the same words as any unknown token, whatever map it names', async () => {
      const unknown = 'this endpoint takes a map API key; the token given is not valid';
      for (const token of [`mik_${'0'.repeat(43)}`, 'not-a-key-but-well-formed']) {
        await expect401(`/api/map/systems?map_id=${mapId}`, bearer(token), unknown);
        await expect401('/api/map/systems?map_id=00000000-0000-4000-8000-000000000000', bearer(token), unknown);
      }
      await expect401(`/api/acls/${aclId}`, bearer(`acl_${'0'.repeat(43)}`), 'this endpoint takes an ACL API key; the token given is not valid');
      await expect401('/api/admin/users', bearer(`${ADMIN_TOKEN}x`), 'this endpoint takes the admin token; the token given is not valid');
    });
  });
});
