import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap, makeSystem } from '../support/factories.js';

describe('GET /api/map/systems', () => {
  let t: TestServer;
  let key: string;
  let mapId: string;
  let slug: string;

  beforeAll(async () => {
    t = await startTestServer();
    await importFixture(t.platform);
    const m = await makeMap(t.platform);
    key = m.key;
    mapId = m.map.id;
    slug = m.map.slug;
    await makeSystem(t.platform, mapId, 30000142, { positionX: 10, positionY: -20, tag: 'HQ', status: 1 });
    await makeSystem(t.platform, mapId, 31000005, { visible: false });
  });
  afterAll(async () => t?.close());

  it('answers the visible systems with every field of spec 2.1 in its type', async () => {
    const res = await t.fetch(`/api/map/systems?slug=${slug}`, { token: key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { data: Record<string, unknown>[] };
    expect(body.data).toHaveLength(1);
    const s = body.data[0]!;
    expect(Object.keys(s).sort()).toEqual(
      [
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
      ].sort(),
    );
    expect(s).toMatchObject({
      name: 'Jita',
      status: 1,
      tag: 'HQ',
      visible: true,
      description: null,
      labels: null,
      locked: false,
      solar_system_id: 30000142,
      map_id: mapId,
      custom_name: null,
      position_x: 10,
      position_y: -20,
    });
    expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.inserted_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('includes hidden systems with all=true', async () => {
    const res = await t.fetch(`/api/map/systems?map_id=${mapId}&all=true`, { token: key });
    const body = (await res.json()) as { data: { name: string; visible: boolean }[] };
    expect(body.data.map((s) => [s.name, s.visible])).toEqual([
      ['Jita', true],
      ['Thera', false],
    ]);
  });

  it('answers 401 with WWW-Authenticate without a token', async () => {
    const res = await t.fetch(`/api/map/systems?slug=${slug}`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toEqual({
      error: "Missing or invalid 'Bearer' token: this endpoint takes a map API key, and none was given",
      code: 'unauthorized',
    });
  });

  it('answers 400 map_identifier_required without a selector', async () => {
    const res = await t.fetch('/api/map/systems', { token: key });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Map identifier required. Provide `map_id` or `slug`.', code: 'map_identifier_required' });
  });
});
