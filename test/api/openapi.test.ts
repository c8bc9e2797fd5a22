/**
 * The OpenAPI document: served at /api/openapi.json, documents every endpoint of spec 4.1–4.4 with
 * parameters, a 200 schema, error responses and its security. That the committed generated files are
 * what tsoa produces today: test/api/openapi-generated-files.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/app.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const GENERATED = path.join(ROOT, 'src/api/generated');

/* ---------- a small OpenAPI model, only what the assertions read ---------- */

interface SchemaObject {
  $ref?: string;
  type?: string;
  items?: SchemaObject;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  anyOf?: SchemaObject[];
  allOf?: SchemaObject[];
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: SchemaObject;
}
interface MediaType {
  schema?: SchemaObject;
}
interface ResponseObject {
  description?: string;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
  security?: Record<string, string[]>[];
}
interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, SchemaObject>; securitySchemes: Record<string, { type: string; scheme?: string; description?: string }> };
  security?: Record<string, string[]>[];
}

/* ---------- the endpoints of spec 4.1–4.4 ---------- */

type Auth = 'map_key' | 'acl_key' | 'any_key' | null;
interface Expected {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  auth: Auth;
  /** Parameters besides the map selector: name → [in, required]. */
  params?: Record<string, ['query' | 'path', boolean]>;
  /** The map selector (map_id and slug, both optional query parameters). */
  selector?: boolean;
  body?: boolean;
  /** Name of the property of the 200 body and whether it is an array. */
  ok: { prop: 'data' | 'ok'; array?: boolean };
}

const ENDPOINTS: Expected[] = [
  // 4.1 map data
  { method: 'get', path: '/api/map/systems', auth: 'map_key', selector: true, params: { all: ['query', false] }, ok: { prop: 'data', array: true } },
  { method: 'get', path: '/api/map/system', auth: 'map_key', selector: true, params: { id: ['query', true] }, ok: { prop: 'data', array: false } },
  { method: 'get', path: '/api/map/connections', auth: 'map_key', selector: true, ok: { prop: 'data', array: true } },
  { method: 'get', path: '/api/map/characters', auth: 'map_key', selector: true, ok: { prop: 'data', array: true } },
  { method: 'get', path: '/api/map/systems-kills', auth: 'map_key', selector: true, ok: { prop: 'data', array: true } },
  {
    method: 'get',
    path: '/api/map/character-activity',
    auth: 'map_key',
    selector: true,
    params: { days: ['query', false] },
    ok: { prop: 'data', array: true },
  },
  { method: 'get', path: '/api/map/user_characters', auth: 'map_key', selector: true, ok: { prop: 'data', array: true } },
  { method: 'get', path: '/api/map/structure-timers', auth: 'map_key', selector: true, ok: { prop: 'data', array: true } },
  { method: 'get', path: '/api/map/acls', auth: 'map_key', selector: true, ok: { prop: 'data', array: true } },
  // 4.2 common data
  { method: 'get', path: '/api/common/system-static-info', auth: null, params: { id: ['query', true] }, ok: { prop: 'data', array: false } },
  // 4.3 characters
  { method: 'get', path: '/api/characters', auth: 'any_key', ok: { prop: 'data', array: true } },
  // 4.4 ACLs and members
  { method: 'post', path: '/api/map/acls', auth: 'map_key', selector: true, body: true, ok: { prop: 'data', array: false } },
  { method: 'get', path: '/api/acls/{id}', auth: 'acl_key', params: { id: ['path', true] }, ok: { prop: 'data', array: false } },
  { method: 'put', path: '/api/acls/{id}', auth: 'acl_key', params: { id: ['path', true] }, body: true, ok: { prop: 'data', array: false } },
  { method: 'post', path: '/api/acls/{acl_id}/members', auth: 'acl_key', params: { acl_id: ['path', true] }, body: true, ok: { prop: 'data', array: false } },
  {
    method: 'put',
    path: '/api/acls/{acl_id}/members/{member_id}',
    auth: 'acl_key',
    params: { acl_id: ['path', true], member_id: ['path', true] },
    body: true,
    ok: { prop: 'data', array: false },
  },
  {
    method: 'delete',
    path: '/api/acls/{acl_id}/members/{member_id}',
    auth: 'acl_key',
    params: { acl_id: ['path', true], member_id: ['path', true] },
    ok: { prop: 'ok' },
  },
];

