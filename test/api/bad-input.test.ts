/**
 * Hostile input against every endpoint (decisions §1): every answer is a JSON 4xx `{error, code}`,
 * never a 5xx, the process keeps serving, and nothing is written.
 *
 * The table is built once per endpoint from its valid request: each path parameter, query parameter
 * and body field is replaced in turn by a hostile value; then the body as a whole is replaced.
 * The table's entries, values, case builder, checks and fixtures are in test/api/bad-input/ (a new
 * route gets its entry in the routes-*.ts module of its family).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/app.js';
import { casesFor, url } from './bad-input/cases.js';
import { expectJsonClientError, rowCounts, snapshot } from './bad-input/checks.js';
import { fillContext } from './bad-input/fixture.js';
import { ENDPOINTS } from './bad-input/routes.js';
import type { Ctx, Token } from './bad-input/table.js';

describe('hostile input on every endpoint', () => {
  let t: TestServer;
  const ctx = {} as Ctx;

  const tokenOf = (tok: Token): string | undefined =>
    tok === 'map' ? ctx.mapKey : tok === 'acl' ? ctx.aclKey : tok === 'any' ? ctx.mapKey : tok === 'admin' ? ADMIN_TOKEN : undefined;

  let countsAfterSetup: Record<string, number>;
  let baseline: Record<string, string>;

  beforeAll(async () => {
    // Webhook management on; its URLs point at a closed loopback port (nothing is ever delivered: no worker runs).
    t = await startTestServer({
      env: { SERVICE_RATE_LIMIT_PER_MINUTE: '1000000', SERVICE_WEBHOOKS_ENABLED: 'true', SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true' },
    });
    await fillContext(t, ctx);
    countsAfterSetup = await rowCounts(t);
    baseline = await snapshot(t);
  });
  afterAll(async () => t?.close());

  it('the table covers every route of the generated router', () => {
    const routes = readFileSync(path.resolve(import.meta.dirname, '../../src/api/generated/routes.ts'), 'utf8');
    const generated = [...routes.matchAll(/app\.(get|post|put|delete|patch)\('([^']+)'/g)].map((m) => `${m[1]!.toUpperCase()} ${m[2]}`).sort();
    expect(ENDPOINTS.map((e) => `${e.method} ${e.route}`).sort()).toEqual(generated);
  });

  it('every endpoint answers its valid read, so the hostile cases below start from a working request', async () => {
    for (const ep of ENDPOINTS.filter((e) => e.method === 'GET')) {
      const res = await t.fetch(url(ep, ctx), { token: tokenOf(ep.token) });
      expect(res.status, `${ep.method} ${ep.route}: ${await res.clone().text()}`).toBe(200);
    }
  });

  for (const ep of ENDPOINTS) {
    describe(`${ep.method} ${ep.route}`, () => {
      for (const c of casesFor(ep)) {
        it(c.name, async () => {
          const built = c.build(ctx);
          for (const req of Array.isArray(built) ? built : [built]) {
            const res = await t.fetch(req.path, {
              method: req.method,
              token: tokenOf(ep.token),
              ...(req.headers ? { headers: req.headers } : {}),
              ...(req.body !== undefined ? { body: req.body as RequestInit['body'] } : {}),
            });
            await expectJsonClientError(res, req);
          }
          if (ep.method !== 'GET') {
            const now = await snapshot(t);
            const expected = baseline;
            baseline = now; // one write fails its own case, not every later one
            expect(now).toEqual(expected);
          }
        });
      }
      it('keeps serving: a valid request answers 200 afterwards', async () => {
        const ok = await t.fetch(`/api/map/connections?map_id=${ctx.mapId}`, { token: ctx.mapKey });
        expect(ok.status).toBe(200);
        if (ep.method === 'GET') expect((await t.fetch(url(ep, ctx), { token: tokenOf(ep.token) })).status).toBe(200);
      });
    });
  }

  it('a 100k-character query string answers a JSON 4xx and the server keeps serving', async () => {
    const res = await t.fetch(`/api/map/systems?slug=${'a'.repeat(100_000)}`, { token: ctx.mapKey });
    await expectJsonClientError(res, { name: 'long url', method: 'GET', path: '/api/map/systems?slug=…' });
    const ok = await t.fetch(`/api/map/systems?map_id=${ctx.mapId}`, { token: ctx.mapKey });
    expect(ok.status).toBe(200);
  });

  it('nothing was written by any hostile request and no error was logged as unhandled', async () => {
    expect(await rowCounts(t)).toEqual(countsAfterSetup);
    const acl = await t.fetch(`/api/acls/${ctx.aclId}`, { token: ctx.aclKey });
    const body = (await acl.json()) as { data: { name: string; members: { role: string }[] } };
    expect(body.data.name).toBe('Base ACL');
    expect(body.data.members.map((m) => m.role)).toEqual(['viewer']);
    expect(t.logs.filter((l) => l.msg === 'unhandled error' || l.level === 'error' || l.level === 'fatal')).toEqual([]);
  });
});
