/**
 * Rules every route shares (src/http/request-shape.ts, src/core/public-http.ts): a body's size per route
 * and its nesting refused before it is parsed, bracket query names, names with invisible characters,
 * blank key names, `Expect` headers, and /metrics kept off the public port unless asked for.
 */
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap, makeSystem } from '../support/factories.js';
import { killBody } from '../support/map-edit.js';

const JSON_CT = { 'content-type': 'application/json' };
const SYSTEM = 30000142;

let t: TestServer;
let key: string;
let mapId: string;
let ownerEveId: string;

beforeAll(async () => {
  t = await startTestServer({ env: { SERVICE_RATE_LIMIT_PER_MINUTE: '100000', EVENTS_RELAY_ENABLED: 'false' } });
  await importFixture(t.platform);
  const m = await makeMap(t.platform);
  key = m.key;
  mapId = m.map.id;
  ownerEveId = m.ownerEveId;
  await makeSystem(t.platform, mapId, SYSTEM);
});
afterAll(async () => t?.close());
afterEach(() => vi.restoreAllMocks());

async function errorOf(res: Response): Promise<{ status: number; code: string; details?: { field: string; message: string }[]; error: string }> {
  const text = await res.text();
  expect(res.headers.get('content-type'), text).toMatch(/^application\/json/);
  return { status: res.status, ...(JSON.parse(text) as { code: string; error: string; details?: { field: string; message: string }[] }) };
}

/** 1,000,000 bytes of arrays nested 500,000 deep. */
const DEEP = '['.repeat(500_000) + ']'.repeat(500_000);
/** 1,000,000 bytes refused for a reason found without parsing: invalid UTF-8 at the end. */
const CHEAP = Buffer.concat([Buffer.from('["' + 'a'.repeat(999_995)), Buffer.from([0xff]), Buffer.from('"]')]);

