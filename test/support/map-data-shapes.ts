/**
 * The JSON shapes of the map data endpoints (spec 4.1, section 2) and the checks the map-data tests
 * assert them with: exact key sets, JSON types, timestamp formats.
 */
import { expect } from 'vitest';
import type { TestServer } from './app.js';
import type { makeCharacter } from './factories.js';

export type Json = Record<string, unknown>;
export type FieldType = 'string' | 'uuid' | 'integer' | 'number' | 'boolean' | 'micro' | 'seconds' | 'string[]' | 'object';
/** A field type; a trailing `?` means the value may also be null. */
export type Shape = Record<string, FieldType | `${FieldType}?`>;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
export const SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** Asserts the exact key set of `obj` and the JSON type of every value. */
export function expectShape(obj: unknown, shape: Shape, where = 'object'): void {
  expect(obj, where).toBeTypeOf('object');
  expect(obj, where).not.toBeNull();
  const o = obj as Json;
  expect(Object.keys(o).sort(), where).toEqual(Object.keys(shape).sort());
  for (const [field, spec] of Object.entries(shape)) {
    const nullable = spec.endsWith('?');
    const type = (nullable ? spec.slice(0, -1) : spec) as FieldType;
    const v = o[field];
    const at = `${where}.${field}`;
    if (nullable && v === null) continue;
    switch (type) {
      case 'string':
        expect(v, at).toBeTypeOf('string');
        break;
      case 'uuid':
        expect(v, at).toMatch(UUID);
        break;
      case 'integer':
        expect(Number.isInteger(v), `${at} = ${String(v)} is an integer`).toBe(true);
        break;
      case 'number':
        expect(v, at).toBeTypeOf('number');
        break;
      case 'boolean':
        expect(v, at).toBeTypeOf('boolean');
        break;
      case 'micro':
        expect(v, at).toMatch(MICRO);
        break;
      case 'seconds':
        expect(v, at).toMatch(SECONDS);
        break;
      case 'string[]':
        expect(Array.isArray(v), at).toBe(true);
        for (const s of v as unknown[]) expect(s, at).toBeTypeOf('string');
        break;
      case 'object':
        expect(v, at).toBeTypeOf('object');
        expect(v, at).not.toBeNull();
        break;
    }
  }
}

export const SYSTEM_SHAPE: Shape = {
  id: 'uuid',
  name: 'string',
  status: 'integer',
  tag: 'string?',
  visible: 'boolean',
  description: 'string?',
  labels: 'string?',
  inserted_at: 'micro',
  updated_at: 'micro',
  locked: 'boolean',
  solar_system_id: 'integer',
  map_id: 'uuid',
  custom_name: 'string?',
  position_x: 'integer',
  position_y: 'integer',
};

export const CONNECTION_SHAPE: Shape = {
  id: 'uuid',
  type: 'integer',
  mass_status: 'integer',
  ship_size_type: 'integer',
  time_status: 'integer',
  map_id: 'uuid',
  inserted_at: 'micro',
  updated_at: 'micro',
  solar_system_source: 'integer',
  solar_system_target: 'integer',
  wormhole_type: 'string?',
};

export const CHARACTER_SHAPE: Shape = {
  eve_id: 'string',
  name: 'string',
  corporation_id: 'string',
  corporation_ticker: 'string',
  alliance_id: 'string?',
  alliance_ticker: 'string?',
};

export const KILL_SHAPE: Shape = {
  killmail_id: 'integer',
  kill_time: 'seconds',
  solar_system_id: 'integer',
  attacker_count: 'integer',
  npc: 'boolean',
  total_value: 'number',
  final_blow_alliance_id: 'integer',
  final_blow_char_id: 'integer',
  final_blow_corp_id: 'integer',
  final_blow_ship_type_id: 'integer',
  final_blow_alliance_ticker: 'string',
  final_blow_char_name: 'string',
  final_blow_corp_ticker: 'string',
  final_blow_ship_name: 'string',
  victim_alliance_id: 'integer?',
  victim_char_id: 'integer',
  victim_corp_id: 'integer',
  victim_ship_type_id: 'integer',
  victim_char_name: 'string',
  victim_corp_ticker: 'string',
  victim_ship_name: 'string',
  zkb: 'object',
};

export const ZKB_SHAPE: Shape = {
  awox: 'boolean',
  destroyedValue: 'number',
  droppedValue: 'number',
  fittedValue: 'number',
  hash: 'string',
  labels: 'string[]',
  locationID: 'integer',
  npc: 'boolean',
  points: 'integer',
  solo: 'boolean',
  totalValue: 'number',
};

export const STRUCTURE_SHAPE: Shape = {
  id: 'uuid',
  system_id: 'uuid',
  solar_system_id: 'integer',
  solar_system_name: 'string',
  structure_type_id: 'string',
  structure_type: 'string',
  character_eve_id: 'string?',
  name: 'string',
  notes: 'string?',
  owner_name: 'string?',
  owner_ticker: 'string?',
  owner_id: 'string?',
  status: 'string',
  end_time: 'micro',
  inserted_at: 'micro',
  updated_at: 'micro',
};

export const ACL_LIST_SHAPE: Shape = {
  id: 'uuid',
  name: 'string',
  description: 'string?',
  owner_eve_id: 'string',
  inserted_at: 'micro',
  updated_at: 'micro',
};

export const HOUR = 3600_000;
export const DAY = 24 * HOUR;

/** ISO 8601 UTC with microseconds, as PostgreSQL keeps a JS date (millisecond precision). */
export const micro = (d: Date) => d.toISOString().replace(/Z$/, '000Z');
/** ISO 8601 UTC, seconds precision (the date must have whole seconds or be truncated by the caller). */
export const seconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export type Character = Awaited<ReturnType<typeof makeCharacter>>;
export const pub = (c: Character) => ({
  eve_id: c.eve_id,
  name: c.name,
  corporation_id: c.corporation_id,
  corporation_ticker: c.corporation_ticker,
  alliance_id: c.alliance_id,
  alliance_ticker: c.alliance_ticker,
});

/** GET `path` with `token` (`null` sends none): the response, its status and its JSON body. */
export async function getJson(t: TestServer, path: string, token: string | null) {
  const res = await t.fetch(path, token === null ? {} : { token });
  return { res, status: res.status, body: (await res.json()) as Json & { data: unknown } };
}
