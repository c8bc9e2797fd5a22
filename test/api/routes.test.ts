/**
 * The route finder: `POST /route/findClosest` (no key, the reference server's request and answer) and
 * `GET /api/maps/{map_id}/routes` (map key), over the stargates of the static-data fixture (the
 * systems of the game's three routes from Jita to Dodixie, assets/eve-static-sample) and the given or
 * the map's connections. Shapes, every flag, avoid, connections, destination sets, errors and access.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestServer } from '../support/app.js';
import { makeConnection, makeSystem } from '../support/factories.js';
import { type ErrorBody, expectValidation, freshMap, J152820, JITA, type Json, startEditServer, THERA } from '../support/map-edit.js';

const PERIMETER = 30000144;
const TAMA = 30002813;
const BOTANE = 30002661;
const DODIXIE = 30002659;
const TURNUR = 30002086;

/** The game's three routes from Jita to Dodixie (the fixture holds exactly their systems). */
const SHORTEST = [JITA, 30000138, 30001379, 30001376, TAMA, 30002809, 30002811, 30002812, 30005334, 30005331, 30005203, BOTANE, DODIXIE];
const SECURE = [
  JITA,
  PERIMETER,
  30000139,
  30002802,
  30002801,
  30002800,
  30002768,
  30002765,
  30002764,
  30002761,
  30004972,
  30004970,
  30002633,
  30002634,
  30002655,
  DODIXIE,
];
const INSECURE = [JITA, 30000138, 30001379, 30001376, TAMA, 30002809, 30002807, 30004985, 30004980, 30004979, 30005000, 30004993, 30002640, BOTANE, DODIXIE];

let t: TestServer;

beforeAll(async () => {
  t = await startEditServer();
});
afterAll(async () => t?.close());

interface Route {
  origin: number;
  destination: number;
  systems: number[];
  jumps: number;
  success: boolean;
}

async function findClosest(body: unknown, headers: Record<string, string> = {}) {
  const res = await t.fetch('/route/findClosest', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as { routes: Route[] }, text, headers: res.headers };
}

/** The security shown for each system, from the static data. */
async function securities(ids: number[]): Promise<number[]> {
  const rows = await t.platform.orm.em
    .fork()
    .getConnection()
    .execute<{ id: number; security: string }[]>(
      'select solar_system_id as id, security from solar_systems where solar_system_id in (select jsonb_array_elements_text(?::jsonb)::int)',
      [JSON.stringify(ids)],
    );
  const byId = new Map(rows.map((r) => [r.id, Number(r.security)]));
  return ids.map((id) => byId.get(id)!);
}

