/**
 * Editing API, connections (`/api/maps/{map_id}/connections`): answers, stored state, and the outbox
 * rows each change writes (decisions §3 enumerations, §4, §5 payloads).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import {
  addConnection,
  addSystem,
  CONNECTION_KEYS,
  EGBINGER,
  type ErrorBody,
  expectValidation,
  freshMap,
  J152820,
  JITA,
  type Json,
  MICRO,
  startEditServer,
  THERA,
  UUID,
} from '../support/map-edit.js';

let t: TestServer;

beforeAll(async () => {
  t = await startEditServer();
});
afterAll(async () => t?.close());

/** A new map and a client for it (by slug unless `byId`). */
async function fresh(byId = false) {
  return freshMap(t, { byId });
}

describe('POST /api/maps/{map_id}/connections', () => {
  it('connects two systems of the map: 201 {data: Connection} and connection_added', async () => {
    const c = await fresh();
    await addSystem(c, { systems: [{ solar_system_id: JITA }, { solar_system_id: J152820 }] });
    const { result, events } = await c.withEvents(() =>
      c.send<{ data: Json }>('POST', '/connections', {
        solar_system_source: J152820,
        solar_system_target: JITA,
        type: 0,
        mass_status: 1,
        time_status: 2,
        ship_size_type: 3,
        wormhole_type: 'h296',
        locked: false,
      }),
    );
    expect(result.status).toBe(201);
    const conn = result.body.data;
    expect(Object.keys(conn).sort()).toEqual(CONNECTION_KEYS);
    expect(conn).toEqual({
      id: expect.stringMatching(UUID),
      type: 0,
      mass_status: 1,
      ship_size_type: 3,
      time_status: 2,
      map_id: c.mapId,
      inserted_at: expect.stringMatching(MICRO),
      updated_at: expect.stringMatching(MICRO),
      solar_system_source: J152820,
      solar_system_target: JITA,
      wormhole_type: 'H296',
    });
    expect(events.map((e) => [e.map_id, e.type, e.payload])).toEqual([
      [
        c.mapId,
        'connection_added',
        {
          connection_id: conn.id,
          solar_system_source: J152820,
          solar_system_target: JITA,
          from_name: 'J152820',
          to_name: 'Jita',
          type: 0,
          mass_status: 1,
          ship_size_type: 3,
          time_status: 2,
          wormhole_type: 'H296',
        },
      ],
    ]);
    const listed = await c.send<{ data: Json[] }>('GET', '/connections');
    expect(listed.body.data).toEqual([conn]);
  });

  it('defaults to a wormhole, normal mass and time, large ships, no type code', async () => {
    const c = await fresh();
    await addSystem(c, { systems: [{ solar_system_id: JITA }, { solar_system_id: THERA }] });
    const conn = await addConnection(c, { solar_system_source: JITA, solar_system_target: THERA });
    expect(conn).toMatchObject({ type: 0, mass_status: 0, time_status: 0, ship_size_type: 2, wormhole_type: null });
  });

  it('range-checks the enumerations of decisions §3 and refuses bad bodies with 400, writing nothing', async () => {
    const c = await fresh();
    await addSystem(c, { systems: [{ solar_system_id: JITA }, { solar_system_id: THERA }] });
    const base = { solar_system_source: JITA, solar_system_target: THERA };
    const since = await c.mark();
    const cases: [Json, string][] = [
      [{ type: 3 }, 'type'],
      [{ type: -1 }, 'type'],
      [{ mass_status: 3 }, 'mass_status'],
      [{ time_status: 7 }, 'time_status'],
      [{ ship_size_type: 5 }, 'ship_size_type'],
      [{ ship_size_type: 1.5 }, 'ship_size_type'],
      [{ mass_status: '1' }, 'mass_status'],
      [{ wormhole_type: 'K1-62' }, 'wormhole_type'],
      [{ wormhole_type: 'K'.repeat(17) }, 'wormhole_type'],
      [{ locked: 1 }, 'locked'],
      [{ colour: 'red' }, 'colour'],
      [{ solar_system_target: JITA }, 'solar_system_target'],
    ];
    for (const [extra, field] of cases) expectValidation(await c.send('POST', '/connections', { ...base, ...extra }), field);
    expectValidation(await c.send('POST', '/connections', { solar_system_source: JITA }), 'solar_system_target', /required/);
    expect(await c.eventsSince(since)).toEqual([]);
    expect(await c.sql('select id from map_connections where map_id = ?', [c.mapId])).toEqual([]);
  });

  it('answers 404 system_not_found when an end is not a visible system of the map; 409 when already connected', async () => {
    const c = await fresh();
    await addSystem(c, { systems: [{ solar_system_id: JITA }, { solar_system_id: THERA }, { solar_system_id: EGBINGER }] });
    expect((await c.send('DELETE', `/systems/${EGBINGER}`)).status).toBe(204);
    const first = await addConnection(c, { solar_system_source: JITA, solar_system_target: THERA });
    const since = await c.mark();
    const missing = await c.send<ErrorBody>('POST', '/connections', { solar_system_source: J152820, solar_system_target: JITA });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: 'System not found',
      code: 'system_not_found',
      details: [{ field: 'solar_system_source', message: `${J152820} is not a system on this map` }],
    });
    const hidden = await c.send<ErrorBody>('POST', '/connections', { solar_system_source: JITA, solar_system_target: EGBINGER });
    expect(hidden.status).toBe(404);
    expect(hidden.body.details).toEqual([{ field: 'solar_system_target', message: `${EGBINGER} is not a system on this map` }]);
    for (const [a, b] of [
      [JITA, THERA],
      [THERA, JITA],
    ]) {
      const dup = await c.send('POST', '/connections', { solar_system_source: a, solar_system_target: b });
      expect(dup.status).toBe(409);
      expect(dup.body).toEqual({ error: 'These systems are already connected', code: 'connection_exists' });
    }
    expect(await c.eventsSince(since)).toEqual([]);
    expect((await c.sql<{ id: string }>('select id from map_connections where map_id = ?', [c.mapId])).map((r) => r.id)).toEqual([first.id]);
  });
});

