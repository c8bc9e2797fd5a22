/**
 * Hostile input against every endpoint (decisions §1): every answer is a JSON 4xx `{error, code}`,
 * never a 5xx, the process keeps serving, and nothing is written.
 *
 * The table is built once per endpoint from its valid request: each path parameter, query parameter
 * and body field is replaced in turn by a hostile value; then the body as a whole is replaced.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeCharacter, makeMap, makeSystem } from '../support/factories.js';
import { killBody } from '../support/map-edit.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Values known once the fixtures exist (filled in beforeAll). */
interface Ctx {
  mapKey: string;
  mapId: string;
  slug: string;
  otherSlug: string;
  ownerEveId: string;
  aclId: string;
  aclKey: string;
  memberEveId: string;
  freeEveId: string;
  userId: string;
  userCharEveId: string;
  keyId: string;
  trackedEveId: string;
  connectionId: string;
  structureId: string;
  webhookId: string;
  eventId: string;
}

/** Solar systems of the fixture: on the map (with a connection between the first two), and not. */
const ON_MAP = 30000142;
const ON_MAP_2 = 30002420;
const ON_MAP_3 = 31000005;
const NOT_ON_MAP = 30000021;
const SIGNATURE = 'XYZ-789';

type Token = 'map' | 'acl' | 'any' | 'admin' | 'none';

interface Endpoint {
  method: Method;
  /** Route template as in routes.ts, `:param` segments. */
  route: string;
  token: Token;
  params?: (c: Ctx) => Record<string, string>;
  /** Valid query; keys listed in `selector`, `ints`, `bools`, `uuids` get the matching hostile values. */
  query?: (c: Ctx) => Record<string, string>;
  selector?: boolean;
  ints?: string[];
  bools?: string[];
  /** Id-like query parameters (UUID, ULID). */
  ids?: string[];
  /** Valid body (for POST/PUT/PATCH). */
  body?: (c: Ctx) => Json;
  /** Every body field is optional: `{}` is a valid (empty) update, not hostile. */
  emptyBodyOk?: boolean;
}

const mapPath = (c: Ctx) => ({ map_id: c.mapId });