describe('POST /route/findClosest', () => {
  it('answers the closest trade hubs with their jump lists, closest first, without a token', async () => {
    const res = await findClosest({ origin: PERIMETER, type: 'trade_hubs', count: 3 });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('ratelimit-limit')).toBe('10000'); // counted like /api, per client address
    expect(Object.keys(res.body)).toEqual(['routes']);
    // Only Jita and Dodixie of the five hubs are in the fixture; the others are not listed.
    expect(res.body.routes).toEqual([
      { origin: PERIMETER, destination: JITA, systems: [PERIMETER, JITA], jumps: 1, success: true },
      { origin: PERIMETER, destination: DODIXIE, systems: [PERIMETER, ...SHORTEST], jumps: 13, success: true },
    ]);
    // count defaults to 1; a hub that is the origin is 0 jumps away.
    expect((await findClosest({ origin: JITA, type: 'trade_hubs' })).body.routes).toEqual([
      { origin: JITA, destination: JITA, systems: [JITA], jumps: 0, success: true },
    ]);
  });

  it('plans each flag as the game does: fewest jumps, high-sec only, low-sec preferred', async () => {
    const route = async (flag?: string) => {
      const res = await findClosest({ origin: JITA, destinations: [DODIXIE], ...(flag ? { flag } : {}) });
      expect(res.status, res.text).toBe(200);
      expect(res.body.routes).toHaveLength(1);
      return res.body.routes[0]!;
    };
    expect(await route()).toMatchObject({ systems: SHORTEST, jumps: 12 });
    expect(await route('shortest')).toMatchObject({ systems: SHORTEST, jumps: 12 });
    const secure = await route('secure');
    expect(secure).toMatchObject({ systems: SECURE, jumps: 15 });
    expect((await securities(secure.systems)).every((s) => s >= 0.5)).toBe(true);
    const insecure = await route('insecure');
    expect(insecure).toMatchObject({ systems: INSECURE, jumps: 14 });
    const low = async (ids: number[]) => (await securities(ids)).filter((s) => s < 0.5).length;
    expect(await low(SHORTEST)).toBe(4);
    expect(await low(INSECURE)).toBe(7);
  });

  it('never enters an avoided system (the origin excepted); an avoided destination has no route', async () => {
    const avoided = await findClosest({ origin: JITA, destinations: [DODIXIE], avoid: [TAMA, JITA] });
    expect(avoided.body.routes[0]).toMatchObject({ systems: SECURE, jumps: 15 });
    expect((await findClosest({ origin: JITA, destinations: [DODIXIE], avoid: [TAMA, PERIMETER] })).body.routes).toEqual([]);
    expect((await findClosest({ origin: JITA, destinations: [DODIXIE], avoid: [DODIXIE] })).body).toEqual({ routes: [] });
    // Unknown ids in avoid and connections are left out.
    expect((await findClosest({ origin: JITA, destinations: [DODIXIE], avoid: [1], connections: ['1|2'] })).body.routes[0]!.jumps).toBe(12);
  });

  it('uses the given connections both ways, whichever orientation they are given in', async () => {
    for (const pair of [`${JITA}|${BOTANE}`, `${BOTANE}|${JITA}`]) {
      const res = await findClosest({ origin: JITA, destinations: [DODIXIE], connections: [pair] });
      expect(res.body.routes).toEqual([{ origin: JITA, destination: DODIXIE, systems: [JITA, BOTANE, DODIXIE], jumps: 2, success: true }]);
    }
    // From Dodixie back to Jita over the same connection, given once.
    const back = await findClosest({ origin: DODIXIE, destinations: [JITA], connections: [`${JITA}|${BOTANE}`], flag: 'secure' });
    expect(back.body.routes[0]!.systems).toEqual([DODIXIE, BOTANE, JITA]);
  });

  it('thera: the systems the connections link to Thera; turnur: those they link to Turnur', async () => {
    const thera = await findClosest({ origin: JITA, type: 'thera', count: 5, connections: [`${THERA}|${TAMA}`, `${BOTANE}|${THERA}`, `${JITA}|${PERIMETER}`] });
    expect(thera.status, thera.text).toBe(200);
    expect(thera.body.routes.map((r) => [r.destination, r.jumps])).toEqual([
      [TAMA, 4],
      [BOTANE, 6],
    ]);
    // Through Thera itself, which the connections join to both.
    expect(thera.body.routes[1]!.systems).toEqual([...SHORTEST.slice(0, 5), THERA, BOTANE]);
    expect((await findClosest({ origin: JITA, type: 'thera' })).body.routes).toEqual([]);

    const turnur = await findClosest({ origin: JITA, type: 'turnur', connections: [`${TURNUR}|${PERIMETER}`, `${THERA}|${TAMA}`] });
    expect(turnur.body.routes).toEqual([{ origin: JITA, destination: PERIMETER, systems: [JITA, PERIMETER], jumps: 1, success: true }]);
  });

  it('answers no route as an empty list, and an unknown origin 404 naming it', async () => {
    expect((await findClosest({ origin: JITA, destinations: [J152820] })).body).toEqual({ routes: [] });
    const unknown = await findClosest({ origin: 1, type: 'trade_hubs' });
    expect(unknown.status).toBe(404);
    expect(unknown.body as unknown as ErrorBody).toEqual({
      error: 'System not found',
      code: 'system_not_found',
      details: [{ field: 'origin', message: '1 is not a solar system of the static data' }],
    });
  });

  it('refuses bad input with 400 naming the field', async () => {
    const as = (r: Awaited<ReturnType<typeof findClosest>>) => ({ status: r.status, body: r.body as unknown, text: r.text, headers: r.headers });
    const bad = async (body: Json, field: string) => expectValidation(as(await findClosest(body)), field);
    await bad({ type: 'trade_hubs' }, 'origin');
    await bad({ origin: String(JITA), type: 'trade_hubs' }, 'origin');
    await bad({ origin: 1.5, type: 'trade_hubs' }, 'origin');
    await bad({ origin: JITA }, 'type');
    await bad({ origin: JITA, type: 'trade_hubs', destinations: [DODIXIE] }, 'destinations');
    await bad({ origin: JITA, type: 'blueLoot' }, 'type');
    await bad({ origin: JITA, type: 'trade_hubs', flag: 'safest' }, 'flag');
    await bad({ origin: JITA, type: 'trade_hubs', count: 0 }, 'count');
    await bad({ origin: JITA, type: 'trade_hubs', count: 11 }, 'count');
    await bad({ origin: JITA, type: 'trade_hubs', connections: ['30000142-30002661'] }, 'connections[0]');
    await bad({ origin: JITA, type: 'trade_hubs', connections: [`${JITA}|${'9'.repeat(11)}`] }, 'connections[0]');
    await bad({ origin: JITA, type: 'trade_hubs', connections: Array.from({ length: 5001 }, () => `${JITA}|${BOTANE}`) }, 'connections');
    await bad({ origin: JITA, type: 'trade_hubs', avoid: Array.from({ length: 1001 }, (_, i) => i) }, 'avoid');
    await bad({ origin: JITA, destinations: [] }, 'destinations');
    await bad({ origin: JITA, type: 'trade_hubs', extra: 1 }, 'extra');
  });
});

