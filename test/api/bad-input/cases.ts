/**
 * The hostile cases of one endpoint, built from its valid request: each path parameter, query parameter
 * and body field replaced in turn by a hostile value, then the body as a whole.
 */
import {
  HOSTILE_BOOL,
  HOSTILE_FOR_BOOLEAN,
  HOSTILE_FOR_NUMBER,
  HOSTILE_FOR_STRING,
  HOSTILE_ID_QUERY,
  HOSTILE_INT,
  HOSTILE_PATH,
  HOSTILE_SELECTOR,
  INVALID_UTF8,
} from './values.js';
import type { Ctx, Endpoint, Json, Method } from './table.js';

export interface HostileRequest {
  name: string;
  method: Method;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Exact status when decisions §1 fixes it; otherwise any 4xx. */
  status?: number;
  code?: string;
}

export type Case = { name: string; build: (c: Ctx) => HostileRequest | HostileRequest[] };

export function fillPath(route: string, params: Record<string, string>): string {
  return route.replace(/:([a-z_]+)/g, (_m, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`no value for ${name} in ${route}`);
    return v;
  });
}

function qs(q: Record<string, string>): string {
  return Object.entries(q)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');
}

export function url(ep: Endpoint, c: Ctx, opts: { params?: Record<string, string>; query?: string } = {}): string {
  const p = fillPath(ep.route, { ...ep.params?.(c), ...opts.params });
  const query = opts.query ?? qs({ ...(ep.selector ? { map_id: c.mapId } : {}), ...ep.query?.(c) });
  return query ? `${p}?${query}` : p;
}

export const JSON_HEADERS = { 'content-type': 'application/json' };

/** Every leaf path of a JSON value with its type (for per-field mutations). */
type LeafKind = 'string' | 'boolean' | 'number' | 'other';

function leaves(value: Json, prefix: (string | number)[] = []): { path: (string | number)[]; kind: LeafKind }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...prefix, i]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leaves(v, [...prefix, k]));
  const kind = typeof value === 'string' ? 'string' : typeof value === 'boolean' ? 'boolean' : typeof value === 'number' ? 'number' : 'other';
  return [{ path: prefix, kind }];
}

function setAt(value: Json, at: (string | number)[], replacement: Json): Json {
  const copy = structuredClone(value);
  let node = copy as Record<string | number, Json>;
  for (const key of at.slice(0, -1)) node = node[key] as Record<string | number, Json>;
  node[at[at.length - 1]!] = replacement;
  return copy;
}

/** The wrapper object of the fields: `body.acl` / `body.member`, or the body itself. */
function fieldsObjectPath(body: Json): (string | number)[] {
  const entries = Object.entries(body as Record<string, Json>);
  if (entries.length === 1 && entries[0]![1] !== null && typeof entries[0]![1] === 'object') return [entries[0]![0]];
  return [];
}

/** Invalid UTF-8 bytes placed inside the first string leaf of the body. */
function withInvalidBytes(body: Json, at: (string | number)[], bytes: number[]): Buffer {
  const marker = 'MARKER_FOR_BYTES';
  const text = JSON.stringify(setAt(body, at, `a${marker}b`));
  const [before, after] = text.split(marker) as [string, string];
  return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
}

/** The batch endpoints: they take SERVICE_MAX_BODY_BYTES, every other endpoint 128 KiB. */
const BULK_ROUTES = ['POST /api/maps/:map_id/kills', 'POST /api/maps/:map_id/systems', 'PUT /api/maps/:map_id/systems/:solar_system_id/signatures'];

/** Dummy context to enumerate the body structure at collection time. */
const SHAPE_CTX = new Proxy({} as Ctx, { get: () => 'x' });

