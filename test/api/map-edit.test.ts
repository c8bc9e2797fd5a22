/**
 * The `/api/maps/{map_id}/…` family as a whole: the map path segment (UUID or slug), tokens, a key of
 * another map (404, nothing written), the GET collections (decisions §4), and the documentation of
 * every editing endpoint in the OpenAPI document behind /swaggerui.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeCharacter, makeConnection, makeMap, makeSystem } from '../support/factories.js';
import { CONNECTION_KEYS, editClient, expectValidation, killBody, SIGNATURE_KEYS, STRUCTURE_KEYS, SYSTEM_KEYS, type Json } from '../support/map-edit.js';

const JITA = 30000142;
const THERA = 31000005;
const J152820 = 31001880;

let t: TestServer;
/** Map A with content; the tests use map B's key against it. */
let a: ReturnType<typeof editClient> & { mapId: string; slug: string; key: string; ownerEveId: string };
let b: { mapId: string; slug: string; key: string };
let ids: { connection: string; structure: string; hiddenStructure: string; systemJita: string };
let pilot: { eve_id: string; name: string };

beforeAll(async () => {
  t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false', SERVICE_RATE_LIMIT_PER_MINUTE: '10000' } });
  await importFixture(t.platform);
  const ma = await makeMap(t.platform);
  const mb = await makeMap(t.platform);
  a = { ...editClient(t, ma.key, ma.map.slug), mapId: ma.map.id, slug: ma.map.slug, key: ma.key, ownerEveId: ma.ownerEveId };
  b = { mapId: mb.map.id, slug: mb.map.slug, key: mb.key };
  const jita = await makeSystem(t.platform, a.mapId, JITA, { positionX: 1 });
  await makeSystem(t.platform, a.mapId, THERA);
  await makeSystem(t.platform, a.mapId, J152820, { visible: false });
  await makeSystem(t.platform, b.mapId, JITA);
  const connection = await makeConnection(t.platform, a.mapId, JITA, THERA);
  const structure = await t.platform.mapContent.addStructure(a.mapId, {
    solarSystemId: JITA,
    structureTypeId: '35833',
    structureType: 'Fortizar',
    name: 'Timer',
    status: 'Reinforced',
    endTime: new Date(Date.now() + 3600_000),
  });
  const hiddenStructure = await t.platform.mapContent.addStructure(a.mapId, {
    solarSystemId: THERA,
    structureTypeId: '35832',
    structureType: 'Astrahus',
    name: 'Powered',
    status: 'Powered',
  });
  pilot = await makeCharacter(t.platform);
  await t.platform.admin.setTracking(a.mapId, pilot.eve_id, true);
  await a.send('PUT', `/systems/${THERA}/signatures`, { signatures: [{ signature_id: 'SIG-001' }] });
  ids = { connection, structure, hiddenStructure, systemJita: jita };
});
afterAll(async () => t?.close());

/** Every endpoint of the family, with a valid body. */
function endpoints(): [string, string, unknown?][] {
  return [
    ['GET', '/systems'],
    ['GET', `/systems/${JITA}`],
    ['GET', '/connections'],
    ['GET', '/tracked-characters'],
    ['GET', '/user-characters'],
    ['GET', '/signatures'],
    ['GET', '/structures'],
    ['GET', '/structure-timers'],
    ['POST', '/systems', { solar_system_id: J152820 }],
    ['PATCH', `/systems/${JITA}`, { tag: 'B' }],
    ['DELETE', `/systems/${THERA}`],
    ['POST', '/connections', { solar_system_source: JITA, solar_system_target: J152820 }],
    ['PATCH', `/connections/${ids.connection}`, { mass_status: 2 }],
    ['DELETE', `/connections/${ids.connection}`],
    ['PUT', `/systems/${THERA}/signatures`, { signatures: [{ signature_id: 'SIG-002' }], replace: true }],
    ['DELETE', `/systems/${THERA}/signatures/SIG-001`],
    ['POST', '/structures', { solar_system_id: JITA, structure_type_id: '1', structure_type: 'x', name: 'x' }],
    ['PUT', `/structures/${ids.structure}`, { name: 'y' }],
    ['DELETE', `/structures/${ids.structure}`],
    ['POST', '/kills', killBody(JITA, 130_000_001)],
    ['PUT', `/tracked-characters/${pilot.eve_id}`, { tracked: false }],
    ['POST', '/character-activity', { passages: 1 }],
    ['DELETE', '/systems', { system_ids: [JITA], connection_ids: [ids.connection] }],
    ['POST', '/duplicate', { name: 'Copied map' }],
    ['GET', '/rally-points'],
    ['POST', '/rally-points', { solar_system_id: JITA, character_eve_id: pilot.eve_id }],
    ['PATCH', `/connections?solar_system_source=${THERA}&solar_system_target=${JITA}`, { mass_status: 2 }],
    ['DELETE', `/connections?solar_system_source=${THERA}&solar_system_target=${JITA}`],
  ];
}