// A valid killmail body; the JSON it holds is plain data, so it is one of this file's Json values.
const KILL = (): Json => killBody(ON_MAP, 123456789) as Json;

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', route: '/api/map/systems', token: 'map', selector: true, bools: ['all'], query: () => ({ all: 'true' }) },
  { method: 'GET', route: '/api/map/system', token: 'map', selector: true, ints: ['id'], query: () => ({ id: '30000142' }) },
  { method: 'GET', route: '/api/map/connections', token: 'map', selector: true },
  { method: 'GET', route: '/api/map/characters', token: 'map', selector: true },
  { method: 'GET', route: '/api/map/systems-kills', token: 'map', selector: true, ints: ['hours'], query: () => ({ hours: '24' }) },
  { method: 'GET', route: '/api/map/character-activity', token: 'map', selector: true, ints: ['days'], query: () => ({ days: '7' }) },
  { method: 'GET', route: '/api/map/user_characters', token: 'map', selector: true },
  {
    method: 'GET',
    route: '/api/map/structure-timers',
    token: 'map',
    selector: true,
    ids: ['system_id'],
    query: () => ({ system_id: '00000000-0000-4000-8000-000000000000' }),
  },
  { method: 'GET', route: '/api/map/acls', token: 'map', selector: true },
  {
    method: 'POST',
    route: '/api/map/acls',
    token: 'map',
    selector: true,
    body: (c) => ({ acl: { name: 'Hostile ACL', description: 'desc', owner_eve_id: c.ownerEveId } }),
  },
  { method: 'GET', route: '/api/acls/:id', token: 'acl', params: (c) => ({ id: c.aclId }) },
  {
    method: 'PUT',
    route: '/api/acls/:id',
    token: 'acl',
    params: (c) => ({ id: c.aclId }),
    body: () => ({ acl: { name: 'Renamed', description: 'changed' } }),
  },
  {
    method: 'POST',
    route: '/api/acls/:acl_id/members',
    token: 'acl',
    params: (c) => ({ acl_id: c.aclId }),
    body: (c) => ({ member: { eve_character_id: c.freeEveId, role: 'viewer', name: 'Someone' } }),
  },
  {
    method: 'PUT',
    route: '/api/acls/:acl_id/members/:member_id',
    token: 'acl',
    params: (c) => ({ acl_id: c.aclId, member_id: c.memberEveId }),
    body: () => ({ member: { role: 'admin' } }),
  },
  {
    method: 'DELETE',
    route: '/api/acls/:acl_id/members/:member_id',
    token: 'acl',
    params: (c) => ({ acl_id: c.aclId, member_id: c.memberEveId }),
  },
  { method: 'GET', route: '/api/characters', token: 'any' },
  // The /api/maps/{map_id}/… family ({map_id}: UUID or slug).
  { method: 'GET', route: '/api/maps/:map_id/systems', token: 'map', params: mapPath, bools: ['all'], query: () => ({ all: 'true' }) },
  { method: 'GET', route: '/api/maps/:map_id/systems/:solar_system_id', token: 'map', params: (c) => ({ map_id: c.slug, solar_system_id: String(ON_MAP) }) },
  { method: 'GET', route: '/api/maps/:map_id/connections', token: 'map', params: mapPath },
  { method: 'GET', route: '/api/maps/:map_id/tracked-characters', token: 'map', params: mapPath },
  { method: 'GET', route: '/api/maps/:map_id/user-characters', token: 'map', params: mapPath },
  {
    method: 'GET',
    route: '/api/maps/:map_id/signatures',
    token: 'map',
    params: mapPath,
    ints: ['solar_system_id'],
    query: () => ({ solar_system_id: String(ON_MAP) }),
  },
  { method: 'GET', route: '/api/maps/:map_id/structures', token: 'map', params: mapPath },
  {
    method: 'GET',
    route: '/api/maps/:map_id/structure-timers',
    token: 'map',
    params: mapPath,
    ids: ['system_id'],
    query: () => ({ system_id: '00000000-0000-4000-8000-000000000000' }),
  },
  {
    method: 'POST',
    route: '/api/maps/:map_id/systems',
    token: 'map',
    params: mapPath,
    body: () => ({
      solar_system_id: NOT_ON_MAP,
      position_x: 10,
      position_y: -20,
      custom_name: 'Custom',
      tag: 'T1',
      status: 'home',
      labels: '{"labels":[]}',
      description: 'desc',
      locked: false,
    }),
  },
  {
    method: 'PATCH',
    route: '/api/maps/:map_id/systems/:solar_system_id',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, solar_system_id: String(ON_MAP) }),
    body: () => ({ status: 2, position_x: 5, custom_name: 'Renamed', tag: 'X', description: 'changed', locked: false }),
    emptyBodyOk: true,
  },
  {
    method: 'DELETE',
    route: '/api/maps/:map_id/systems/:solar_system_id',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, solar_system_id: String(ON_MAP_3) }),
  },
  {
    method: 'POST',
    route: '/api/maps/:map_id/connections',
    token: 'map',
    params: mapPath,
    body: () => ({
      solar_system_source: ON_MAP,
      solar_system_target: ON_MAP_3,
      type: 0,
      mass_status: 0,
      time_status: 0,
      ship_size_type: 2,
      wormhole_type: 'K162',
      locked: false,
    }),
  },
  {
    method: 'PATCH',
    route: '/api/maps/:map_id/connections/:id',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, id: c.connectionId }),
    body: () => ({ mass_status: 1, time_status: 2, ship_size_type: 1, type: 0, wormhole_type: 'H296', locked: true }),
    emptyBodyOk: true,
  },
  {
    method: 'DELETE',
    route: '/api/maps/:map_id/connections/:id',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, id: c.connectionId }),
  },
  {
    method: 'PUT',
    route: '/api/maps/:map_id/systems/:solar_system_id/signatures',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, solar_system_id: String(ON_MAP) }),
    body: () => ({
      signatures: [
        { signature_id: 'ABC-123', name: 'Sig', kind: 'Cosmic Signature', group: 'Wormhole', type: 'K162', description: 'd', linked_system_id: ON_MAP_2 },
      ],
      replace: true,
    }),
  },
  {
    method: 'DELETE',
    route: '/api/maps/:map_id/systems/:solar_system_id/signatures/:signature_id',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, solar_system_id: String(ON_MAP), signature_id: SIGNATURE }),
  },
  {
    method: 'POST',
    route: '/api/maps/:map_id/structures',
    token: 'map',
    params: mapPath,
    body: () => ({
      solar_system_id: ON_MAP,
      structure_type_id: '35832',
      structure_type: 'Astrahus',
      name: 'Hostile Astrahus',
      status: 'Reinforced',
      end_time: '2030-01-01T00:00:00Z',
      notes: 'notes',
      owner_name: 'Owner',
      owner_ticker: 'OWN',
      owner_id: '98000001',
    }),
  },
  {
    method: 'PUT',
    route: '/api/maps/:map_id/structures/:id',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, id: c.structureId }),
    body: () => ({ name: 'Renamed structure', status: 'Anchoring', end_time: '2031-01-01T00:00:00Z', notes: 'n' }),
    emptyBodyOk: true,
  },
  {
    method: 'DELETE',
    route: '/api/maps/:map_id/structures/:id',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, id: c.structureId }),
  },
  { method: 'POST', route: '/api/maps/:map_id/kills', token: 'map', params: mapPath, body: KILL },
  // A killmail id the map does not have: nothing to delete, and nothing is (the snapshot checks it).
  { method: 'DELETE', route: '/api/maps/:map_id/kills/:killmail_id', token: 'map', params: (c) => ({ map_id: c.mapId, killmail_id: '987654321' }) },
  {
    method: 'PUT',
    route: '/api/maps/:map_id/tracked-characters/:eve_id',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, eve_id: c.trackedEveId }),
    body: () => ({ tracked: false }),
  },
  {
    method: 'POST',
    route: '/api/maps/:map_id/character-activity',
    token: 'map',
    params: mapPath,
    body: (c) => ({ character_eve_id: c.ownerEveId, passages: 1, connections: 2, signatures: 3 }),
  },
  {
    method: 'GET',
    route: '/api/maps/:map_id/events',
    token: 'map',
    params: (c) => ({ map_id: c.mapId }),
    ints: ['limit'],
    ids: ['after'],
    query: () => ({ limit: '10', after: '01JCZ7Y8ZK8Q4R2T6V9W3X5Y7A' }),
  },
  { method: 'PUT', route: '/api/maps/:map_id/webhooks/toggle', token: 'map', params: mapPath, body: () => ({ enabled: false }) },
  { method: 'GET', route: '/api/maps/:map_id/webhooks', token: 'map', params: mapPath },
  {
    method: 'POST',
    route: '/api/maps/:map_id/webhooks',
    token: 'map',
    params: mapPath,
    body: () => ({ url: 'http://127.0.0.1:9/other', events: ['*'], active: false }),
  },
  {
    method: 'PUT',
    route: '/api/maps/:map_id/webhooks/:id',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, id: c.webhookId }),
    body: () => ({ url: 'http://127.0.0.1:9/renamed', events: ['map_kill'], active: false }),
    emptyBodyOk: true,
  },
  { method: 'GET', route: '/api/maps/:map_id/webhooks/:id', token: 'map', params: (c) => ({ map_id: c.mapId, id: c.webhookId }) },
  { method: 'DELETE', route: '/api/maps/:map_id/webhooks/:id', token: 'map', params: (c) => ({ map_id: c.mapId, id: c.webhookId }) },
  { method: 'POST', route: '/api/maps/:map_id/webhooks/:id/rotate-secret', token: 'map', params: (c) => ({ map_id: c.mapId, id: c.webhookId }) },
  {
    method: 'GET',
    route: '/api/maps/:map_id/webhooks/:id/deliveries',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, id: c.webhookId }),
    // `before` is an attempt id (bigint): its own bounds are checked in test/api/webhooks.test.ts.
    ints: ['limit'],
    query: () => ({ limit: '10', before: '1000', outcome: 'failure' }),
  },
  {
    method: 'POST',
    route: '/api/maps/:map_id/webhooks/:id/redeliver',
    token: 'map',
    params: (c) => ({ map_id: c.mapId, id: c.webhookId }),
    body: (c) => ({ event_id: c.eventId }),
  },
  { method: 'POST', route: '/api/maps/:map_id/webhooks/:id/ping', token: 'map', params: (c) => ({ map_id: c.mapId, id: c.webhookId }) },
  { method: 'GET', route: '/api/common/system-static-info', token: 'none', ints: ['id'], query: () => ({ id: '30000142' }) },
  { method: 'POST', route: '/api/admin/users', token: 'admin', body: () => ({ name: 'Hostile user' }) },
  { method: 'GET', route: '/api/admin/users', token: 'admin' },
  { method: 'GET', route: '/api/admin/users/:id', token: 'admin', params: (c) => ({ id: c.userId }) },
  {
    method: 'PUT',
    route: '/api/admin/users/:id/main-character',
    token: 'admin',
    params: (c) => ({ id: c.userId }),
    body: (c) => ({ eve_id: c.userCharEveId }),
  },
  {
    method: 'PUT',
    route: '/api/admin/characters',
    token: 'admin',
    body: () => ({
      eve_id: '2199999001',
      name: 'Hostile pilot',
      corporation_id: '98000009',
      corporation_ticker: 'HOST',
      alliance_id: '99000009',
      alliance_ticker: 'HSTL',
    }),
  },
  { method: 'GET', route: '/api/admin/characters', token: 'admin' },
  {
    method: 'POST',
    route: '/api/admin/maps',
    token: 'admin',
    body: (c) => ({ slug: 'hostile-map', name: 'Hostile map', description: 'd', owner_eve_id: c.ownerEveId }),
  },
  { method: 'GET', route: '/api/admin/maps', token: 'admin' },
  { method: 'GET', route: '/api/admin/maps/:map', token: 'admin', params: (c) => ({ map: c.mapId }) },
  {
    method: 'POST',
    route: '/api/admin/maps/:map/keys',
    token: 'admin',
    params: (c) => ({ map: c.mapId }),
    body: (c) => ({ character_eve_id: c.ownerEveId, name: 'hostile key' }),
  },
  { method: 'GET', route: '/api/admin/maps/:map/keys', token: 'admin', params: (c) => ({ map: c.slug }) },
  {
    method: 'DELETE',
    route: '/api/admin/maps/:map/keys/:key_id',
    token: 'admin',
    params: (c) => ({ map: c.mapId, key_id: c.keyId }),
  },
  {
    method: 'PUT',
    route: '/api/admin/maps/:map/characters/:eve_id',
    token: 'admin',
    params: (c) => ({ map: c.mapId, eve_id: c.trackedEveId }),
    body: () => ({ tracked: false }),
  },
  {
    method: 'DELETE',
    route: '/api/admin/maps/:map/characters/:eve_id',
    token: 'admin',
    params: (c) => ({ map: c.mapId, eve_id: c.trackedEveId }),
  },
];