describe('body cost', () => {
  it('refuses a deeply nested body from its bytes: 400 naming the nesting, and JSON.parse never sees it', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    const res = await t.fetch(`/api/maps/${mapId}/kills`, { method: 'POST', token: key, headers: JSON_CT, body: DEEP });
    const body = await errorOf(res);
    expect(body.status).toBe(400);
    expect(body.code).toBe('validation_failed');
    expect(body.details).toEqual([{ field: 'body', message: 'is nested too deeply (at most 32 levels)' }]);
    const parsedLengths = parse.mock.calls.map(([text]) => String(text).length);
    expect(parsedLengths.filter((n) => n >= 100_000)).toEqual([]);
  });

  it('keeps the nesting limit where it was: 32 containers around a value pass the byte check, 33 do not', async () => {
    const wrap = (levels: number, inner: string) => '{"a":'.repeat(levels) + inner + '}'.repeat(levels);
    // Structurally valid but not a kill: refused by the schema (validation), not for nesting.
    const ok = await errorOf(await t.fetch(`/api/maps/${mapId}/kills`, { method: 'POST', token: key, headers: JSON_CT, body: wrap(32, '[]') }));
    expect(ok.details?.some((d) => /nested too deeply/.test(d.message))).toBe(false);
    for (const inner of ['[]', '1', '"x"']) {
      const deep = await errorOf(await t.fetch(`/api/maps/${mapId}/kills`, { method: 'POST', token: key, headers: JSON_CT, body: wrap(33, inner) }));
      expect(deep.status).toBe(400);
      expect(deep.details?.[0]?.message, inner).toMatch(/nested too deeply/);
    }
    // Brackets inside strings are text, not nesting.
    const inString = await errorOf(
      await t.fetch(`/api/maps/${mapId}/kills`, {
        method: 'POST',
        token: key,
        headers: JSON_CT,
        body: JSON.stringify(killBody(SYSTEM, 42, { victim_char_name: '['.repeat(100) + '\\"[' })).replace('"kill_time"', '"kill_time_x"'),
      }),
    );
    expect(inString.details?.some((d) => /nested too deeply/.test(d.message))).toBe(false);
  });

  it('costs about as much CPU per refused nested 1 MB body as per one refused without parsing', async () => {
    const cpuOf = async (body: string | Buffer, code: string): Promise<number> => {
      const start = process.cpuUsage();
      for (let i = 0; i < 5; i++) {
        const res = await t.fetch(`/api/maps/${mapId}/kills`, { method: 'POST', token: key, headers: JSON_CT, body });
        expect((await errorOf(res)).code).toBe(code);
      }
      const used = process.cpuUsage(start);
      return (used.user + used.system) / 1000 / 5;
    };
    // Warm both paths once, then measure each three times, in turn, and keep the lowest figure of each (a
    // collection, or the JIT's threads, may land in any one).
    await cpuOf(CHEAP, 'invalid_json');
    await cpuOf(DEEP, 'validation_failed');
    let [cheap, nested] = [Infinity, Infinity];
    for (let round = 0; round < 3; round++) {
      cheap = Math.min(cheap, await cpuOf(CHEAP, 'invalid_json'));
      nested = Math.min(nested, await cpuOf(DEEP, 'validation_failed'));
    }
    console.log(`CPU per refused 1 MB body: nested ${nested.toFixed(1)} ms, invalid UTF-8 ${cheap.toFixed(1)} ms`);
    // The byte scan costs a few milliseconds more than the cheap refusal, parsing the body 55 to 100 ms more
    // (measured with the scan switched off). An added margin, not a multiple of the cheap figure, which a
    // collection can inflate.
    expect(nested - cheap).toBeLessThan(20);
  });

  it('bounds the body per route: single edits take 128 KiB, the batch endpoints SERVICE_MAX_BODY_BYTES', async () => {
    const big = 'x'.repeat(200 * 1024);
    // A single edit with a 200 KiB body: 413 before it is read.
    const single = await errorOf(
      await t.fetch(`/api/maps/${mapId}/systems/${SYSTEM}`, { method: 'PATCH', token: key, headers: JSON_CT, body: JSON.stringify({ description: big }) }),
    );
    expect(single.status).toBe(413);
    expect(single.code).toBe('payload_too_large');
    expect(single.error).toContain('131072 bytes');
    const acl = await errorOf(
      await t.fetch(`/api/map/acls?map_id=${mapId}`, {
        method: 'POST',
        token: key,
        headers: JSON_CT,
        body: JSON.stringify({ acl: { name: 'x', owner_eve_id: ownerEveId, description: big } }),
      }),
    );
    expect(acl.status).toBe(413);
    // The batch endpoints read it, and refuse it for what it holds (no kill is 200 KiB of text).
    const kills = await errorOf(
      await t.fetch(`/api/maps/${mapId}/kills`, {
        method: 'POST',
        token: key,
        headers: JSON_CT,
        body: JSON.stringify(killBody(SYSTEM, 43, { victim_char_name: big })),
      }),
    );
    expect(kills.status).toBe(400);
    expect(kills.code).toBe('validation_failed');
    const signatures = await errorOf(
      await t.fetch(`/api/maps/${mapId}/systems/${SYSTEM}/signatures`, {
        method: 'PUT',
        token: key,
        headers: JSON_CT,
        body: JSON.stringify({ signatures: [{ signature_id: 'ABC-123', description: big }] }),
      }),
    );
    expect(signatures.status).toBe(400);
    // Over SERVICE_MAX_BODY_BYTES, the batch endpoints too.
    const huge = await errorOf(await t.fetch(`/api/maps/${mapId}/kills`, { method: 'POST', token: key, headers: JSON_CT, body: 'x'.repeat(1024 * 1024 + 1) }));
    expect(huge.status).toBe(413);
  });
});

describe('query parameter names', () => {
  it.each(['x[]=1', 'x[a]=1', 'hours[]=24', 'map_id[]=1', 'x%5B%5D=1'])('refuses %s with 400 naming the parameter', async (query) => {
    const res = await errorOf(await t.fetch(`/api/map/systems-kills?map_id=${mapId}&${query}`, { token: key }));
    expect(res.status).toBe(400);
    expect(res.code).toBe('validation_failed');
    expect(res.details?.[0]?.message).toMatch(/brackets/);
  });

  it('refuses them on public routes too', async () => {
    const res = await errorOf(await t.fetch(`/api/common/system-static-info?id=${SYSTEM}&x[]=1`));
    expect(res.status).toBe(400);
    expect(res.details).toEqual([{ field: 'x[]', message: expect.stringMatching(/brackets/) }]);
  });
});

