/**
 * The operational surface (decisions §1): request ids, health, readiness and metrics. The error
 * answers themselves: test/api/errors.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { startErrorsServer } from '../support/errors.js';

describe('errors, request ids, health and metrics', () => {
  let t: TestServer;
  let key: string;
  let mapId: string;
  let aclId: string;
  let aclKey: string;

  beforeAll(async () => {
    ({ t, key, mapId, aclId, aclKey } = await startErrorsServer());
  });
  afterAll(async () => t?.close());

  describe('request ids', () => {
    it('echoes an incoming x-request-id', async () => {
      const res = await t.fetch('/healthz', { headers: { 'x-request-id': 'client-req-42.a:b' } });
      expect(res.headers.get('x-request-id')).toBe('client-req-42.a:b');
    });

    it('echoes it on API responses and on errors, and logs it', async () => {
      const ok = await t.fetch(`/api/map/connections?map_id=${mapId}`, { token: key, headers: { 'x-request-id': 'req-ok-1' } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-request-id')).toBe('req-ok-1');
      const missing = await t.fetch('/api/nope', { headers: { 'x-request-id': 'req-404-1' } });
      expect(missing.status).toBe(404);
      expect(missing.headers.get('x-request-id')).toBe('req-404-1');
      const unauth = await t.fetch('/api/map/systems', { headers: { 'x-request-id': 'req-401-1' } });
      expect(unauth.status).toBe(401);
      expect(unauth.headers.get('x-request-id')).toBe('req-401-1');
      const logged = t.logs.filter((l) => l.msg === 'request').map((l) => l.requestId);
      expect(logged).toEqual(expect.arrayContaining(['req-ok-1', 'req-404-1', 'req-401-1']));
    });

    it('generates a fresh id when none is sent', async () => {
      const a = await t.fetch('/healthz');
      const b = await t.fetch('/api/nope');
      const idA = a.headers.get('x-request-id');
      const idB = b.headers.get('x-request-id');
      expect(idA).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(idB).toMatch(/^[0-9a-f-]{36}$/);
      expect(idA).not.toBe(idB);
    });

    it('replaces an unsafe or oversized incoming id instead of echoing it', async () => {
      for (const bad of ['has space', 'x'.repeat(129), '<script>', 'a\tb']) {
        const res = await t.fetch('/healthz', { headers: { 'x-request-id': bad } });
        const id = res.headers.get('x-request-id');
        expect(id).not.toBe(bad);
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
      }
    });
  });

  describe('health and readiness', () => {
    it('/healthz answers 200', async () => {
      const res = await t.fetch('/healthz');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ status: 'ok' });
    });

    it('/readyz answers 200 with its checks', async () => {
      const res = await t.fetch('/readyz');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      // No Redis configured for this server: its check is null (not in use), not false.
      expect(await res.json()).toEqual({ ready: true, checks: { database: true, redis: null } });
    });

    it('/readyz reports Redis when the server uses it', async () => {
      const r = await startTestServer({ redis: true });
      try {
        const res = await r.fetch('/readyz');
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ ready: true, checks: { database: true, redis: true } });
      } finally {
        await r.close();
      }
    });

    it('health endpoints are not rate limited', async () => {
      const res = await t.fetch('/healthz');
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    });
  });

  describe('metrics', () => {
    let before: string;
    let text: string;

    beforeAll(async () => {
      // Earlier tests of this file made requests too: the counts below are what these requests added.
      before = await (await fetch(`${t.opsUrl}/metrics`)).text();
      expect((await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key })).status).toBe(200);
      expect((await t.fetch(`/api/map/systems?map_id=${mapId}`, { token: key })).status).toBe(200);
      expect((await t.fetch('/api/map/systems')).status).toBe(401);
      expect((await t.fetch(`/api/acls/${aclId}`, { token: aclKey })).status).toBe(200);
      expect((await t.fetch('/api/definitely/not/here/12345')).status).toBe(404);
      expect((await t.fetch('/readyz')).status).toBe(200);
      const res = await fetch(`${t.opsUrl}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      text = await res.text();
    });

    function sample(name: string, labels: Record<string, string>, from = text): number | undefined {
      for (const line of from.split('\n')) {
        if (!line.startsWith(`${name}{`)) continue;
        const labelText = line.slice(name.length + 1, line.lastIndexOf('}'));
        const got = Object.fromEntries([...labelText.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
        if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
      }
      return undefined;
    }

    /** How much a sample grew over the requests of beforeAll (exactly: one counted twice, or not at all, fails). */
    const added = (name: string, labels: Record<string, string>) => (sample(name, labels) ?? 0) - (sample(name, labels, before) ?? 0);

    it('counts requests by method, route template and status', () => {
      expect(text).toContain('# TYPE mapintel_http_requests_total counter');
      expect(added('mapintel_http_requests_total', { method: 'GET', route: '/api/map/systems', status: '200' })).toBe(2);
      expect(added('mapintel_http_requests_total', { method: 'GET', route: '/api/map/systems', status: '401' })).toBe(1);
    });

    it('labels parameterised paths by their template, never by the raw path', () => {
      expect(added('mapintel_http_requests_total', { method: 'GET', route: '/api/acls/:id', status: '200' })).toBe(1);
      expect(text).not.toContain(aclId);
      expect(text).not.toContain('/api/definitely/not/here');
      expect(text).not.toContain(mapId);
    });

    it('has a latency histogram with the same labels', () => {
      expect(text).toContain('# TYPE mapintel_http_request_duration_seconds histogram');
      expect(added('mapintel_http_request_duration_seconds_count', { method: 'GET', route: '/api/map/systems', status: '200' })).toBe(2);
      expect(added('mapintel_http_request_duration_seconds_bucket', { method: 'GET', route: '/api/map/systems', status: '200', le: '+Inf' })).toBe(2);
    });

    it('exposes the database pool gauge', () => {
      expect(text).toContain('# TYPE mapintel_db_pool_connections gauge');
      expect(sample('mapintel_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
      expect(sample('mapintel_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
      expect(sample('mapintel_db_pool_connections', { state: 'waiting' })).toBe(0);
    });
  });
});
