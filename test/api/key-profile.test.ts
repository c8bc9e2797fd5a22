/**
 * A map key's compatibility profile covers every wire shape it reads: a key of the `reference`
 * profile gets integer corporation_id/alliance_id in every character object of every endpoint; a key
 * of the default `spec` profile gets exactly the spec (decimal strings). Keys are issued with
 * `profile` (or its former name `stream_profile`) and show both; the map read cache keeps each
 * profile's answer apart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/app.js';
import { makeCharacter, makeMap } from '../support/factories.js';
import { openapiSpec } from '../../src/api/openapi.js';

type Json = Record<string, unknown>;

let t: TestServer;
let mapId: string;
let slug: string;
let specKey: string;
let refKey: string;
let alice: { eve_id: string };
let loner: { eve_id: string };

async function issue(body: Json): Promise<{ status: number; body: Json }> {
  const res = await t.fetch(`/api/admin/maps/${mapId}/keys`, {
    method: 'POST',
    token: ADMIN_TOKEN,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Every character object in a body (objects with eve_id and corporation_id), at any depth. */
function characters(body: unknown, out: Json[] = []): Json[] {
  if (Array.isArray(body)) body.forEach((b) => characters(b, out));
  else if (body && typeof body === 'object') {
    const o = body as Json;
    if ('eve_id' in o && 'corporation_id' in o) out.push(o);
    Object.values(o).forEach((v) => characters(v, out));
  }
  return out;
}

/** The spec body with the reference shapes written out by hand: the two ids as numbers, nothing else. */
function expectedReference(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(expectedReference);
  if (!body || typeof body !== 'object') return body;
  const o = Object.fromEntries(Object.entries(body as Json).map(([k, v]) => [k, expectedReference(v)]));
  if ('eve_id' in o && 'corporation_id' in o) {
    o.corporation_id = Number(o.corporation_id);
    o.alliance_id = o.alliance_id === null ? null : Number(o.alliance_id);
  }
  return o;
}

beforeAll(async () => {
  t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false' } });
  const p = t.platform;
  const made = await makeMap(p);
  mapId = made.map.id;
  slug = made.map.slug;
  specKey = made.key;
  const user = await p.admin.createUser('Alice');
  alice = await makeCharacter(p, { name: 'Alice Main', user_id: user.id, corporation_id: '98000123', alliance_id: '99000456' });
  await p.admin.setMainCharacter(user.id, alice.eve_id);
  loner = await makeCharacter(p, { name: 'Loner', corporation_id: '1000167', alliance_id: null, alliance_ticker: null });
  for (const c of [alice, loner]) {
    await p.admin.setTracking(mapId, c.eve_id, true);
    await p.mapContent.recordActivity(mapId, { characterEveId: c.eve_id, passages: 2, connections: 1, signatures: 3, at: new Date() });
  }
  const issued = await issue({ character_eve_id: made.ownerEveId, name: 'chart bot', profile: 'reference' });
  expect(issued.status).toBe(201);
  refKey = (issued.body.data as { api_key: string }).api_key;
});
afterAll(async () => t?.close());