describe('names', () => {
  const INVISIBLE = ['\u202E', '\u200B', '\u200D', '\uFEFF', '\u2066', '\u061C', '\u00AD', '\t', '\u0007'];

  it.each(INVISIBLE.map((c) => [`U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`, c]))(
    'refuses a name holding %s with 400 naming the field, and changes nothing',
    async (_label, c) => {
      const before = (await (await t.fetch(`/api/maps/${mapId}/systems/${SYSTEM}`, { token: key })).json()) as { data: { custom_name: string | null } };
      const patch = await errorOf(
        await t.fetch(`/api/maps/${mapId}/systems/${SYSTEM}`, {
          method: 'PATCH',
          token: key,
          headers: JSON_CT,
          body: JSON.stringify({ custom_name: `evil${c}gpj.exe` }),
        }),
      );
      expect(patch.status).toBe(400);
      expect(patch.details).toEqual([{ field: 'custom_name', message: expect.stringMatching(/invisible and bidirectional/) }]);
      const after = (await (await t.fetch(`/api/maps/${mapId}/systems/${SYSTEM}`, { token: key })).json()) as { data: { custom_name: string | null } };
      expect(after.data.custom_name).toBe(before.data.custom_name);

      const acl = await errorOf(
        await t.fetch(`/api/map/acls?map_id=${mapId}`, {
          method: 'POST',
          token: key,
          headers: JSON_CT,
          body: JSON.stringify({ acl: { name: `A${c}B`, owner_eve_id: ownerEveId } }),
        }),
      );
      expect(acl.details).toEqual([{ field: 'acl.name', message: expect.stringMatching(/Cf/) }]);
      const user = await errorOf(
        await t.fetch('/api/admin/users', { method: 'POST', token: ADMIN_TOKEN, headers: JSON_CT, body: JSON.stringify({ name: `u${c}` }) }),
      );
      expect(user.status).toBe(400);
      const kill = await errorOf(
        await t.fetch(`/api/maps/${mapId}/kills`, {
          method: 'POST',
          token: key,
          headers: JSON_CT,
          body: JSON.stringify({ kills: [killBody(SYSTEM, 44, { victim_char_name: `v${c}` })] }),
        }),
      );
      expect(kill.details).toEqual([{ field: 'kills[0].victim_char_name', message: expect.stringMatching(/Cf/) }]);
    },
  );

  it('accepts visible names in any script, emoji included', async () => {
    const res = await t.fetch(`/api/maps/${mapId}/systems/${SYSTEM}`, {
      method: 'PATCH',
      token: key,
      headers: JSON_CT,
      body: JSON.stringify({ custom_name: 'Ђорђе 東京 عربى 🚀' }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { data: { custom_name: string } }).data.custom_name).toBe('Ђорђе 東京 عربى 🚀');
  });

  it.each(['', '   ', '\u3000'])('refuses the key name %j with 400 and issues no key', async (name) => {
    const count = async () => ((await (await t.fetch(`/api/admin/maps/${mapId}/keys`, { token: ADMIN_TOKEN })).json()) as { data: unknown[] }).data.length;
    const before = await count();
    const res = await errorOf(
      await t.fetch(`/api/admin/maps/${mapId}/keys`, {
        method: 'POST',
        token: ADMIN_TOKEN,
        headers: JSON_CT,
        body: JSON.stringify({ character_eve_id: ownerEveId, name }),
      }),
    );
    expect(res.status).toBe(400);
    expect(res.details?.[0]?.field).toBe('name');
    expect(await count()).toBe(before);
  });
});

/** A raw HTTP request (fetch refuses to send `Expect`). */
function rawRequest(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Expect', () => {
  it('answers an expectation other than 100-continue with a JSON 417', async () => {
    const res = await rawRequest(`${t.url}/api/map/systems?map_id=${mapId}`, { expect: 'foo', authorization: `Bearer ${key}` });
    expect(res.status).toBe(417);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body)).toEqual({ error: 'Only the expectation 100-continue is supported', code: 'expectation_failed' });
  });
});

describe('/metrics', () => {
  it('is served on the ops port only by default: the public port answers 404', async () => {
    const pub = await errorOf(await t.fetch('/metrics'));
    expect(pub.status).toBe(404);
    expect(pub.code).toBe('not_found');
    const ops = await fetch(`${t.opsUrl}/metrics`);
    expect(ops.status).toBe(200);
    expect(await ops.text()).toContain('mapintel_http_requests_total');
  });

  it('is served on the public port too with SERVICE_METRICS_PUBLIC=true', async () => {
    const other = await startTestServer({ env: { SERVICE_METRICS_PUBLIC: 'true' } });
    try {
      const res = await other.fetch('/metrics');
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('# TYPE');
    } finally {
      await other.close();
    }
  });
});