// ---------------------------------------------------------------------------------------------------
// Hostile values

const LONG = 'a'.repeat(100_000);
/** Long enough to be absurd, short enough to fit Node's 16 KiB request-head limit. */
const LONG_URL_PART = 'a'.repeat(8_000);

/** Path segments, already URL-encoded as sent. */
const HOSTILE_PATH: [string, string][] = [
  ['not a UUID', 'not-a-uuid'],
  ['UUID with a bad character', '123e4567-e89b-12d3-a456-42661417400z'],
  ['huge integer', '99999999999999999999'],
  ['2^31', '2147483648'],
  ['negative integer', '-1'],
  ['float', '1.5'],
  ['NUL', '%00'],
  ['invalid UTF-8 %FF', '%FF'],
  ['invalid UTF-8 %C3%28', '%C3%28'],
  ['encoded lone surrogate', '%ED%A0%80'],
  ['8k characters', LONG_URL_PART],
];

/** Query values for the map selector; each replaces `map_id` (the query keeps no slug). */
const HOSTILE_SELECTOR: [string, (c: Ctx) => string][] = [
  ['map_id not a UUID', () => 'map_id=not-a-uuid'],
  ['map_id UUID with a bad character', () => 'map_id=123e4567-e89b-12d3-a456-42661417400z'],
  ['map_id huge integer', () => 'map_id=99999999999999999999'],
  ['map_id negative integer', () => 'map_id=-1'],
  ['map_id NUL', () => 'map_id=%00'],
  ['map_id with NUL appended', (c) => `map_id=${c.mapId}%00`],
  ['map_id invalid UTF-8 %FF', () => 'map_id=%FF'],
  ['map_id invalid UTF-8 %C3%28', () => 'map_id=%C3%28'],
  ['map_id repeated (two values)', (c) => `map_id=${c.mapId}&map_id=00000000-0000-4000-8000-000000000000`],
  ['map_id repeated (same value)', (c) => `map_id=${c.mapId}&map_id=${c.mapId}`],
  ['map_id as array syntax', (c) => `map_id[]=${c.mapId}`],
  ['map_id as object syntax', (c) => `map_id[a]=${c.mapId}`],
  ['map_id 8k characters', () => `map_id=${LONG_URL_PART}`],
  ['slug 8k characters', () => `slug=${LONG_URL_PART}`],
  ['slug NUL', () => 'slug=%00'],
  ['slug repeated', (c) => `slug=${c.slug}&slug=${c.otherSlug}`],
  ['map_id and slug of different maps', (c) => `map_id=${c.mapId}&slug=${c.otherSlug}`],
  ['empty map_id and slug', () => 'map_id=&slug='],
];

