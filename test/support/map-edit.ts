/**
 * Helpers of the editing API tests: JSON requests on `/api/maps/{map}/…` and the outbox rows
 * (map_events) a change wrote.
 */
import { expect } from 'vitest';
import { startTestServer, type TestServer } from './app.js';
import { importFixture, makeMap } from './factories.js';

export type Json = Record<string, unknown>;

export interface ApiResult<T = unknown> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface EventRow {
  seq: number;
  map_id: string;
  type: string;
  payload: Json;
  /** Id of the transaction that wrote the row (`xmin`; the tests run without the relay, which updates rows). */
  xmin: string;
}

export interface ErrorBody {
  error: string;
  code: string;
  details?: { field: string; message: string }[];
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
export const SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

export const SYSTEM_KEYS = [
  'id',
  'name',
  'status',
  'tag',
  'visible',
  'description',
  'labels',
  'inserted_at',
  'updated_at',
  'locked',
  'solar_system_id',
  'map_id',
  'custom_name',
  'position_x',
  'position_y',
].sort();

export const CONNECTION_KEYS = [
  'id',
  'type',
  'mass_status',
  'ship_size_type',
  'time_status',
  'map_id',
  'inserted_at',
  'updated_at',
  'solar_system_source',
  'solar_system_target',
  'wormhole_type',
].sort();

export const SIGNATURE_KEYS = [
  'id',
  'solar_system_id',
  'signature_id',
  'name',
  'kind',
  'group',
  'type',
  'description',
  'character_eve_id',
  'linked_system_id',
  'inserted_at',
  'updated_at',
].sort();

export const STRUCTURE_KEYS = [
  'id',
  'system_id',
  'solar_system_id',
  'solar_system_name',
  'structure_type_id',
  'structure_type',
  'character_eve_id',
  'name',
  'notes',
  'owner_name',
  'owner_ticker',
  'owner_id',
  'status',
  'end_time',
  'inserted_at',
  'updated_at',
].sort();

export function editClient(t: TestServer, key: string, map: string) {
  const sql = async <T>(query: string, params: unknown[] = []) => t.platform.orm.em.fork().getConnection().execute<T[]>(query, params);

  async function send<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    opts: { token?: string; map?: string; raw?: string } = {},
  ): Promise<ApiResult<T>> {
    const init: RequestInit & { token?: string } = { method, token: opts.token ?? key };
    if (opts.raw !== undefined) init.body = opts.raw;
    else if (body !== undefined) init.body = JSON.stringify(body);
    if (init.body !== undefined) init.headers = { 'content-type': 'application/json' };
    const res = await t.fetch(`/api/maps/${opts.map ?? map}${path}`, init);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, text, headers: res.headers };
  }

  /** The highest outbox seq so far (events after it belong to the next change). */
  async function mark(): Promise<number> {
    const rows = await sql<{ seq: string | null }>('select max(seq)::text as seq from map_events');
    return Number(rows[0]?.seq ?? 0);
  }

  /** Outbox rows written after `since`, in seq order. */
  async function eventsSince(since: number, mapId?: string): Promise<EventRow[]> {
    // Ordered by the column, not the text alias (which would put seq 10 before seq 8).
    const rows = await sql<{ seq: string; map_id: string; type: string; payload: Json; xmin: string }>(
      `select seq::text as seq, map_id, type, payload, xmin::text as xmin from map_events
       where seq > ? ${mapId ? 'and map_id = ?' : ''} order by map_events.seq`,
      mapId ? [since, mapId] : [since],
    );
    return rows.map((r) => ({ seq: Number(r.seq), map_id: r.map_id, type: r.type, payload: r.payload, xmin: r.xmin }));
  }

  /** Runs `fn` and answers its result with the events it wrote. */
  async function withEvents<T>(fn: () => Promise<T>): Promise<{ result: T; events: EventRow[] }> {
    const since = await mark();
    const result = await fn();
    return { result, events: await eventsSince(since) };
  }

  return { send, sql, mark, eventsSince, withEvents };
}

/** Solar systems of the static-data fixture the editing tests use. */
export const JITA = 30000142;
export const THERA = 31000005;
export const J152820 = 31001880;
export const J100744 = 31000008;
export const EGBINGER = 30002420;
export const MIAKIE = 30003539;

/** The editing tests' server, with the static data. */
export async function startEditServer(): Promise<TestServer> {
  // Without the relay, outbox rows keep the xmin of the transaction that wrote them.
  const t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false', SERVICE_RATE_LIMIT_PER_MINUTE: '10000' } });
  await importFixture(t.platform);
  return t;
}

/** A new map with the given systems (added through the API) and a client for it (by slug unless `byId`). */
export async function freshMap(t: TestServer, opts: { systems?: number[]; byId?: boolean } = {}) {
  const m = await makeMap(t.platform);
  const c = editClient(t, m.key, opts.byId ? m.map.id : m.map.slug);
  if (opts.systems?.length) {
    const res = await c.send('POST', '/systems', { systems: opts.systems.map((solar_system_id) => ({ solar_system_id })) });
    expect(res.status, res.text).toBe(201);
  }
  return { ...c, mapId: m.map.id as string, slug: m.map.slug as string, key: m.key, ownerEveId: m.ownerEveId };
}

export type EditMap = Awaited<ReturnType<typeof freshMap>>;

/** POST /systems, expecting 201: the system answered. */
export async function addSystem(c: EditMap, body: Json): Promise<Json> {
  const res = await c.send<{ data: Json }>('POST', '/systems', body);
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

/** POST /connections, expecting 201: the connection answered. */
export async function addConnection(c: EditMap, body: Json): Promise<Json> {
  const res = await c.send<{ data: Json }>('POST', '/connections', body);
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

/** Asserts a 400 validation_failed answer naming `field` (exactly) among its details. */
export function expectValidation(res: ApiResult, field: string, message?: RegExp | string): void {
  expect(res.status, res.text).toBe(400);
  const body = res.body as ErrorBody;
  expect(body.code).toBe('validation_failed');
  expect(body.error).toBe('Request validation failed');
  const detail = body.details?.find((d) => d.field === field);
  expect(detail, `detail for ${field} in ${res.text}`).toBeDefined();
  if (message !== undefined) expect(detail!.message).toMatch(message);
}

/** A killmail in the request shape of spec 2.6. */
export function killBody(solarSystemId: number, killmailId: number, overrides: Json = {}): Json {
  return {
    killmail_id: killmailId,
    kill_time: '2026-01-02T03:04:05Z',
    solar_system_id: solarSystemId,
    attacker_count: 4,
    npc: false,
    total_value: 250_000_000.5,
    final_blow_alliance_id: 99000001,
    final_blow_char_id: 2112000001,
    final_blow_corp_id: 98000001,
    final_blow_ship_type_id: 17715,
    final_blow_alliance_ticker: 'ALLY',
    final_blow_char_name: 'Killer',
    final_blow_corp_ticker: 'CORP',
    final_blow_ship_name: 'Gila',
    victim_alliance_id: null,
    victim_char_id: 2112000002,
    victim_corp_id: 98000002,
    victim_ship_type_id: 11188,
    victim_char_name: 'Victim',
    victim_corp_ticker: 'VICT',
    victim_ship_name: 'Anathema',
    zkb: {
      awox: false,
      destroyedValue: 200_000_000,
      droppedValue: 50_000_000.5,
      fittedValue: 180_000_000,
      hash: 'feedbeef',
      labels: ['pvp'],
      locationID: 40000001,
      npc: false,
      points: 7,
      solo: false,
      totalValue: 250_000_000.5,
    },
    ...overrides,
  };
}