describe('GET /api/maps/{map_id}/routes', () => {
  it('answers the route over the stargates for each flag; the same system is 0 jumps', async () => {
    const c = await freshMap(t);
    const get = (q: string) => c.send<{ data: { jumps: number; systems: number[] } }>('GET', `/routes?${q}`);
    const shortest = await get(`origin=${JITA}&to=${DODIXIE}`);
    expect(shortest.status, shortest.text).toBe(200);
    expect(shortest.body).toEqual({ data: { jumps: 12, systems: SHORTEST } });
    expect((await get(`origin=${JITA}&to=${DODIXIE}&flag=shortest`)).body.data.systems).toEqual(SHORTEST);
    expect((await get(`origin=${JITA}&to=${DODIXIE}&flag=secure`)).body).toEqual({ data: { jumps: 15, systems: SECURE } });
    expect((await get(`origin=${JITA}&to=${DODIXIE}&flag=insecure`)).body).toEqual({ data: { jumps: 14, systems: INSECURE } });
    expect((await get(`origin=${DODIXIE}&to=${JITA}`)).body.data.systems).toEqual([...SHORTEST].reverse());
    expect((await get(`origin=${JITA}&to=${JITA}`)).body).toEqual({ data: { jumps: 0, systems: [JITA] } });
  });

  it("uses the map's connections between visible systems, and no other map's", async () => {
    const c = await freshMap(t, { systems: [JITA, BOTANE] });
    const other = await freshMap(t, { systems: [JITA, TAMA] });
    await makeConnection(t.platform, other.mapId, JITA, DODIXIE);
    const route = async () => (await c.send<{ data: { jumps: number; systems: number[] } }>('GET', `/routes?origin=${JITA}&to=${DODIXIE}`)).body.data;
    expect(await route()).toEqual({ jumps: 12, systems: SHORTEST });
    const made = await c.send<{ data: Json }>('POST', '/connections', { solar_system_source: BOTANE, solar_system_target: JITA });
    expect(made.status, made.text).toBe(201);
    expect(await route()).toEqual({ jumps: 2, systems: [JITA, BOTANE, DODIXIE] });
    // A connection to a hidden system is not used; deleting a system takes its connections.
    await makeSystem(t.platform, c.mapId, TAMA, { visible: false });
    await makeConnection(t.platform, c.mapId, JITA, TAMA);
    expect((await c.send<{ data: { jumps: number } }>('GET', `/routes?origin=${JITA}&to=${TAMA}`)).body.data.jumps).toBe(4);
    expect((await c.send('DELETE', `/systems/${BOTANE}`)).status).toBe(204);
    expect(await route()).toEqual({ jumps: 12, systems: SHORTEST });
  });

  it('404 route_not_found without a route, system_not_found naming an unknown end, 400 for bad parameters', async () => {
    const c = await freshMap(t);
    const none = await c.send('GET', `/routes?origin=${JITA}&to=${J152820}`);
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ error: `No route from ${JITA} to ${J152820} over the stargates and the map's connections`, code: 'route_not_found' });
    const unknown = await c.send('GET', `/routes?origin=${JITA}&to=1`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      error: 'System not found',
      code: 'system_not_found',
      details: [{ field: 'to', message: '1 is not a solar system of the static data' }],
    });
    expect((await c.send<ErrorBody>('GET', `/routes?origin=2&to=${JITA}`)).body.details).toEqual([
      { field: 'origin', message: '2 is not a solar system of the static data' },
    ]);
    expectValidation(await c.send('GET', `/routes?origin=${JITA}`), 'to');
    expectValidation(await c.send('GET', `/routes?to=${JITA}`), 'origin');
    expectValidation(await c.send('GET', `/routes?origin=abc&to=${JITA}`), 'origin');
    expectValidation(await c.send('GET', `/routes?origin=${JITA}&to=-1`), 'to');
    expectValidation(await c.send('GET', `/routes?origin=${JITA}&to=${DODIXIE}&flag=safest`), 'flag');
  });

  it("the map's key only: another map's key 404 map_not_found, no key, an ACL key or the admin token 401", async () => {
    const c = await freshMap(t);
    const other = await freshMap(t);
    const path = `/routes?origin=${JITA}&to=${PERIMETER}`;
    expect((await c.send('GET', path)).status).toBe(200);
    expect((await c.send('GET', path, undefined, { map: c.mapId })).status).toBe(200);
    const wrong = await c.send('GET', path, undefined, { token: other.key });
    expect(wrong.status).toBe(404);
    expect(wrong.body).toEqual({ error: 'Map not found', code: 'map_not_found' });
    const acl = await t.fetch(`/api/map/acls?map_id=${c.mapId}`, {
      method: 'POST',
      token: c.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ acl: { name: 'Routes', owner_eve_id: c.ownerEveId } }),
    });
    const aclKey = ((await acl.json()) as { data: { api_key: string } }).data.api_key;
    for (const token of [aclKey, ADMIN_TOKEN]) expect((await c.send('GET', path, undefined, { token })).status).toBe(401);
    const anonymous = await t.fetch(`/api/maps/${c.slug}${path}`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as ErrorBody).code).toBe('unauthorized');
  });
});
