/**
 * Map reads with ETag, If-None-Match and the per-process cache, against two api processes over one
 * database (two replicas): a read right after a write sees it on the replica that took the write and on
 * the other one, also for writes that emit no event and for changes to data every map shares.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, killInput, makeCharacter, makeMap, makeSystem } from '../support/factories.js';
import { dropSchema } from '../support/db.js';

const JITA = 30000142;
const THERA = 31000005;
const STRONG_ETAG = /^"[A-Za-z0-9_-]{27}"$/;

describe('map reads: ETag, 304 and the cache across replicas', () => {
  let a: TestServer;
  let b: TestServer;
  let key: string;
  let mapId: string;
  let slug: string;

  beforeAll(async () => {
    a = await startTestServer({ keepSchema: true });
    b = await startTestServer({ schema: a.config.databaseSchema, env: { EVENTS_RELAY_ENABLED: 'false' } });
    await importFixture(a.platform);
    const m = await makeMap(a.platform);
    key = m.key;
    mapId = m.map.id;
    slug = m.map.slug;
    await makeSystem(a.platform, mapId, JITA);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    if (a) await dropSchema(a.config.databaseSchema);
  });

  const get = (t: TestServer, path: string, etag?: string) => t.fetch(path, { token: key, headers: etag ? { 'if-none-match': etag } : {} });

  it('answers every map read with a strong ETag and Cache-Control private, no-cache; the same bytes give the same tag on both replicas', async () => {
    for (const path of [
      `/api/map/systems?slug=${slug}`,
      `/api/map/connections?map_id=${mapId}`,
      `/api/map/systems-kills?slug=${slug}`,
      `/api/maps/${slug}/systems`,
      `/api/maps/${mapId}/structures`,
      `/api/maps/${mapId}/tracked-characters`,
    ]) {
      const first = await get(a, path);
      expect(first.status, path).toBe(200);
      expect(first.headers.get('etag'), path).toMatch(STRONG_ETAG);
      expect(first.headers.get('cache-control'), path).toBe('private, no-cache');
      expect(first.headers.get('content-type'), path).toMatch(/^application\/json/);
      const body = await first.text();
      const again = await get(b, path);
      expect(again.headers.get('etag'), path).toBe(first.headers.get('etag'));
      expect(await again.text(), path).toBe(body);
    }
  });

  it('answers If-None-Match naming the current ETag with 304, no body, the ETag and Cache-Control; a stale or foreign tag gets 200', async () => {
    const path = `/api/map/systems?slug=${slug}`;
    const first = await get(a, path);
    const etag = first.headers.get('etag')!;
    for (const t of [a, b]) {
      const res = await get(t, path, etag);
      expect(res.status).toBe(304);
      expect(await res.text()).toBe('');
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('cache-control')).toBe('private, no-cache');
      expect((await get(t, path, `"nope", W/${etag}`)).status).toBe(304);
      expect((await get(t, path, '*')).status).toBe(304);
      const other = await get(t, path, '"AAAAAAAAAAAAAAAAAAAAAAAAAAA"');
      expect(other.status).toBe(200);
      expect(((await other.json()) as { data: unknown[] }).data).toHaveLength(1);
    }
  });

  it('a read right after a write sees it, on the replica that took the write and on the other one', async () => {
    const path = `/api/map/systems?map_id=${mapId}`;
    // Both replicas hold the current answer.
    const before = await get(a, path);
    const etag = before.headers.get('etag')!;
    expect((await get(b, path, etag)).status).toBe(304);
    const added = await a.fetch(`/api/maps/${mapId}/systems`, {
      method: 'POST',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ solar_system_id: THERA, position_x: 5, position_y: 6 }),
    });
    expect(added.status).toBe(201);
    for (const t of [a, b]) {
      const res = await get(t, path, etag);
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).not.toBe(etag);
      const ids = ((await res.json()) as { data: { solar_system_id: number }[] }).data.map((s) => s.solar_system_id).sort();
      expect(ids).toEqual([JITA, THERA]);
    }
    // And the other way round: a write through b, read through a.
    const etag2 = (await get(a, path)).headers.get('etag')!;
    const removed = await b.fetch(`/api/maps/${mapId}/systems/${THERA}`, { method: 'DELETE', token: key });
    expect(removed.status).toBe(204);
    const res = await get(a, path, etag2);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { solar_system_id: number }[] }).data.map((s) => s.solar_system_id)).toEqual([JITA]);
  });

  it('sees writes that emit no event: a structure timer created through one replica is in the other one’s next read', async () => {
    const path = `/api/maps/${mapId}/structures`;
    const etag = (await get(b, path)).headers.get('etag')!;
    expect((await get(b, path, etag)).status).toBe(304);
    const created = await a.fetch(`/api/maps/${mapId}/structures`, {
      method: 'POST',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ solar_system_id: JITA, structure_type_id: '35832', structure_type: 'Astrahus', name: 'Cached Astrahus', status: 'Anchoring' }),
    });
    expect(created.status).toBe(201);
    const res = await get(b, path, etag);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { name: string }[] }).data.map((s) => s.name)).toEqual(['Cached Astrahus']);
  });

  it('sees a kill (written with its event, no version bump) in systems-kills as soon as it is committed', async () => {
    const path = `/api/map/systems-kills?slug=${slug}`;
    const etag = (await get(b, path)).headers.get('etag')!;
    await a.platform.mapContent.addKill(mapId, killInput(JITA, { killmailId: 990_000_001, killTime: new Date(Date.now() - 60_000) }));
    const res = await get(b, path, etag);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { solar_system_id: number; kills: { killmail_id: number }[] }[] };
    expect(body.data.find((s) => s.solar_system_id === JITA)!.kills.map((k) => k.killmail_id)).toEqual([990_000_001]);
  });

  it('sees changes to data every map shares: a tracked character renamed through the admin service', async () => {
    const pilot = await makeCharacter(a.platform, { name: 'Before Rename' });
    const tracked = await a.fetch(`/api/maps/${mapId}/tracked-characters/${pilot.eve_id}`, {
      method: 'PUT',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tracked: true }),
    });
    expect(tracked.status, await tracked.text()).toBe(200);
    const path = `/api/map/characters?slug=${slug}`;
    const first = await get(b, path);
    expect(JSON.stringify(await first.json())).toContain('Before Rename');
    const etag = first.headers.get('etag')!;
    await makeCharacter(a.platform, { eve_id: pilot.eve_id, name: 'After Rename' });
    const res = await get(b, path, etag);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('After Rename');
    expect(text).not.toContain('Before Rename');
  });

  it('keys the cache by query: ?all=true and the plain list are answered apart, in either parameter order', async () => {
    await makeSystem(a.platform, mapId, THERA, { visible: false });
    const plain = (await (await get(a, `/api/map/systems?slug=${slug}`)).json()) as { data: unknown[] };
    const all1 = await get(a, `/api/map/systems?slug=${slug}&all=true`);
    const all2 = await get(a, `/api/map/systems?all=true&slug=${slug}`);
    expect(plain.data).toHaveLength(1);
    expect(((await all1.json()) as { data: unknown[] }).data).toHaveLength(2);
    expect(all2.headers.get('etag')).toBe(all1.headers.get('etag'));
  });

  it('answers errors as before, without an ETag: 404 for another map, 400 for a bad selector, 401 without a key', async () => {
    const other = await makeMap(a.platform);
    const notFound = await get(a, `/api/map/systems?map_id=${other.map.id}`);
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('etag')).toBeNull();
    const bad = await get(a, '/api/map/systems?map_id=not-a-uuid');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('invalid_map_id');
    expect((await a.fetch(`/api/map/systems?slug=${slug}`)).status).toBe(401);
  });

  it('counts hits, misses and 304s in mapintel_map_read_cache_total', async () => {
    const path = `/api/map/connections?slug=${slug}`;
    const etag = (await get(a, path)).headers.get('etag')!;
    await get(a, path);
    await get(a, path, etag);
    const metrics = await (await fetch(`${a.opsUrl}/metrics`)).text();
    for (const result of ['hit', 'miss', 'not_modified']) {
      expect(metrics).toMatch(new RegExp(`mapintel_map_read_cache_total\\{result="${result}"\\} [1-9]`));
    }
  });
});
