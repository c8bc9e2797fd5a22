/**
 * Helpers of the admin API tests (test/api/admin-*.test.ts): the answer shapes, JSON requests with the
 * admin token, and users, characters and maps made through the API.
 */
import { expect } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from './app.js';
import { makeMap } from './factories.js';

export const TS_MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const USER_FIELDS = ['id', 'name', 'main_character_eve_id', 'characters', 'inserted_at', 'updated_at'].sort();
export const CHARACTER_FIELDS = ['eve_id', 'name', 'corporation_id', 'corporation_ticker', 'alliance_id', 'alliance_ticker'].sort();
export const ADMIN_CHARACTER_FIELDS = [...CHARACTER_FIELDS, 'id', 'user_id'].sort();
export const MAP_FIELDS = ['id', 'slug', 'name', 'description', 'owner_eve_id', 'webhooks_enabled', 'inserted_at', 'updated_at'].sort();
export const KEY_FIELDS = ['id', 'map_id', 'character_eve_id', 'name', 'prefix', 'revoked_at', 'inserted_at', 'profile', 'stream_profile'].sort();

export interface ErrorBody {
  error: string;
  code: string;
  details?: { field: string; message: string }[];
}

export interface User {
  id: string;
  name: string;
  main_character_eve_id: string | null;
  characters: Record<string, unknown>[];
  inserted_at: string;
  updated_at: string;
}

export interface AdminCharacter {
  id: string;
  user_id: string | null;
  eve_id: string;
  name: string;
  corporation_id: string;
  corporation_ticker: string;
  alliance_id: string | null;
  alliance_ticker: string | null;
}

export interface AdminMap {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  owner_eve_id: string;
  webhooks_enabled: boolean;
  inserted_at: string;
  updated_at: string;
}

export interface MapKey {
  id: string;
  map_id: string;
  character_eve_id: string;
  name: string | null;
  prefix: string;
  revoked_at: string | null;
  inserted_at: string;
  api_key?: string;
}

let seq = 0;
export const eveId = () => String(2_200_000_000 + ++seq * 13 + Math.floor(Math.random() * 100_000) * 1000);
export const slugOf = (what: string) => `${what}-${Date.now().toString(36)}-${++seq}`;

/** The admin tests' server, with a map (its key) and an ACL of that map (its key). */
export async function startAdminServer() {
  // Many requests per key here; rate limits (100/min per key) are not what these files test.
  const t = await startTestServer({ env: { SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
  const { send, data } = adminClient(() => t);
  const m = await makeMap(t.platform);
  const mapKey = m.key;
  const fixtureMap = { id: m.map.id, slug: m.map.slug };
  const res = await send('POST', `/api/map/acls?slug=${m.map.slug}`, mapKey, { acl: { name: 'acl', owner_eve_id: m.ownerEveId } });
  expect(res.status).toBe(200);
  const aclKey = (await data<{ api_key: string }>(res)).api_key;
  return { t, mapKey, aclKey, fixtureMap };
}

/** Requests and makers over the server `server()` answers (called at request time). */
export function adminClient(server: () => TestServer) {
  const send = (method: string, path: string, token: string | undefined, body?: unknown) =>
    server().fetch(path, {
      method,
      ...(token !== undefined ? { token } : {}),
      ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
  const admin = (method: string, path: string, body?: unknown) => send(method, path, ADMIN_TOKEN, body);
  const data = async <T>(res: Response): Promise<T> => ((await res.json()) as { data: T }).data;

  const createUser = async (name: string): Promise<User> => {
    const res = await admin('POST', '/api/admin/users', { name });
    expect(res.status).toBe(201);
    return data<User>(res);
  };

  const upsert = async (body: Record<string, unknown>): Promise<AdminCharacter> => {
    const res = await admin('PUT', '/api/admin/characters', body);
    expect(res.status).toBe(200);
    return data<AdminCharacter>(res);
  };

  const newCharacter = (extra: Record<string, unknown> = {}) =>
    upsert({ eve_id: eveId(), name: `Pilot ${seq}`, corporation_id: '98000001', corporation_ticker: 'CORP', ...extra });

  const createMap = async (ownerEveId: string, extra: Record<string, unknown> = {}) => {
    const res = await admin('POST', '/api/admin/maps', { slug: slugOf('map'), name: 'Admin Map', owner_eve_id: ownerEveId, ...extra });
    expect(res.status).toBe(201);
    return data<{ map: AdminMap; api_key: MapKey & { api_key: string } }>(res);
  };

  return { send, admin, data, createUser, upsert, newCharacter, createMap };
}
