/**
 * Rally points (`/api/maps/{map_id}/rally-points`): answers, the rally_point_added / rally_point_removed
 * events in the reference server's payload shapes, errors and access by key kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestServer } from '../support/app.js';
import { makeCharacter } from '../support/factories.js';
import { EGBINGER, type ErrorBody, expectValidation, freshMap, JITA, type Json, MICRO, startEditServer, THERA, UUID } from '../support/map-edit.js';

let t: TestServer;

beforeAll(async () => {
  t = await startEditServer();
});
afterAll(async () => t?.close());

const RALLY_KEYS = ['character_eve_id', 'character_name', 'id', 'inserted_at', 'message', 'solar_system_id', 'system_id', 'system_name'];

describe('/api/maps/{map_id}/rally-points', () => {
  it('POST answers 201 with the rally point and emits rally_point_added; GET lists it; DELETE 204 and rally_point_removed', async () => {
    const c = await freshMap(t, { systems: [JITA, THERA] });
    const pilot = await makeCharacter(t.platform, { name: 'Rally Pilot' });
    const characterId = (await c.sql<{ id: string }>('select id from characters where eve_id = ?', [pilot.eve_id]))[0]!.id;
    const systemId = (await c.sql<{ id: string }>('select id from map_systems where map_id = ? and solar_system_id = ?', [c.mapId, THERA]))[0]!.id;
    const { result, events } = await c.withEvents(() =>
      c.send<{ data: Json }>('POST', '/rally-points', { solar_system_id: THERA, character_eve_id: pilot.eve_id, message: 'Form up' }),
    );
    expect(result.status, result.text).toBe(201);
    const point = result.body.data;
    expect(Object.keys(point).sort()).toEqual(RALLY_KEYS);
    expect(point).toEqual({
      id: expect.stringMatching(UUID),
      solar_system_id: THERA,
      system_id: systemId,
      system_name: 'Thera',
      character_eve_id: pilot.eve_id,
      character_name: 'Rally Pilot',
      message: 'Form up',
      inserted_at: expect.stringMatching(MICRO),
    });
    expect(events.map((e) => [e.map_id, e.type, e.payload])).toEqual([
      [
        c.mapId,
        'rally_point_added',
        {
          rally_point_id: point.id,
          solar_system_id: THERA,
          system_id: systemId,
          system_name: 'Thera',
          character_id: characterId,
          character_name: 'Rally Pilot',
          character_eve_id: pilot.eve_id,
          message: 'Form up',
          created_at: point.inserted_at,
        },
      ],
    ]);
    const second = await c.send<{ data: Json }>('POST', '/rally-points', { solar_system_id: JITA, character_eve_id: pilot.eve_id });
    expect(second.body.data.message).toBeNull();
    const listed = await c.send<{ data: Json[] }>('GET', '/rally-points');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([point, second.body.data]);

    const removed = await c.withEvents(() => c.send('DELETE', `/rally-points/${point.id as string}`));
    expect(removed.result.status).toBe(204);
    expect(removed.events.map((e) => [e.type, e.payload])).toEqual([
      [
        'rally_point_removed',
        {
          id: point.id,
          rally_point_id: point.id,
          solar_system_id: THERA,
          system_id: systemId,
          system_name: 'Thera',
          character_id: characterId,
          character_name: 'Rally Pilot',
          character_eve_id: pilot.eve_id,
        },
      ],
    ]);
    expect((await c.send<{ data: Json[] }>('GET', '/rally-points')).body.data).toEqual([second.body.data]);
    const again = await c.send('DELETE', `/rally-points/${point.id as string}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'Rally point not found', code: 'rally_point_not_found' });
  });

  it('a system not on the map is 404 system_not_found, an unknown character 404 character_not_found; nothing written', async () => {
    const c = await freshMap(t, { systems: [JITA] });
    const pilot = await makeCharacter(t.platform);
    const since = await c.mark();
    const off = await c.send<ErrorBody>('POST', '/rally-points', { solar_system_id: EGBINGER, character_eve_id: pilot.eve_id });
    expect(off.status).toBe(404);
    expect(off.body).toEqual({
      error: 'System not found',
      code: 'system_not_found',
      details: [{ field: 'solar_system_id', message: `${EGBINGER} is not a system on this map` }],
    });
    const nobody = await c.send<ErrorBody>('POST', '/rally-points', { solar_system_id: JITA, character_eve_id: '999999999999' });
    expect(nobody.status).toBe(404);
    expect(nobody.body.code).toBe('character_not_found');
    expect(await c.eventsSince(since)).toEqual([]);
    expect((await c.send<{ data: Json[] }>('GET', '/rally-points')).body.data).toEqual([]);
    expect((await c.send('DELETE', '/rally-points/not-a-uuid')).status).toBe(404);
  });

  it('answers 400 validation_failed for a missing or malformed field', async () => {
    const c = await freshMap(t, { systems: [JITA] });
    const pilot = await makeCharacter(t.platform);
    expectValidation(await c.send('POST', '/rally-points', { character_eve_id: pilot.eve_id }), 'solar_system_id');
    expectValidation(await c.send('POST', '/rally-points', { solar_system_id: JITA }), 'character_eve_id');
    expectValidation(await c.send('POST', '/rally-points', { solar_system_id: JITA, character_eve_id: '01' }), 'character_eve_id');
    expectValidation(await c.send('POST', '/rally-points', { solar_system_id: JITA, character_eve_id: pilot.eve_id, message: 'x'.repeat(1001) }), 'message');
  });

  it('another map key gets 404 map_not_found, an ACL key and the admin token 401', async () => {
    const c = await freshMap(t, { systems: [JITA] });
    const other = await freshMap(t);
    const pilot = await makeCharacter(t.platform);
    const made = await c.send<{ data: Json }>('POST', '/rally-points', { solar_system_id: JITA, character_eve_id: pilot.eve_id });
    const acl = await t.fetch(`/api/map/acls?map_id=${c.mapId}`, {
      method: 'POST',
      token: c.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ acl: { name: 'Rally', owner_eve_id: c.ownerEveId } }),
    });
    const aclKey = ((await acl.json()) as { data: { api_key: string } }).data.api_key;
    const since = await c.mark();
    for (const [method, path, body] of [
      ['GET', '/rally-points', undefined],
      ['POST', '/rally-points', { solar_system_id: JITA, character_eve_id: pilot.eve_id }],
      ['DELETE', `/rally-points/${made.body.data.id as string}`, undefined],
    ] as const) {
      const wrong = await c.send(method, path, body, { token: other.key });
      expect(wrong.status, `${method} ${path}`).toBe(404);
      expect(wrong.body).toEqual({ error: 'Map not found', code: 'map_not_found' });
      for (const token of [aclKey, ADMIN_TOKEN]) expect((await c.send(method, path, body, { token })).status).toBe(401);
    }
    expect(await c.eventsSince(since)).toEqual([]);
  });
});