const ERROR_REF = '#/components/schemas/ErrorResponse';
const STREAM = '/api/maps/{map_id}/events/stream';

function deref(doc: OpenApiDoc, schema: SchemaObject | undefined): SchemaObject | undefined {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) {
    const name = s.$ref.replace('#/components/schemas/', '');
    s = doc.components.schemas[name];
  }
  return s;
}

describe('GET /api/openapi.json', () => {
  let t: TestServer;
  let doc: OpenApiDoc;

  beforeAll(async () => {
    t = await startTestServer();
    const res = await t.fetch('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = (await res.json()) as OpenApiDoc;
  });
  afterAll(async () => t?.close());

  it('gives every operation an operation id of its own (OpenAPI requires them unique; generated clients name methods by them)', () => {
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => (o as { operationId?: string }).operationId));
    expect(ids.every(Boolean)).toBe(true);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('documents If-None-Match, the 304 answer and the ETag, Cache-Control and Map-Event-Id headers on every map read', () => {
    const reads = Object.entries(doc.paths).filter(
      ([p, ops]) =>
        ops.get &&
        (p.startsWith('/api/map/') || p.startsWith('/api/maps/{map_id}/')) &&
        !p.startsWith('/api/maps/{map_id}/events') &&
        !p.startsWith('/api/maps/{map_id}/webhooks') &&
        // Routes follow the static data's stargates too, which no map version follows (map-read-cache.ts).
        !p.startsWith('/api/maps/{map_id}/routes') &&
        // Presence follows the stream connections, not the map.
        !p.startsWith('/api/maps/{map_id}/presence'),
    );
    expect(reads.length).toBeGreaterThanOrEqual(17);
    for (const [p, ops] of reads) {
      const get = ops.get as Operation & { responses: Record<string, ResponseObject & { headers?: Record<string, { schema?: SchemaObject }> }> };
      const header = (get.parameters ?? []).find((x) => x.in === 'header');
      expect({ p, name: header?.name, required: header?.required }).toEqual({ p, name: 'If-None-Match', required: false });
      expect(header?.description, p).toBeTruthy();
      for (const status of ['200', '304']) {
        expect(Object.keys(get.responses[status]?.headers ?? {}).sort(), `${p} ${status}`).toEqual(['Cache-Control', 'ETag', 'Map-Event-Id']);
      }
      expect(get.responses['304']?.content, `${p} 304 has no body`).toBeUndefined();
    }
  });

  it('serves the committed OpenAPI 3 document without a token', async () => {
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(doc.info.title).toBe('mapintel');
    const committed = JSON.parse(await readFile(path.join(GENERATED, 'openapi.json'), 'utf8')) as OpenApiDoc;
    // The committed document, plus the event stream (served outside tsoa) and nothing else.
    const { [STREAM]: stream, ...controllers } = doc.paths;
    expect(stream).toBeDefined();
    expect({ ...doc, paths: controllers }).toEqual(committed);
  });

  it('gives every operation a summary (the explorer lists operations by it)', () => {
    const operations = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${p}`, op })),
    );
    // The admin, events and stream operations included.
    expect(operations.length).toBeGreaterThanOrEqual(64);
    const missing = operations.filter(({ op }) => typeof op.summary !== 'string' || op.summary.trim() === '').map(({ name }) => name);
    expect(missing).toEqual([]);
  });

  it('documents the event stream: map key, path, filter and resume parameters, text/event-stream and its errors', () => {
    const op = doc.paths[STREAM]!.get as Operation & { responses: Record<string, ResponseObject> };
    expect(Object.keys(doc.paths[STREAM]!)).toEqual(['get']);
    expect(op.operationId).toBe('StreamEvents');
    expect(op.summary).toBeTruthy();
    expect(op.description).toMatch(/text\/event-stream/);
    expect(op.tags).toEqual(['Events']);
    expect(op.security).toEqual([{ map_key: [] }]);
    expect((op.parameters ?? []).map((p) => [p.in, p.name, p.required ?? false])).toEqual([
      ['path', 'map_id', true],
      ['query', 'events', false],
      ['query', 'systems', false],
      ['query', 'last_event_id', false],
      ['header', 'Last-Event-ID', false],
      ['query', 'token', false],
    ]);
    for (const p of op.parameters ?? []) expect(p.description, p.name).toBeTruthy();
    expect(Object.keys(op.responses['200']!.content ?? {})).toEqual(['text/event-stream']);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '503']);
    for (const status of ['400', '401', '403', '404', '429', '503']) {
      expect(op.responses[status]!.content?.['application/json']?.schema, status).toEqual({ $ref: ERROR_REF });
    }
    // What the description points to exists.
    expect(doc.components.schemas.EventEnvelope).toBeDefined();
    expect(doc.components.schemas.EventType).toBeDefined();
  });

  it('serves the explorer at /swaggerui, loading /api/openapi.json', async () => {
    const res = await t.fetch('/swaggerui/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const init = await t.fetch('/swaggerui/explorer-init.js');
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const text = await init.text();
    expect(text).toContain("url: '/api/openapi.json'");
    // Pasted tokens are not kept in localStorage.
    expect(text).toContain('persistAuthorization: false');
    // swagger-ui-dist's Petstore start-up script and swagger-ui-express's inline-options one are not served.
    for (const unused of ['/swaggerui/swagger-initializer.js', '/swaggerui/swagger-ui-init.js']) {
      const res = await t.fetch(unused);
      expect(res.status, unused).toBe(404);
      expect(await res.json()).toEqual({ error: 'Not found', code: 'not_found' });
    }
  });

  it('declares every security scheme as HTTP bearer and no global requirement', () => {
    const schemes = doc.components.securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(expect.arrayContaining(['acl_key', 'any_key', 'map_key']));
    for (const [name, scheme] of Object.entries(schemes)) {
      expect({ name, type: scheme.type, scheme: scheme.scheme?.toLowerCase() }).toEqual({ name, type: 'http', scheme: 'bearer' });
    }
    // Security is per operation, so the unauthenticated endpoint stays open.
    expect(doc.security ?? []).toEqual([]);
  });

  it('says in each security scheme where its token comes from, naming only operations that exist', () => {
    for (const [name, scheme] of Object.entries(doc.components.securitySchemes)) {
      const description = scheme.description ?? '';
      expect(description, name).toBeTruthy();
      expect(description, name).not.toMatch(/settings/i);
      for (const [, method, p] of description.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/api\/[^`]*)`/g)) {
        expect(doc.paths[p!]?.[method!.toLowerCase()], `${name}: ${method} ${p}`).toBeDefined();
      }
    }
    expect(doc.components.securitySchemes.map_key).toMatchObject({ description: expect.stringContaining('`POST /api/admin/maps/{map}/keys`') as unknown });
  });

  it('defines the error schema {error, code, details?, details_omitted?}', () => {
    const err = doc.components.schemas.ErrorResponse!;
    expect(err.type).toBe('object');
    expect(Object.keys(err.properties ?? {}).sort()).toEqual(['code', 'details', 'details_omitted', 'error']);
    expect(err.required?.sort()).toEqual(['code', 'error']);
    const detail = deref(doc, err.properties!.details!.items);
    expect(Object.keys(detail?.properties ?? {}).sort()).toEqual(['field', 'message']);
  });

  describe.each(ENDPOINTS)('$method $path', (e) => {
    const op = (): Operation => {
      const found = doc.paths[e.path]?.[e.method];
      expect(found, `${e.method.toUpperCase()} ${e.path} is missing from the spec`).toBeDefined();
      return found!;
    };

    it('is present, described, tagged and has an operation id', () => {
      const o = op();
      expect(o.operationId).toBeTruthy();
      expect(o.summary, 'summary').toBeTruthy();
      expect(o.description, 'description').toBeTruthy();
      expect(o.tags?.length).toBeGreaterThan(0);
    });

    it('documents its parameters', () => {
      const params = op().parameters ?? [];
      const expected: Record<string, ['query' | 'path', boolean]> = {
        ...(e.selector ? { map_id: ['query', false], slug: ['query', false] } : {}),
        ...e.params,
      };
      for (const [name, [where, required]] of Object.entries(expected)) {
        const p = params.find((x) => x.name === name);
        expect(p, `parameter ${name}`).toBeDefined();
        expect({ name, in: p!.in, required: p!.required ?? false }).toEqual({ name, in: where, required });
        expect(p!.description, `description of parameter ${name}`).toBeTruthy();
        expect(p!.schema?.type, `type of parameter ${name}`).toBeTruthy();
      }
      // Every path template variable is a documented path parameter.
      for (const v of e.path.match(/\{(\w+)\}/g) ?? []) {
        expect(
          params.some((p) => p.in === 'path' && `{${p.name}}` === v),
          `path parameter ${v}`,
        ).toBe(true);
      }
    });

    it('documents its request body', () => {
      const body = op().requestBody;
      if (!e.body) {
        expect(body).toBeUndefined();
        return;
      }
      expect(body?.required).toBe(true);
      const schema = deref(doc, body?.content?.['application/json']?.schema);
      expect(schema?.type).toBe('object');
      expect(Object.keys(schema?.properties ?? {})).toEqual([e.path.includes('/members') ? 'member' : 'acl']);
    });

    it('documents the 200 response schema', () => {
      const ok = op().responses['200'];
      expect(ok, '200 response').toBeDefined();
      const schema = deref(doc, ok!.content?.['application/json']?.schema);
      expect(schema, '200 application/json schema').toBeDefined();
      expect(schema!.required).toContain(e.ok.prop);
      const prop = schema!.properties?.[e.ok.prop];
      expect(prop, `${e.ok.prop} property`).toBeDefined();
      if (e.ok.prop === 'ok') {
        expect(prop!.type).toBe('boolean');
      } else if (e.ok.array) {
        expect(prop!.type).toBe('array');
        expect(deref(doc, prop!.items)?.properties, 'item properties').toBeDefined();
      } else {
        expect(deref(doc, prop)?.properties, 'data properties').toBeDefined();
      }
    });

    it('documents its error responses with the error schema', () => {
      const responses = op().responses;
      const errors = Object.keys(responses).filter((s) => Number(s) >= 400);
      const takesInput = e.selector || e.body || Object.values(e.params ?? {}).some(([where]) => where === 'query');
      const namesSomething = e.selector || e.path.includes('{');
      const expected = ['429', ...(e.auth ? ['401'] : []), ...(takesInput ? ['400'] : []), ...(namesSomething ? ['404'] : [])];
      expect(errors).toEqual(expect.arrayContaining(expected));
      if (!e.auth) expect(errors).not.toContain('401');
      for (const status of errors) {
        const r = responses[status]!;
        expect(r.description, `${status} description`).toBeTruthy();
        expect(r.content?.['application/json']?.schema?.$ref, `${status} schema`).toBe(ERROR_REF);
      }
    });

    it(e.auth ? `requires the ${e.auth} bearer token` : 'needs no token', () => {
      const security = op().security ?? doc.security ?? [];
      if (e.auth) {
        expect(security).toEqual([{ [e.auth]: [] }]);
        expect(doc.components.securitySchemes[e.auth]).toMatchObject({ type: 'http', scheme: 'bearer' });
      } else {
        expect(security).toEqual([]);
      }
    });
  });
});
