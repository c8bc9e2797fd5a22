/**
 * Helpers of the ACL members API tests (test/api/acl-members-*.test.ts): the member shape, a server
 * with two maps and a known character, and requests, ACLs and members made through the API.
 */
import { expect } from 'vitest';
import { startTestServer } from './app.js';
import { makeCharacter, makeMap } from './factories.js';

export const TS_MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ID_FIELDS = ['eve_character_id', 'eve_corporation_id', 'eve_alliance_id'] as const;
export type IdField = (typeof ID_FIELDS)[number];

export interface Member {
  id: string;
  name: string;
  role: string;
  eve_character_id?: string;
  eve_corporation_id?: string;
  eve_alliance_id?: string;
  inserted_at: string;
  updated_at: string;
}

export interface Acl {
  id: string;
  api_key: string;
  members: Member[];
}

export interface ErrorBody {
  error: string;
  code: string;
  details?: { field: string; message: string }[];
}

export interface EventRow {
  map_id: string;
  type: string;
  payload: Record<string, unknown>;
}

/** Exactly id, name, role, the one id field, inserted_at, updated_at (spec 2.10). */
export function expectMemberShape(m: Record<string, unknown>, idField: IdField): void {
  expect(Object.keys(m).sort()).toEqual(['id', 'name', 'role', idField, 'inserted_at', 'updated_at'].sort());
  for (const other of ID_FIELDS.filter((f) => f !== idField)) expect(m).not.toHaveProperty(other);
  expect(m.id).toMatch(UUID);
  expect(typeof m[idField]).toBe('string');
  expect(m.inserted_at).toMatch(TS_MICRO);
  expect(m.updated_at).toMatch(TS_MICRO);
}

/** Two maps (ACLs are created on the first, the home map) and a known character. */
export async function startAclMembers() {
  // Many requests per key here; rate limits (100/min per key) are not what these files test.
  const t = await startTestServer({ env: { SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
  const m1 = await makeMap(t.platform);
  const m2 = await makeMap(t.platform);
  const mapKey = m1.key;
  const slug = m1.map.slug;
  const ownerEveId = m1.ownerEveId;
  const homeMapId = m1.map.id;
  const secondMapId = m2.map.id;
  const mapIds = [m1.map.id, m2.map.id].sort();
  const known = await makeCharacter(t.platform, {
    name: 'Known Pilot',
    corporation_id: '98111111',
    corporation_ticker: 'KNOWN',
    alliance_id: '99111111',
    alliance_ticker: 'KALLY',
  });
  return { t, mapKey, slug, mapIds, homeMapId, secondMapId, ownerEveId, known };
}

export type AclMembersFixture = Awaited<ReturnType<typeof startAclMembers>>;

/** Requests, ACLs and members over the fixture `fixture()` answers (called at request time). */
export function aclMembersClient(fixture: () => AclMembersFixture) {
  let eveSeq = 0;
  const freshId = () => String(3_000_000_000 + ++eveSeq * 7 + Math.floor(Math.random() * 1_000_000) * 1000);

  const send = (method: string, path: string, token: string | undefined, body?: unknown) =>
    fixture().t.fetch(path, {
      method,
      ...(token !== undefined ? { token } : {}),
      ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });

  const sql = async <T>(query: string, params: unknown[] = []) => fixture().t.platform.orm.em.fork().getConnection().execute<T[]>(query, params);

  /** A fresh ACL linked to the test map (and, with `linkSecondMap`, to a second map too). */
  const newAcl = async (linkSecondMap = false): Promise<Acl> => {
    const res = await send('POST', `/api/map/acls?slug=${fixture().slug}`, fixture().mapKey, {
      acl: { name: `acl ${freshId()}`, owner_eve_id: fixture().ownerEveId },
    });
    expect(res.status).toBe(200);
    const acl = ((await res.json()) as { data: Acl }).data;
    if (linkSecondMap) await sql('insert into map_acls (map_id, acl_id) values (?, ?)', [fixture().secondMapId, acl.id]);
    return acl;
  };

  const addMember = (acl: Acl, member: Record<string, unknown>) => send('POST', `/api/acls/${acl.id}/members`, acl.api_key, { member });

  const addOk = async (acl: Acl, member: Record<string, unknown>): Promise<Member> => {
    const res = await addMember(acl, member);
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: Member }).data;
  };

  const events = (aclId: string) => sql<EventRow>(`select map_id, type, payload from map_events where payload->>'acl_id' = ? order by seq`, [aclId]);

  const memberRows = (aclId: string) => sql<{ id: string; role: string }>('select id, role from acl_members where acl_id = ? order by inserted_at', [aclId]);

  const readMembers = async (acl: Acl): Promise<Member[]> => {
    const res = await send('GET', `/api/acls/${acl.id}`, acl.api_key);
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: Acl }).data.members;
  };

  return { freshId, send, sql, newAcl, addMember, addOk, events, memberRows, readMembers };
}