describe('issuing and listing keys with a profile', () => {
  it('takes profile, or stream_profile under its former name, and shows both fields with the same value', async () => {
    const owner = (await t.platform.admin.listKeys(mapId))[0]!.character_eve_id;
    const byProfile = await issue({ character_eve_id: owner, profile: 'reference' });
    const byOldName = await issue({ character_eve_id: owner, stream_profile: 'reference' });
    const both = await issue({ character_eve_id: owner, profile: 'spec', stream_profile: 'spec' });
    const neither = await issue({ character_eve_id: owner });
    for (const [r, want] of [
      [byProfile, 'reference'],
      [byOldName, 'reference'],
      [both, 'spec'],
      [neither, 'spec'],
    ] as const) {
      expect(r.status).toBe(201);
      expect((r.body.data as Json).profile).toBe(want);
      expect((r.body.data as Json).stream_profile).toBe(want);
    }
    const list = await t.fetch(`/api/admin/maps/${mapId}/keys`, { token: ADMIN_TOKEN });
    const keys = ((await list.json()) as { data: Json[] }).data;
    const ids = (r: { body: Json }) => (r.body.data as Json).id;
    const shown = Object.fromEntries(keys.map((k) => [k.id, [k.profile, k.stream_profile]]));
    expect(shown[ids(byProfile) as string]).toEqual(['reference', 'reference']);
    expect(shown[ids(byOldName) as string]).toEqual(['reference', 'reference']);
    expect(shown[ids(neither) as string]).toEqual(['spec', 'spec']);
  });

  it('refuses an unknown profile, and profile and stream_profile that disagree, with a 400 and no key', async () => {
    const owner = (await t.platform.admin.listKeys(mapId))[0]!.character_eve_id;
    const before = (await t.platform.admin.listKeys(mapId)).length;
    const unknown = await issue({ character_eve_id: owner, profile: 'legacy' });
    const disagree = await issue({ character_eve_id: owner, profile: 'reference', stream_profile: 'spec' });
    expect([unknown.status, disagree.status]).toEqual([400, 400]);
    expect(disagree.body.code).toBe('validation_failed');
    expect(JSON.stringify(disagree.body.details)).toContain('stream_profile');
    expect((await t.platform.admin.listKeys(mapId)).length).toBe(before);
  });
});