/** A fingerprint of map A's stored content. */
async function snapshot(): Promise<unknown> {
  const q = (sql: string) => a.sql(sql, [a.mapId]);
  return {
    systems: await q('select id, solar_system_id, visible, tag, updated_at::text from map_systems where map_id = ? order by id'),
    connections: await q('select id, mass_status, updated_at::text from map_connections where map_id = ? order by id'),
    signatures: await q('select id, eve_id from map_signatures where map_id = ? order by id'),
    structures: await q('select id, name from map_structures where map_id = ? order by id'),
    kills: await q('select killmail_id from map_kills where map_id = ?'),
    characters: await q('select character_id, tracked from map_characters where map_id = ?'),
    activity: await q('select character_id, passages from character_activity where map_id = ?'),
    events: await q('select seq from map_events where map_id = ?'),
  };
}

describe('map path segment and tokens', () => {
  it('a key of another map gets 404 map_not_found on every endpoint, by UUID or slug, and nothing is written', async () => {
    const before = await snapshot();
    const since = await a.mark();
    for (const mapRef of [a.slug, a.mapId]) {
      for (const [method, path, body] of endpoints()) {
        const res = await a.send(method, path, body, { token: b.key, map: mapRef });
        expect(res.status, `${method} ${path}: ${res.text}`).toBe(404);
        expect(res.body).toEqual({ error: 'Map not found', code: 'map_not_found' });
      }
    }
    expect(await snapshot()).toEqual(before);
    expect(await a.eventsSince(since)).toEqual([]);
  });

  it('an unknown map is 404 and a missing or invalid token 401 (with WWW-Authenticate), before any lookup', async () => {
    for (const [method, path, body] of endpoints()) {
      const unknown = await a.send(method, path, body, { map: 'no-such-map' });
      expect(unknown.status, `${method} ${path}`).toBe(404);
      expect(unknown.body).toEqual({ error: 'Map not found', code: 'map_not_found' });
      const uuid = await a.send(method, path, body, { map: '00000000-0000-4000-8000-000000000000' });
      expect(uuid.status).toBe(404);
      const noToken = await t.fetch(`/api/maps/${a.slug}${path}`, {
        method,
        ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
      });
      expect(noToken.status, `${method} ${path}`).toBe(401);
      expect(noToken.headers.get('www-authenticate')).toBe('Bearer');
      const bad = await a.send(method, path, body, { token: 'mik_wrongwrongwrongwrongwrongwrongwrongwrongwro' });
      expect(bad.status).toBe(401);
    }
  });

  it('writes need a JSON body: another content type is 415, broken JSON 400 invalid_json', async () => {
    const res = await t.fetch(`/api/maps/${a.slug}/systems`, {
      method: 'POST',
      token: a.key,
      headers: { 'content-type': 'text/plain' },
      body: 'solar_system_id=1',
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as Json).code).toBe('unsupported_media_type');
    const broken = await a.send('PATCH', `/systems/${JITA}`, undefined, { raw: '{"tag": "x"' });
    expect(broken.status).toBe(400);
    expect((broken.body as Json).code).toBe('invalid_json');
  });

  it('a known path with another method is 405 with Allow', async () => {
    const res = await a.send('POST', `/systems/${JITA}`, { tag: 'x' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toMatch(/PATCH/);
    expect((res.body as Json).code).toBe('method_not_allowed');
  });
});

describe('GET collections (decisions §4)', () => {
  it('/systems answers {data: {systems, connections}}: visible systems (all=true adds hidden ones)', async () => {
    const res = await a.send<{ data: { systems: Json[]; connections: Json[] } }>('GET', '/systems');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['connections', 'systems']);
    expect(res.body.data.systems.map((s) => s.name)).toEqual(['Jita', 'Thera']);
    for (const s of res.body.data.systems) expect(Object.keys(s).sort()).toEqual(SYSTEM_KEYS);
    expect(res.body.data.connections.map((c) => c.id)).toEqual([ids.connection]);
    for (const c of res.body.data.connections) expect(Object.keys(c).sort()).toEqual(CONNECTION_KEYS);
    const all = await a.send<{ data: { systems: Json[] } }>('GET', '/systems?all=true');
    expect(all.body.data.systems.map((s) => [s.name, s.visible])).toEqual([
      ['J152820', false],
      ['Jita', true],
      ['Thera', true],
    ]);
    // The same items as the map data API.
    const legacy = await t.fetch(`/api/map/systems?map_id=${a.mapId}`, { token: a.key });
    expect(((await legacy.json()) as { data: Json[] }).data).toEqual(res.body.data.systems);
  });

  it('/systems/{solar_system_id} answers one system; 404 system_not_found when not on the map', async () => {
    const res = await a.send<{ data: Json }>('GET', `/systems/${JITA}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: ids.systemJita, solar_system_id: JITA, name: 'Jita', position_x: 1 });
    const missing = await a.send('GET', '/systems/30002420');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'System not found', code: 'system_not_found' });
    expectValidation(await a.send('GET', '/systems/-1'), 'solar_system_id');
  });

  it('/connections, /tracked-characters, /user-characters answer the spec item shapes', async () => {
    const conns = await a.send<{ data: Json[] }>('GET', '/connections');
    expect(conns.body.data.map((c) => [c.solar_system_source, c.solar_system_target])).toEqual([[JITA, THERA]]);
    const tracked = await a.send<{ data: Json[] }>('GET', '/tracked-characters');
    expect(tracked.status).toBe(200);
    expect(tracked.body.data).toHaveLength(1);
    expect(Object.keys(tracked.body.data[0]!).sort()).toEqual(['character', 'id', 'map_id', 'tracked']);
    expect(tracked.body.data[0]).toMatchObject({ tracked: true, map_id: a.mapId, character: { eve_id: pilot.eve_id, name: pilot.name } });
    const users = await a.send<{ data: Json[] }>('GET', '/user-characters');
    expect(users.body.data).toEqual([{ characters: [tracked.body.data[0]!.character], main_character_eve_id: null }]);
  });

  it('/signatures, /structures and /structure-timers', async () => {
    const sigs = await a.send<{ data: Json[] }>('GET', '/signatures');
    expect(sigs.body.data.map((s) => s.signature_id)).toEqual(['SIG-001']);
    expect(Object.keys(sigs.body.data[0]!).sort()).toEqual(SIGNATURE_KEYS);
    const structures = await a.send<{ data: Json[] }>('GET', '/structures');
    expect(structures.body.data.map((s) => s.id).sort()).toEqual([ids.structure, ids.hiddenStructure].sort());
    for (const s of structures.body.data) expect(Object.keys(s).sort()).toEqual(STRUCTURE_KEYS);
    const timers = await a.send<{ data: Json[] }>('GET', '/structure-timers');
    expect(timers.body.data.map((s) => s.id)).toEqual([ids.structure]);
    const filtered = await a.send<{ data: Json[] }>('GET', `/structure-timers?system_id=${ids.systemJita}`);
    expect(filtered.body.data.map((s) => s.id)).toEqual([ids.structure]);
    const other = await a.send<{ data: Json[] }>('GET', '/structure-timers?system_id=00000000-0000-4000-8000-000000000000');
    expect(other.body.data).toEqual([]);
    expectValidation(await a.send('GET', '/structure-timers?system_id=jita'), 'system_id', 'must be a UUID');
  });
});

describe('API documentation (/swaggerui reads /api/openapi.json)', () => {
  const ops: [string, string, number][] = [
    ['get', '/api/maps/{map_id}/systems', 200],
    ['post', '/api/maps/{map_id}/systems', 201],
    ['get', '/api/maps/{map_id}/systems/{solar_system_id}', 200],
    ['patch', '/api/maps/{map_id}/systems/{solar_system_id}', 200],
    ['delete', '/api/maps/{map_id}/systems/{solar_system_id}', 204],
    ['get', '/api/maps/{map_id}/connections', 200],
    ['post', '/api/maps/{map_id}/connections', 201],
    ['patch', '/api/maps/{map_id}/connections/{id}', 200],
    ['delete', '/api/maps/{map_id}/connections/{id}', 204],
    ['get', '/api/maps/{map_id}/signatures', 200],
    ['put', '/api/maps/{map_id}/systems/{solar_system_id}/signatures', 200],
    ['delete', '/api/maps/{map_id}/systems/{solar_system_id}/signatures/{signature_id}', 204],
    ['get', '/api/maps/{map_id}/structures', 200],
    ['post', '/api/maps/{map_id}/structures', 201],
    ['put', '/api/maps/{map_id}/structures/{id}', 200],
    ['delete', '/api/maps/{map_id}/structures/{id}', 204],
    ['get', '/api/maps/{map_id}/structure-timers', 200],
    ['post', '/api/maps/{map_id}/kills', 200],
    ['get', '/api/maps/{map_id}/tracked-characters', 200],
    ['put', '/api/maps/{map_id}/tracked-characters/{eve_id}', 200],
    ['get', '/api/maps/{map_id}/user-characters', 200],
    ['post', '/api/maps/{map_id}/character-activity', 200],
    ['delete', '/api/maps/{map_id}/systems', 200],
    ['post', '/api/maps/{map_id}/duplicate', 201],
    ['get', '/api/maps/{map_id}/rally-points', 200],
    ['post', '/api/maps/{map_id}/rally-points', 201],
    ['delete', '/api/maps/{map_id}/rally-points/{id}', 204],
    ['post', '/api/maps/{map_id}/signatures/{id}/link', 200],
    ['delete', '/api/maps/{map_id}/signatures/{id}/link', 200],
    ['patch', '/api/maps/{map_id}/connections', 200],
    ['delete', '/api/maps/{map_id}/connections', 204],
    ['get', '/api/maps/{map_id}/routes', 200],
  ];

  it('documents every endpoint: summary, map key security, success and error responses, request body schema', async () => {
    const res = await t.fetch('/api/openapi.json');
    const spec = (await res.json()) as {
      paths: Record<string, Record<string, { summary?: string; security?: unknown[]; responses: Record<string, unknown>; requestBody?: unknown }>>;
      components: { schemas: Record<string, Json> };
    };
    for (const [method, path, success] of ops) {
      const op = spec.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op!.summary, `${method} ${path} summary`).toBeTruthy();
      expect(op!.security).toEqual([{ map_key: [] }]);
      expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining([String(success), '400', '401', '404', '429']));
      if (['post', 'put', 'patch'].includes(method)) expect(op!.requestBody, `${method} ${path} body`).toBeDefined();
    }
    const schemas = spec.components.schemas;
    expect(schemas.SignatureInput).toMatchObject({
      additionalProperties: false,
      required: ['signature_id'],
      properties: { signature_id: { pattern: '^[A-Za-z]{3}-[0-9]{3}$' } },
    });
    expect(schemas.AddConnectionRequest).toMatchObject({
      properties: {
        type: { minimum: 0, maximum: 2 },
        mass_status: { minimum: 0, maximum: 2 },
        time_status: { minimum: 0, maximum: 6 },
        ship_size_type: { minimum: 0, maximum: 4 },
      },
    });
    expect(schemas.SystemStatusName).toMatchObject({ enum: ['clear', 'home', 'friendly', 'looking_for', 'warning', 'target', 'dangerous'] });
    expect(schemas.StructureStatus).toMatchObject({ enum: ['Powered', 'Anchoring', 'Unanchoring', 'Low Power', 'Abandoned', 'Reinforced'] });
    expect(schemas.AddSystemsRequest).toMatchObject({ properties: { systems: { minItems: 1, maxItems: 100 } } });
    expect(schemas.SignatureDto).toMatchObject({ required: expect.arrayContaining(SIGNATURE_KEYS) });
  });
});