export function casesFor(ep: Endpoint): Case[] {
  const cases: Case[] = [];
  const base = (c: Ctx) => ({ method: ep.method, path: url(ep, c), ...(ep.body ? { headers: JSON_HEADERS, body: JSON.stringify(ep.body(c)) } : {}) });

  // Path parameters, one at a time.
  const paramNames = [...ep.route.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
  for (const name of paramNames) {
    for (const [label, value] of HOSTILE_PATH) {
      cases.push({ name: `path ${name}: ${label}`, build: (c) => ({ ...base(c), name: label, path: url(ep, c, { params: { [name]: value } }) }) });
    }
  }

  // Query parameters.
  const validQuery = (c: Ctx) => ep.query?.(c) ?? {};
  if (ep.selector) {
    cases.push({
      name: 'query: map selector missing',
      build: (c) => ({ ...base(c), name: 'no selector', path: url(ep, c, { query: qs(validQuery(c)) }), status: 400, code: 'map_identifier_required' }),
    });
    for (const [label, sel] of HOSTILE_SELECTOR) {
      cases.push({
        name: `query: ${label}`,
        build: (c) => {
          const rest = qs(validQuery(c));
          return { ...base(c), name: label, path: url(ep, c, { query: rest ? `${sel(c)}&${rest}` : sel(c) }) };
        },
      });
    }
  }
  const selectorQuery = (c: Ctx) => (ep.selector ? `map_id=${c.mapId}&` : '');
  const withParam = (c: Ctx, name: string, raw: string) => {
    const others = Object.fromEntries(Object.entries(validQuery(c)).filter(([k]) => k !== name));
    const rest = qs(others);
    return `${selectorQuery(c)}${name}=${raw}${rest ? `&${rest}` : ''}`;
  };
  for (const name of ep.ints ?? []) {
    for (const [label, raw] of HOSTILE_INT) {
      cases.push({
        name: `query ${name}: ${label}`,
        build: (c) => ({ ...base(c), name: label, path: url(ep, c, { query: withParam(c, name, raw) }), status: 400 }),
      });
    }
    cases.push({
      name: `query ${name}: repeated`,
      build: (c) => ({ ...base(c), name: 'repeated', path: url(ep, c, { query: `${withParam(c, name, '5')}&${name}=6` }), status: 400 }),
    });
  }
  if (ep.route === '/api/common/system-static-info') {
    cases.push({ name: 'query id: missing', build: (c) => ({ ...base(c), name: 'missing id', path: ep.route, status: 400 }) });
  }
  if (ep.route === '/api/map/system') {
    cases.push({
      name: 'query id: missing',
      build: (c) => ({ ...base(c), name: 'missing id', path: url(ep, c, { query: `map_id=${c.mapId}` }), status: 400 }),
    });
  }
  for (const name of ep.bools ?? []) {
    for (const [label, raw] of HOSTILE_BOOL) {
      cases.push({
        name: `query ${name}: ${label}`,
        build: (c) => ({ ...base(c), name: label, path: url(ep, c, { query: withParam(c, name, raw) }), status: 400 }),
      });
    }
  }
  for (const name of ep.ids ?? []) {
    for (const [label, raw] of HOSTILE_ID_QUERY) {
      cases.push({
        name: `query ${name}: ${label}`,
        build: (c) => ({ ...base(c), name: label, path: url(ep, c, { query: withParam(c, name, raw.replace('$NAME', name)) }), status: 400 }),
      });
    }
  }
  // Any endpoint: a NUL in a query parameter it does not even read, and a path one segment too long.
  cases.push({
    name: 'query: NUL in an unknown parameter',
    build: (c) => {
      const u = url(ep, c);
      return { ...base(c), name: 'nul extra', path: `${u}${u.includes('?') ? '&' : '?'}zz=%00`, status: 400 };
    },
  });
  // Bracket names (other frameworks' array and object syntax) are refused, not ignored, on every route.
  for (const [label, raw] of [
    ['array syntax', 'x[]=1'],
    ['object syntax', 'x[a]=1'],
    ['encoded brackets', 'x%5B%5D=1'],
  ] as const) {
    cases.push({
      name: `query: bracket name (${label})`,
      build: (c) => {
        const u = url(ep, c);
        return { ...base(c), name: `bracket ${label}`, path: `${u}${u.includes('?') ? '&' : '?'}${raw}`, status: 400, code: 'validation_failed' };
      },
    });
  }
  cases.push({
    name: 'path: extra segment with invalid UTF-8',
    build: (c) => ({ ...base(c), name: 'extra segment', path: `${fillPath(ep.route, ep.params?.(c) ?? {})}/%FF%C3%28` }),
  });

  // Bodies.
  if (ep.body) {
    const shape = ep.body(SHAPE_CTX);
    const fieldsAt = fieldsObjectPath(shape);
    const send = (c: Ctx, body: string | Buffer, extra: Partial<HostileRequest> = {}): HostileRequest => ({
      name: '',
      method: ep.method,
      path: url(ep, c),
      headers: JSON_HEADERS,
      body,
      ...extra,
    });
    const json = (c: Ctx, v: Json, extra: Partial<HostileRequest> = {}) => send(c, JSON.stringify(v), extra);

    cases.push({
      name: 'body: unknown top-level field',
      build: (c) => json(c, setAt(ep.body!(c), ['unexpected'], 1), { status: 400, code: 'validation_failed' }),
    });
    if (fieldsAt.length) {
      cases.push({
        name: 'body: unknown nested field',
        build: (c) => json(c, setAt(ep.body!(c), [...fieldsAt, 'unexpected'], 'x'), { status: 400, code: 'validation_failed' }),
      });
      for (const [label, v] of [
        ['string', 'x'],
        ['null', null],
        ['array', []],
        ['number', 5],
      ] as [string, Json][]) {
        cases.push({ name: `body: ${label} for the ${String(fieldsAt[0])} object`, build: (c) => json(c, setAt(ep.body!(c), fieldsAt, v), { status: 400 }) });
      }
    }
    cases.push({
      name: 'body: __proto__ key',
      build: (c) => send(c, JSON.stringify(ep.body!(c)).replace(/^\{/, '{"__proto__":{"polluted":true},'), { status: 400 }),
    });
    cases.push({
      name: 'body: key with NUL',
      build: (c) => json(c, setAt(ep.body!(c), [...fieldsAt, 'k\u0000y'], 'x'), { status: 400 }),
    });
    // Every field gets the sharpest values of its type; the first field of each type gets them all.
    const firstOfKind = new Set<LeafKind>();
    for (const leaf of leaves(shape)) {
      const field = leaf.path.join('.');
      const all = !firstOfKind.has(leaf.kind);
      firstOfKind.add(leaf.kind);
      const pick = <T>(list: [string, T][], few: string[]) => (all ? list : list.filter(([label]) => few.includes(label)));
      const replacements: [string, Json][] =
        leaf.kind === 'string'
          ? pick(HOSTILE_FOR_STRING, ['number for string', '100k characters', 'NUL character'])
          : leaf.kind === 'boolean'
            ? pick(HOSTILE_FOR_BOOLEAN, ['string "true" for boolean', 'null for boolean'])
            : leaf.kind === 'number'
              ? pick(HOSTILE_FOR_NUMBER, ['string for number', 'boolean for number'])
              : [];
      for (const [label, v] of replacements) {
        cases.push({ name: `body ${field}: ${label}`, build: (c) => json(c, setAt(ep.body!(c), leaf.path, v), { status: 400 }) });
      }
      if (leaf.kind === 'string') {
        for (const [label, bytes] of pick(INVALID_UTF8, ['0xFF 0xFE'])) {
          cases.push({
            name: `body ${field}: invalid UTF-8 ${label}`,
            build: (c) => send(c, withInvalidBytes(ep.body!(c), leaf.path, bytes), { status: 400 }),
          });
        }
      }
    }
    cases.push({ name: 'body: empty', build: (c) => send(c, '', { status: 400 }) });
    if (!ep.emptyBodyOk) cases.push({ name: 'body: {}', build: (c) => send(c, '{}', { status: 400 }) });
    for (const raw of ['[]', '"x"', 'null', '123', 'true']) {
      // Valid JSON of the wrong type is a validation error, not broken JSON.
      cases.push({ name: `body: ${raw} for an object`, build: (c) => send(c, raw, { status: 400, code: 'validation_failed' }) });
    }
    cases.push({
      name: 'body: deeply nested object in a field',
      build: (c) =>
        send(c, JSON.stringify(setAt(ep.body!(c), [...fieldsAt, 'deep'], 'NEST')).replace('"NEST"', '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)), {
          status: 400,
        }),
    });
    // 200 KB: over a single edit's 128 KiB (413 before it is read); a batch endpoint reads it and refuses its nesting.
    cases.push({
      name: 'body: 100k nested arrays',
      build: (c) => send(c, '['.repeat(100_000) + ']'.repeat(100_000), { status: BULK_ROUTES.includes(`${ep.method} ${ep.route}`) ? 400 : 413 }),
    });
    // Refused for its nesting, told from its bytes before any parse.
    cases.push({ name: 'body: 100k unclosed brackets', build: (c) => send(c, '{"a":' + '['.repeat(100_000), { status: 400, code: 'validation_failed' }) });
    for (const raw of ['{"acl": ', "{'name': 'x'}", '{"name": "x",}', '\u0000']) {
      cases.push({ name: `body: invalid JSON ${JSON.stringify(raw)}`, build: (c) => send(c, raw, { status: 400, code: 'invalid_json' }) });
    }
    cases.push({
      name: 'body: invalid UTF-8 outside strings',
      build: (c) => send(c, Buffer.concat([Buffer.from(JSON.stringify(ep.body!(c))), Buffer.from([0xff])]), { status: 400 }),
    });
    cases.push({
      name: 'body: UTF-16 charset with UTF-8 bytes',
      build: (c) => send(c, JSON.stringify(ep.body!(c)), { headers: { 'content-type': 'application/json; charset=utf-16' } }),
    });
    cases.push({
      name: 'body: unsupported charset',
      build: (c) => send(c, JSON.stringify(ep.body!(c)), { headers: { 'content-type': 'application/json; charset=koi8-r' }, status: 415 }),
    });
    cases.push({
      name: 'body: gzip content-encoding that is not gzip',
      build: (c) => send(c, JSON.stringify(ep.body!(c)), { headers: { ...JSON_HEADERS, 'content-encoding': 'gzip' } }),
    });
    cases.push({
      name: 'body: unknown content-encoding',
      build: (c) => send(c, JSON.stringify(ep.body!(c)), { headers: { ...JSON_HEADERS, 'content-encoding': 'br2' }, status: 415 }),
    });
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
      cases.push({ name: `body: content-type ${ct}`, build: (c) => send(c, JSON.stringify(ep.body!(c)), { headers: { 'content-type': ct }, status: 415 }) });
    }
    cases.push({ name: 'body: no content-type', build: (c) => send(c, Buffer.from(JSON.stringify(ep.body!(c))), { headers: {}, status: 415 }) });
    cases.push({
      name: 'body: over 1 MiB',
      build: (c) => json(c, setAt(ep.body!(c), fieldsAt.length ? [...fieldsAt, 'name'] : ['name'], 'x'.repeat(1024 * 1024 + 1)), { status: 413 }),
    });
  }
  return cases;
}