describe('PATCH and DELETE /api/maps/{map_id}/connections/{id}', () => {
  it('updates: 200 {data: Connection} and connection_updated with `changed`; nothing changed, no event', async () => {
    const c = await fresh();
    await addSystem(c, { systems: [{ solar_system_id: JITA }, { solar_system_id: THERA }] });
    const conn = await addConnection(c, { solar_system_source: JITA, solar_system_target: THERA, wormhole_type: 'K162' });
    const { result, events } = await c.withEvents(() =>
      c.send<{ data: Json }>('PATCH', `/connections/${conn.id}`, { mass_status: 2, time_status: 1, wormhole_type: 'K162', locked: true }),
    );
    expect(result.status).toBe(200);
    expect(Object.keys(result.body.data).sort()).toEqual(CONNECTION_KEYS);
    expect(result.body.data).toMatchObject({ id: conn.id, mass_status: 2, time_status: 1, wormhole_type: 'K162' });
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      [
        'connection_updated',
        {
          connection_id: conn.id,
          solar_system_source: JITA,
          solar_system_target: THERA,
          from_name: 'Jita',
          to_name: 'Thera',
          type: 0,
          mass_status: 2,
          ship_size_type: 2,
          time_status: 1,
          wormhole_type: 'K162',
          changed: ['mass_status', 'time_status', 'locked'],
        },
      ],
    ]);
    const second = await c.withEvents(() => c.send<{ data: Json }>('PATCH', `/connections/${conn.id}`, { wormhole_type: null, ship_size_type: 0, type: 2 }));
    expect(second.events[0]!.payload).toMatchObject({ wormhole_type: null, ship_size_type: 0, type: 2, changed: ['type', 'ship_size_type', 'wormhole_type'] });
    const none = await c.withEvents(() => c.send('PATCH', `/connections/${conn.id}`, { mass_status: 2 }));
    expect(none.result.status).toBe(200);
    expect(none.events).toEqual([]);
  });

  it('refuses a bad body (400) and an unknown connection (404 connection_not_found)', async () => {
    const c = await fresh();
    await addSystem(c, { systems: [{ solar_system_id: JITA }, { solar_system_id: THERA }] });
    const conn = await addConnection(c, { solar_system_source: JITA, solar_system_target: THERA });
    const since = await c.mark();
    expectValidation(await c.send('PATCH', `/connections/${conn.id}`, { time_status: 9 }), 'time_status', 'max 6');
    expectValidation(await c.send('PATCH', `/connections/${conn.id}`, { solar_system_source: THERA }), 'solar_system_source', /excess/);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await c.send('PATCH', `/connections/${id}`, { mass_status: 1 });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Connection not found', code: 'connection_not_found' });
    }
    expect(await c.eventsSince(since)).toEqual([]);
  });

  it('deletes: 204 and connection_removed; a locked connection is 409 connection_locked; again 404', async () => {
    const c = await fresh();
    await addSystem(c, { systems: [{ solar_system_id: JITA }, { solar_system_id: THERA }, { solar_system_id: J152820 }] });
    const conn = await addConnection(c, { solar_system_source: THERA, solar_system_target: J152820 });
    const locked = await addConnection(c, { solar_system_source: JITA, solar_system_target: THERA, locked: true });
    const { result, events } = await c.withEvents(() => c.send('DELETE', `/connections/${conn.id}`));
    expect(result.status).toBe(204);
    expect(result.text).toBe('');
    expect(events.map((e) => [e.map_id, e.type, e.payload])).toEqual([
      [
        c.mapId,
        'connection_removed',
        { connection_id: conn.id, solar_system_source: THERA, solar_system_target: J152820, from_name: 'Thera', to_name: 'J152820' },
      ],
    ]);
    const since = await c.mark();
    expect((await c.send('DELETE', `/connections/${conn.id}`)).status).toBe(404);
    const refused = await c.send('DELETE', `/connections/${locked.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: 'Connection is locked; unlock it before deleting it', code: 'connection_locked' });
    expect(await c.eventsSince(since)).toEqual([]);
    expect((await c.sql<{ id: string }>('select id from map_connections where map_id = ?', [c.mapId])).map((r) => r.id)).toEqual([locked.id]);
  });
});