const HOSTILE_INT: [string, string][] = [
  ['huge integer', '99999999999999999999'],
  ['2^31', '2147483648'],
  ['negative integer', '-1'],
  ['float', '1.5'],
  ['letters', 'abc'],
  ['empty', ''],
  ['exponent', '1e3'],
  ['hex', '0x10'],
  ['Infinity', 'Infinity'],
  ['NaN', 'NaN'],
  ['NUL', '%00'],
  ['invalid UTF-8', '%FF'],
  ['8k digits', '9'.repeat(8_000)],
];

const HOSTILE_BOOL: [string, string][] = [
  ['yes', 'yes'],
  ['number', '2'],
  ['empty', ''],
  ['NUL', '%00'],
  ['invalid UTF-8', '%FF'],
];

const HOSTILE_ID_QUERY: [string, string][] = [
  ['not an id', 'not-an-id'],
  ['huge integer', '99999999999999999999'],
  ['NUL', '%00'],
  ['invalid UTF-8', '%FF'],
  ['repeated', '01JCZ7Y8ZK8Q4R2T6V9W3X5Y7A&$NAME=01JCZ7Y8ZK8Q4R2T6V9W3X5Y7B'],
];

/** Replacements for a string leaf of the body. */
const HOSTILE_FOR_STRING: [string, Json][] = [
  ['number for string', 123],
  ['boolean for string', true],
  ['object for string', { a: 1 }],
  ['array for string', ['x']],
  ['100k characters', LONG],
  ['NUL character', 'ab\u0000cd'],
  ['lone high surrogate', 'ab\uD800cd'],
  ['lone low surrogate', 'ab\uDC00cd'],
];

