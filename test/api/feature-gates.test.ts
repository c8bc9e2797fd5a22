import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';

describe('features switched off by the operator (spec 7)', () => {
  let t: TestServer;
  let key: string;
  let slug: string;
  beforeAll(async () => {
    t = await startTestServer();
    const m = await makeMap(t.platform);
    key = m.key;
    slug = m.map.slug;
  });
  afterAll(async () => t?.close());

  it('answers the event stream with 403 sse_disabled (decisions §6), with or without a token', async () => {
    for (const path of [`/api/maps/${slug}/events/stream`, `/api/maps/${slug}/events/stream?token=${key}`]) {
      const res = await t.fetch(path, { token: key });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ error: 'Server-Sent Events are disabled on this server', code: 'sse_disabled' });
    }
    expect((await t.fetch(`/api/maps/${slug}/events/stream`)).status).toBe(403);
  });

  it('answers every webhook management call with 403 webhooks_disabled', async () => {
    const calls: [string, string][] = [
      ['GET', `/api/maps/${slug}/webhooks`],
      ['POST', `/api/maps/${slug}/webhooks`],
      ['PUT', `/api/maps/${slug}/webhooks/toggle`],
      ['PUT', `/api/maps/${slug}/webhooks/00000000-0000-4000-8000-000000000000`],
      ['DELETE', `/api/maps/${slug}/webhooks/00000000-0000-4000-8000-000000000000`],
      ['POST', `/api/maps/${slug}/webhooks/00000000-0000-4000-8000-000000000000/rotate-secret`],
    ];
    for (const [method, path] of calls) {
      const res = await t.fetch(path, { method, token: key });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(await res.json()).toEqual({ error: 'Webhooks are disabled on this server', code: 'webhooks_disabled' });
    }
  });
});

describe('features switched on', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { SERVICE_SSE_ENABLED: 'true', SERVICE_WEBHOOKS_ENABLED: 'true' } });
  });
  afterAll(async () => t?.close());

  it('serves webhook management: without a key it is 401, no longer a placeholder', async () => {
    const res = await t.fetch('/api/maps/demo/webhooks');
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
  });

  it('serves the event stream: without a key it is 401, no longer a placeholder', async () => {
    const res = await t.fetch('/api/maps/demo/events/stream');
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
  });
});