describe('REST shapes by profile', () => {
  const reads = () => [
    `/api/map/characters?map_id=${mapId}`,
    `/api/map/character-activity?slug=${slug}`,
    `/api/map/character-activity?slug=${slug}&days=7`,
    `/api/map/user_characters?slug=${slug}`,
    `/api/maps/${slug}/tracked-characters`,
    `/api/maps/${mapId}/user-characters`,
    `/api/characters`,
  ];

  it('covers every map-key operation whose answer holds a character object', () => {
    const spec = openapiSpec() as unknown as {
      paths: Record<string, Record<string, { responses?: unknown }>>;
      components: { schemas: Record<string, unknown> };
    };
    /** Whether a schema holds CharacterDto, following $refs (each schema once). */
    const holds = (o: unknown, seen = new Set<string>()): boolean => {
      if (!o || typeof o !== 'object') return false;
      const ref = (o as { $ref?: string }).$ref;
      if (ref) {
        const name = ref.split('/').pop()!;
        if (name === 'CharacterDto') return true;
        if (seen.has(name)) return false;
        seen.add(name);
        return holds(spec.components.schemas[name], seen);
      }
      return Object.values(o).some((v) => holds(v, seen));
    };
    const withCharacters: string[] = [];
    for (const [path, ops] of Object.entries(spec.paths)) {
      if (path.startsWith('/api/admin/')) continue;
      for (const [method, op] of Object.entries(ops)) if (holds(op.responses)) withCharacters.push(`${method.toUpperCase()} ${path}`);
    }
    expect(withCharacters.sort()).toEqual(
      [
        'GET /api/characters',
        // The audit feed's `character` (shaped like the others by the reference profile).
        'GET /api/map/audit',
        'GET /api/map/character-activity',
        'GET /api/map/characters',
        'GET /api/map/user_characters',
        'GET /api/maps/{map_id}/tracked-characters',
        'GET /api/maps/{map_id}/user-characters',
        'POST /api/maps/{map_id}/character-activity',
        'PUT /api/maps/{map_id}/tracked-characters/{eve_id}',
      ].sort(),
    );
  });

  it('answers a spec key decimal strings and a reference key integers, in every character object, with nothing else different', async () => {
    for (const path of reads()) {
      const spec = await t.fetch(path, { token: specKey });
      const ref = await t.fetch(path, { token: refKey });
      expect([spec.status, ref.status], path).toEqual([200, 200]);
      const specBody = (await spec.json()) as Json;
      const refBody = (await ref.json()) as Json;
      const specChars = characters(specBody);
      expect(specChars.length, path).toBeGreaterThan(0);
      for (const c of specChars) {
        expect(c.corporation_id, path).toMatch(/^[1-9][0-9]*$/);
        if (c.alliance_id !== null) expect(c.alliance_id, path).toMatch(/^[1-9][0-9]*$/);
      }
      for (const c of characters(refBody)) {
        expect(Number.isInteger(c.corporation_id), path).toBe(true);
        expect(c.alliance_id === null || Number.isInteger(c.alliance_id), path).toBe(true);
        expect(c.eve_id, path).toBeTypeOf('string');
      }
      expect(refBody, path).toEqual(expectedReference(specBody));
    }
    // The values themselves, for one character with an alliance and one without.
    const ref = (await (await t.fetch(`/api/map/user_characters?slug=${slug}`, { token: refKey })).json()) as {
      data: { characters: Json[] }[];
    };
    const all = ref.data.flatMap((g) => g.characters);
    expect(all.find((c) => c.eve_id === alice.eve_id)).toMatchObject({ corporation_id: 98000123, alliance_id: 99000456 });
    expect(all.find((c) => c.eve_id === loner.eve_id)).toMatchObject({ corporation_id: 1000167, alliance_id: null });
  });

  it('shapes the answers of writes too (tracking a character, recording activity)', async () => {
    for (const token of [specKey, refKey]) {
      const put = await t.fetch(`/api/maps/${mapId}/tracked-characters/${loner.eve_id}`, {
        method: 'PUT',
        token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tracked: true }),
      });
      const post = await t.fetch(`/api/maps/${mapId}/character-activity`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ character_eve_id: alice.eve_id, passages: 1 }),
      });
      expect([put.status, post.status]).toEqual([200, 200]);
      const ids = [
        ((await put.json()) as { data: { character: Json } }).data.character,
        ((await post.json()) as { data: { character: Json } }).data.character,
      ].map((c) => typeof c.corporation_id);
      expect(ids).toEqual(token === specKey ? ['string', 'string'] : ['number', 'number']);
    }
  });

  it('keeps cached answers apart: each profile reads its own shape and ETag, in any order, hits included', async () => {
    const path = `/api/map/user_characters?slug=${slug}&_=${Date.now()}`;
    const order = [specKey, refKey, specKey, refKey, refKey, specKey];
    const seen: [string, string, string | null][] = [];
    for (const token of order) {
      const res = await t.fetch(path, { token });
      const body = (await res.json()) as Json;
      seen.push([token === specKey ? 'spec' : 'reference', typeof characters(body)[0]!.corporation_id, res.headers.get('etag')]);
    }
    expect(seen.map(([p, type]) => [p, type])).toEqual(order.map((k) => (k === specKey ? ['spec', 'string'] : ['reference', 'number'])));
    const etags = new Map(seen.map(([p, , etag]) => [p, etag]));
    expect(etags.get('spec')).not.toBe(etags.get('reference'));
    // A profile's ETag is not the other profile's: If-None-Match with the spec ETag gets the reference body.
    const cross = await t.fetch(path, { token: refKey, headers: { 'if-none-match': etags.get('spec')! } });
    expect(cross.status).toBe(200);
    const same = await t.fetch(path, { token: refKey, headers: { 'if-none-match': etags.get('reference')! } });
    expect(same.status).toBe(304);
  });

  it('leaves errors in the spec shape for both profiles', async () => {
    const spec = await t.fetch(`/api/map/user_characters?slug=no-such-map-here`, { token: specKey });
    const ref = await t.fetch(`/api/map/user_characters?slug=no-such-map-here`, { token: refKey });
    expect(ref.status).toBe(spec.status);
    expect(await ref.json()).toEqual(await spec.json());
  });
});