/** Replacements for a number leaf of the body. */
const HOSTILE_FOR_NUMBER: [string, Json][] = [
  ['string for number', '5'],
  ['boolean for number', true],
  ['object for number', { a: 1 }],
  ['array for number', [5]],
  // Deliberately beyond 2^53: the JSON text a hostile client sends.
  // eslint-disable-next-line no-loss-of-precision
  ['huge integer', 99999999999999999999],
];

/** Replacements for a boolean leaf of the body. */
const HOSTILE_FOR_BOOLEAN: [string, Json][] = [
  ['string "true" for boolean', 'true'],
  ['string "false" for boolean', 'false'],
  ['string for boolean', 'yes'],
  ['number for boolean', 1],
  ['null for boolean', null],
  ['object for boolean', {}],
];

/** Invalid UTF-8 byte sequences placed inside a string value of an otherwise valid body. */
const INVALID_UTF8: [string, number[]][] = [
  ['0xFF 0xFE', [0xff, 0xfe]],
  ['truncated sequence 0xC3 0x28', [0xc3, 0x28]],
  ['CESU-8 lone surrogate 0xED 0xA0 0x80', [0xed, 0xa0, 0x80]],
  ['overlong NUL 0xC0 0x80', [0xc0, 0x80]],
];

// ---------------------------------------------------------------------------------------------------
// Request building

interface HostileRequest {
  name: string;
  method: Method;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Exact status when decisions §1 fixes it; otherwise any 4xx. */
  status?: number;
  code?: string;
}

type Case = { name: string; build: (c: Ctx) => HostileRequest | HostileRequest[] };

function fillPath(route: string, params: Record<string, string>): string {
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

function url(ep: Endpoint, c: Ctx, opts: { params?: Record<string, string>; query?: string } = {}): string {
  const p = fillPath(ep.route, { ...ep.params?.(c), ...opts.params });
  const query = opts.query ?? qs({ ...(ep.selector ? { map_id: c.mapId } : {}), ...ep.query?.(c) });
  return query ? `${p}?${query}` : p;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

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

function casesFor(ep: Endpoint): Case[] {
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

// ---------------------------------------------------------------------------------------------------
// Checks

const WATCHED = [
  'acls',
  'acl_members',
  'map_acls',
  'users',
  'characters',
  'maps',
  'map_api_keys',
  'map_characters',
  'map_systems',
  'map_connections',
  'map_signatures',
  'map_structures',
  'map_kills',
  'character_activity',
  'webhook_subscriptions',
  'webhook_map_state',
  'webhook_deliveries',
  'webhook_attempts',
] as const;

/**
 * Row count and the sum of the rows' xmin per table: any insert, update or delete changes one of them
 * (an update writes a new row version with a new xmin).
 */
async function snapshot(t: TestServer): Promise<Record<string, string>> {
  const conn = t.platform.orm.em.fork().getConnection();
  const parts = WATCHED.map((table) => `(select count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) from ${table}) as ${table}`);
  const rows = await conn.execute<Record<string, string>[]>(`select ${parts.join(', ')}, (select count(*)::text from map_events) as map_events`);
  return rows[0]!;
}

const COUNTED = ['acls', 'acl_members', 'users', 'characters', 'maps', 'map_api_keys', 'map_events'] as const;

async function rowCounts(t: TestServer): Promise<Record<string, number>> {
  const rows = await t.platform.orm.em
    .fork()
    .getConnection()
    .execute<Record<string, number>[]>(`select ${COUNTED.map((table) => `(select count(*)::int from ${table}) as ${table}`).join(', ')}`);
  return rows[0]!;
}

async function expectJsonClientError(res: Response, req: HostileRequest): Promise<void> {
  const text = await res.text();
  const where = `${req.method} ${req.path.slice(0, 200)} → ${res.status} ${text.slice(0, 300)}`;
  if (req.status !== undefined) expect(res.status, where).toBe(req.status);
  expect(res.status, where).toBeGreaterThanOrEqual(400);
  expect(res.status, where).toBeLessThan(500);
  expect(res.headers.get('content-type'), where).toMatch(/^application\/json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(typeof body.error, where).toBe('string');
  expect(body.code, where).toMatch(/^[a-z][a-z0-9_]*$/);
  if (req.code) expect(body.code, where).toBe(req.code);
  expect(
    Object.keys(body).filter((k) => !['error', 'code', 'details'].includes(k)),
    where,
  ).toEqual([]);
  if ('details' in body) {
    expect(Array.isArray(body.details), where).toBe(true);
    for (const d of body.details as Record<string, unknown>[]) {
      expect(typeof d.field, where).toBe('string');
      expect(typeof d.message, where).toBe('string');
    }
  }
  expect(text, where).not.toMatch(/\bat \S+ \(|node_modules|\.ts:\d+/);
}

// ---------------------------------------------------------------------------------------------------

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
    await importFixture(t.platform);
    const m = await makeMap(t.platform);
    const other = await makeMap(t.platform);
    Object.assign(ctx, { mapKey: m.key, mapId: m.map.id, slug: m.map.slug, otherSlug: other.map.slug, ownerEveId: m.ownerEveId });
    await makeSystem(t.platform, m.map.id, ON_MAP);
    await makeSystem(t.platform, m.map.id, ON_MAP_2);
    await makeSystem(t.platform, m.map.id, ON_MAP_3);
    const conn = await t.fetch(`/api/maps/${m.map.id}/connections`, {
      method: 'POST',
      token: m.key,
      headers: JSON_HEADERS,
      body: JSON.stringify({ solar_system_source: ON_MAP, solar_system_target: ON_MAP_2 }),
    });
    expect(conn.status).toBe(201);
    ctx.connectionId = ((await conn.json()) as { data: { id: string } }).data.id;
    const sig = await t.fetch(`/api/maps/${m.map.id}/systems/${ON_MAP}/signatures`, {
      method: 'PUT',
      token: m.key,
      headers: JSON_HEADERS,
      body: JSON.stringify({ signatures: [{ signature_id: SIGNATURE, group: 'Wormhole' }] }),
    });
    expect(sig.status).toBe(200);
    const structure = await t.fetch(`/api/maps/${m.map.id}/structures`, {
      method: 'POST',
      token: m.key,
      headers: JSON_HEADERS,
      body: JSON.stringify({ solar_system_id: ON_MAP, structure_type_id: '35832', structure_type: 'Astrahus', name: 'Base structure' }),
    });
    expect(structure.status).toBe(201);
    ctx.structureId = ((await structure.json()) as { data: { id: string } }).data.id;
    const hook = await t.fetch(`/api/maps/${m.map.id}/webhooks`, {
      method: 'POST',
      token: m.key,
      headers: JSON_HEADERS,
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['*'] }),
    });
    expect(hook.status).toBe(201);
    ctx.webhookId = ((await hook.json()) as { data: { id: string } }).data.id;
    // An event of the map with its id (the relay assigns ids just after the commit).
    for (let i = 0; i < 100 && !ctx.eventId; i++) {
      ctx.eventId = ((await (await t.fetch(`/api/maps/${m.map.id}/events`, { token: m.key })).json()) as { data: { id: string }[] }).data[0]?.id as string;
      if (!ctx.eventId) await new Promise((r) => setTimeout(r, 50));
    }
    expect(ctx.eventId).toMatch(/^[0-7][0-9A-Z]{25}$/);

    const acl = await t.fetch(`/api/map/acls?map_id=${m.map.id}`, {
      method: 'POST',
      token: m.key,
      headers: JSON_HEADERS,
      body: JSON.stringify({ acl: { name: 'Base ACL', owner_eve_id: m.ownerEveId } }),
    });
    expect(acl.status).toBe(200);
    const aclBody = (await acl.json()) as { data: { id: string; api_key: string } };
    ctx.aclId = aclBody.data.id;
    ctx.aclKey = aclBody.data.api_key;

    const member = await makeCharacter(t.platform);
    ctx.memberEveId = member.eve_id;
    const add = await t.fetch(`/api/acls/${ctx.aclId}/members`, {
      method: 'POST',
      token: ctx.aclKey,
      headers: JSON_HEADERS,
      body: JSON.stringify({ member: { eve_character_id: member.eve_id, role: 'viewer' } }),
    });
    expect(add.status).toBe(200);
    ctx.freeEveId = (await makeCharacter(t.platform)).eve_id;

    const user = await t.fetch('/api/admin/users', { method: 'POST', token: ADMIN_TOKEN, headers: JSON_HEADERS, body: JSON.stringify({ name: 'Base user' }) });
    expect(user.status).toBe(201);
    ctx.userId = ((await user.json()) as { data: { id: string } }).data.id;
    ctx.userCharEveId = (await makeCharacter(t.platform, { user_id: ctx.userId })).eve_id;

    const key = await t.fetch(`/api/admin/maps/${m.map.id}/keys`, {
      method: 'POST',
      token: ADMIN_TOKEN,
      headers: JSON_HEADERS,
      body: JSON.stringify({ character_eve_id: m.ownerEveId, name: 'second' }),
    });
    expect(key.status).toBe(201);
    ctx.keyId = ((await key.json()) as { data: { id: string } }).data.id;

    const tracked = await makeCharacter(t.platform);
    ctx.trackedEveId = tracked.eve_id;
    const track = await t.fetch(`/api/admin/maps/${m.map.id}/characters/${tracked.eve_id}`, {
      method: 'PUT',
      token: ADMIN_TOKEN,
      headers: JSON_HEADERS,
      body: JSON.stringify({ tracked: true }),
    });
    expect(track.status).toBe(200);
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
