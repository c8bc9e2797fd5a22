/**
 * Editing API, systems (`/api/maps/{map_id}/systems`): answers, stored state, and the outbox rows
 * each change writes (decisions §4, §5 payloads).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import {
  addConnection,
  addSystem,
  type EditMap,
  EGBINGER,
  type ErrorBody,
  expectValidation,
  freshMap,
  J100744,
  J152820,
  JITA,
  type Json,
  MICRO,
  startEditServer,
  SYSTEM_KEYS,
  THERA,
  UUID,
} from '../support/map-edit.js';

let t: TestServer;

beforeAll(async () => {
  t = await startEditServer();
});
afterAll(async () => t?.close());

const THERA_STATIC = { name: 'Thera', type: 'Class 12 (Thera)', class: 'T', statics: ['E587', 'Q063', 'V898'] };
const JITA_STATIC = { name: 'Jita', type: 'High-sec', class: '0.9', statics: [] };
const J152820_STATIC = { name: 'J152820', type: 'Class 5', class: 'C5', statics: ['H296'] };

/** A new map and a client for it (by slug unless `byId`). */
async function fresh(byId = false) {
  return freshMap(t, { byId });
}

async function systemRows(c: EditMap) {
  return c.sql<Json>('select solar_system_id, visible, tag, status, position_x from map_systems where map_id = ? order by solar_system_id', [c.mapId]);
}

describe('POST /api/maps/{map_id}/systems', () => {
  it('adds one system: 201 {data: System} and one add_system event with the §5 payload', async () => {
    const c = await fresh();
    const { result, events } = await c.withEvents(() =>
      c.send<{ data: Json }>('POST', '/systems', {
        solar_system_id: THERA,
        position_x: 120,
        position_y: -40,
        custom_name: 'Home hole',
        tag: 'T1',
        status: 'home',
        labels: '{"customLabel":"","labels":["la"]}',
        description: 'our Thera',
        locked: true,
      }),
    );
    expect(result.status).toBe(201);
    expect(result.headers.get('content-type')).toMatch(/^application\/json/);
    const s = result.body.data;
    expect(Object.keys(s).sort()).toEqual(SYSTEM_KEYS);
    expect(s).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Thera',
      status: 1,
      tag: 'T1',
      visible: true,
      description: 'our Thera',
      labels: '{"customLabel":"","labels":["la"]}',
      inserted_at: expect.stringMatching(MICRO),
      updated_at: expect.stringMatching(MICRO),
      locked: true,
      solar_system_id: THERA,
      map_id: c.mapId,
      custom_name: 'Home hole',
      position_x: 120,
      position_y: -40,
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ map_id: c.mapId, type: 'add_system' });
    expect(events[0]!.payload).toEqual({ solar_system_id: THERA, ...THERA_STATIC, system_id: s.id, position_x: 120, position_y: -40 });
  });

  it('applies defaults, accepts status as an integer and the map UUID in the path', async () => {
    const c = await fresh(true);
    const s = await addSystem(c, { solar_system_id: JITA, status: 4 });
    expect(s).toMatchObject({ status: 4, tag: null, custom_name: null, labels: null, description: null, locked: false, position_x: 0, position_y: 0 });
    const [row] = await c.eventsSince(0, c.mapId);
    expect(row!.payload).toEqual({ solar_system_id: JITA, ...JITA_STATIC, system_id: s.id, position_x: 0, position_y: 0 });
  });

  it('adds a batch in one transaction: 201 {data: [System]} in request order, one add_system per system', async () => {
    const c = await fresh();
    const { result, events } = await c.withEvents(() =>
      c.send<{ data: Json[] }>('POST', '/systems', {
        systems: [
          { solar_system_id: J152820, position_x: 10, position_y: 20 },
          { solar_system_id: JITA, status: 'dangerous' },
        ],
      }),
    );
    expect(result.status).toBe(201);
    expect(result.body.data.map((s) => [s.solar_system_id, s.name, s.status])).toEqual([
      [J152820, 'J152820', 0],
      [JITA, 'Jita', 6],
    ]);
    for (const s of result.body.data) expect(Object.keys(s).sort()).toEqual(SYSTEM_KEYS);
    expect(events.map((e) => e.type)).toEqual(['add_system', 'add_system']);
    expect(events[0]!.payload).toEqual({ solar_system_id: J152820, ...J152820_STATIC, system_id: result.body.data[0]!.id, position_x: 10, position_y: 20 });
    expect(events[1]!.payload).toEqual({ solar_system_id: JITA, ...JITA_STATIC, system_id: result.body.data[1]!.id, position_x: 0, position_y: 0 });
    expect(events[0]!.xmin).toBe(events[1]!.xmin);
  });

  it('re-posting a visible system updates it: system_metadata_changed with the changed fields, none when unchanged', async () => {
    const c = await fresh();
    const first = await addSystem(c, { solar_system_id: JITA, tag: 'A', position_x: 5 });
    const { result, events } = await c.withEvents(() =>
      c.send<{ data: Json }>('POST', '/systems', { solar_system_id: JITA, tag: 'B', position_x: 5, status: 'target' }),
    );
    expect(result.status).toBe(201);
    expect(result.body.data).toMatchObject({ id: first.id, tag: 'B', status: 5, position_x: 5 });
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('system_metadata_changed');
    expect(events[0]!.payload.changed).toEqual(['tag', 'status']);
    const again = await c.withEvents(() => c.send('POST', '/systems', { solar_system_id: JITA, tag: 'B' }));
    expect(again.result.status).toBe(201);
    expect(again.events).toEqual([]);
  });

  it('adding a hidden (deleted) system shows it again with its settings kept: add_system', async () => {
    const c = await fresh();
    const first = await addSystem(c, { solar_system_id: THERA, tag: 'KEEP', position_x: 1, position_y: 2 });
    expect((await c.send('DELETE', `/systems/${THERA}`)).status).toBe(204);
    const { result, events } = await c.withEvents(() => c.send<{ data: Json }>('POST', '/systems', { solar_system_id: THERA, position_x: 300 }));
    expect(result.status).toBe(201);
    expect(result.body.data).toMatchObject({ id: first.id, visible: true, tag: 'KEEP', position_x: 300, position_y: 2 });
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      ['add_system', { solar_system_id: THERA, ...THERA_STATIC, system_id: first.id, position_x: 300, position_y: 2 }],
    ]);
  });

  it('answers 404 solar_system_not_found for a solar system not in the static data, writing nothing', async () => {
    const c = await fresh();
    const single = await c.withEvents(() => c.send<ErrorBody>('POST', '/systems', { solar_system_id: 12345 }));
    expect(single.result.status).toBe(404);
    expect(single.result.body).toEqual({
      error: 'Solar system not found',
      code: 'solar_system_not_found',
      details: [{ field: 'solar_system_id', message: '12345 is not a known solar system' }],
    });
    const batch = await c.withEvents(() => c.send<ErrorBody>('POST', '/systems', { systems: [{ solar_system_id: JITA }, { solar_system_id: 99 }] }));
    expect(batch.result.status).toBe(404);
    expect(batch.result.body.details).toEqual([{ field: 'systems[1].solar_system_id', message: '99 is not a known solar system' }]);
    expect([...single.events, ...batch.events]).toEqual([]);
    expect(await systemRows(c)).toEqual([]);
  });

  it('refuses malformed bodies with 400 validation_failed and writes nothing', async () => {
    const c = await fresh();
    const since = await c.mark();
    expectValidation(await c.send('POST', '/systems', { solar_system_id: JITA, status: 7 }), 'status', 'max 6');
    expectValidation(await c.send('POST', '/systems', { solar_system_id: JITA, status: 'bogus' }), 'status', /must be an integer or one of 'clear'/);
    expectValidation(await c.send('POST', '/systems', { solar_system_id: JITA, colour: 'red' }), 'colour', /excess property/);
    expectValidation(await c.send('POST', '/systems', {}), 'solar_system_id', /required/);
    expectValidation(await c.send('POST', '/systems', { solar_system_id: 'Jita' }), 'solar_system_id');
    expectValidation(await c.send('POST', '/systems', { solar_system_id: JITA, position_x: 1.5 }), 'position_x');
    expectValidation(await c.send('POST', '/systems', { solar_system_id: JITA, position_y: 2 ** 31 }), 'position_y');
    expectValidation(await c.send('POST', '/systems', { solar_system_id: JITA, tag: 'x'.repeat(65) }), 'tag');
    expectValidation(await c.send('POST', '/systems', { solar_system_id: JITA, custom_name: 5 }), 'custom_name', 'must be a string or null');
    expectValidation(await c.send('POST', '/systems', { solar_system_id: JITA, labels: '{not json' }), 'labels', 'must be a JSON-encoded value');
    expectValidation(await c.send('POST', '/systems', { solar_system_id: JITA, locked: 'yes' }), 'locked');
    expectValidation(await c.send('POST', '/systems', { systems: [] }), 'systems', /minItems/);
    expectValidation(await c.send('POST', '/systems', { systems: Array.from({ length: 101 }, (_, i) => ({ solar_system_id: i })) }), 'systems', /maxItems/);
    expectValidation(await c.send('POST', '/systems', { systems: [{ solar_system_id: JITA }, { solar_system_id: 'x' }] }), 'systems[1].solar_system_id');
    expectValidation(
      await c.send('POST', '/systems', { systems: [{ solar_system_id: JITA }, { solar_system_id: JITA }] }),
      'systems[1].solar_system_id',
      `${JITA} is listed more than once`,
    );
    expectValidation(await c.send('POST', '/systems', [{ solar_system_id: JITA }]), 'body');
    expect((await c.send<ErrorBody>('POST', '/systems', undefined, { raw: '{"solar_system_id": ' })).body.code).toBe('invalid_json');
    expect(await c.eventsSince(since)).toEqual([]);
    expect(await systemRows(c)).toEqual([]);
  });
});

describe('PATCH /api/maps/{map_id}/systems/{solar_system_id}', () => {
  it('changes the given fields: 200 {data: System} and system_metadata_changed listing what changed', async () => {
    const c = await fresh();
    const s = await addSystem(c, { solar_system_id: J152820, tag: 'OLD', status: 2, position_x: 7 });
    const { result, events } = await c.withEvents(() =>
      c.send<{ data: Json }>('PATCH', `/systems/${J152820}`, {
        position_x: 7,
        position_y: 99,
        custom_name: 'Pulsar C5',
        tag: null,
        status: 'friendly',
        labels: '["a"]',
        description: 'note',
        locked: true,
      }),
    );
    expect(result.status).toBe(200);
    expect(Object.keys(result.body.data).sort()).toEqual(SYSTEM_KEYS);
    expect(result.body.data).toMatchObject({
      id: s.id,
      position_x: 7,
      position_y: 99,
      custom_name: 'Pulsar C5',
      tag: null,
      status: 2,
      labels: '["a"]',
      description: 'note',
      locked: true,
    });
    expect(result.body.data.updated_at).not.toBe(s.updated_at);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ map_id: c.mapId, type: 'system_metadata_changed' });
    expect(events[0]!.payload).toEqual({
      system_id: s.id,
      solar_system_id: J152820,
      name: 'J152820',
      custom_name: 'Pulsar C5',
      tag: null,
      status: 2,
      labels: '["a"]',
      description: 'note',
      locked: true,
      visible: true,
      position_x: 7,
      position_y: 99,
      changed: ['position_y', 'custom_name', 'tag', 'labels', 'description', 'locked'],
    });
  });

  it('emits nothing when nothing changed (same values, or an empty body)', async () => {
    const c = await fresh();
    const s = await addSystem(c, { solar_system_id: JITA, tag: 'SAME', status: 1 });
    const same = await c.withEvents(() => c.send<{ data: Json }>('PATCH', `/systems/${JITA}`, { tag: 'SAME', status: 'home' }));
    expect(same.result.status).toBe(200);
    expect(same.result.body.data.updated_at).toBe(s.updated_at);
    const empty = await c.withEvents(() => c.send('PATCH', `/systems/${JITA}`, {}));
    expect(empty.result.status).toBe(200);
    expect([...same.events, ...empty.events]).toEqual([]);
  });

  it('answers 404 system_not_found for a system not on the map or hidden; 400 for a bad path or body', async () => {
    const c = await fresh();
    await addSystem(c, { solar_system_id: JITA });
    await addSystem(c, { solar_system_id: THERA });
    expect((await c.send('DELETE', `/systems/${THERA}`)).status).toBe(204);
    const since = await c.mark();
    for (const sid of [J152820, THERA]) {
      const res = await c.send('PATCH', `/systems/${sid}`, { tag: 'X' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'System not found', code: 'system_not_found' });
    }
    expectValidation(await c.send('PATCH', '/systems/jita', { tag: 'X' }), 'solar_system_id');
    expectValidation(await c.send('PATCH', '/systems/99999999999', { tag: 'X' }), 'solar_system_id');
    expectValidation(await c.send('PATCH', `/systems/${JITA}`, { visible: false }), 'visible', /excess/);
    expectValidation(await c.send('PATCH', `/systems/${JITA}`, { status: -1 }), 'status');
    expectValidation(await c.send('PATCH', `/systems/${JITA}`, { solar_system_id: THERA }), 'solar_system_id', /excess/);
    expect(await c.eventsSince(since)).toEqual([]);
  });
});

describe('DELETE /api/maps/{map_id}/systems/{solar_system_id}', () => {
  it('hides the system and removes its connections: connection_removed per connection, then deleted_system, in one transaction', async () => {
    const c = await fresh();
    const thera = await addSystem(c, { solar_system_id: THERA });
    await addSystem(c, { systems: [{ solar_system_id: JITA }, { solar_system_id: J152820 }, { solar_system_id: J100744 }] });
    const out = await addConnection(c, { solar_system_source: THERA, solar_system_target: JITA });
    const into = await addConnection(c, { solar_system_source: J152820, solar_system_target: THERA, type: 1 });
    const other = await addConnection(c, { solar_system_source: JITA, solar_system_target: J100744 });

    const { result, events } = await c.withEvents(() => c.send('DELETE', `/systems/${THERA}`));
    expect(result.status).toBe(204);
    expect(result.text).toBe('');
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      ['connection_removed', { connection_id: out.id, solar_system_source: THERA, solar_system_target: JITA, from_name: 'Thera', to_name: 'Jita' }],
      ['connection_removed', { connection_id: into.id, solar_system_source: J152820, solar_system_target: THERA, from_name: 'J152820', to_name: 'Thera' }],
      ['deleted_system', { solar_system_id: THERA, name: 'Thera', system_id: thera.id }],
    ]);
    // One transaction: the events and the hidden system row were written by the same transaction.
    const [hiddenRow] = await c.sql<{ xmin: string }>('select xmin::text as xmin from map_systems where id = ?', [thera.id]);
    expect(events.map((e) => e.xmin)).toEqual([hiddenRow!.xmin, hiddenRow!.xmin, hiddenRow!.xmin]);
    expect(events.every((e) => e.map_id === c.mapId)).toBe(true);

    const listed = await c.send<{ data: { systems: Json[]; connections: Json[] } }>('GET', '/systems');
    expect(listed.body.data.systems.map((s) => s.solar_system_id)).not.toContain(THERA);
    expect(listed.body.data.connections.map((x) => x.id)).toEqual([other.id]);
    const all = await c.send<{ data: { systems: Json[] } }>('GET', '/systems?all=true');
    expect(all.body.data.systems.find((s) => s.solar_system_id === THERA)).toMatchObject({ id: thera.id, visible: false });
  });

  it('emits only deleted_system for a system without connections', async () => {
    const c = await fresh();
    const s = await addSystem(c, { solar_system_id: EGBINGER });
    const { events } = await c.withEvents(() => c.send('DELETE', `/systems/${EGBINGER}`));
    expect(events.map((e) => [e.type, e.payload])).toEqual([['deleted_system', { solar_system_id: EGBINGER, name: 'Egbinger', system_id: s.id }]]);
  });

  it('refuses a locked system (409 system_locked) and an unknown or hidden one (404), changing nothing', async () => {
    const c = await fresh();
    await addSystem(c, { systems: [{ solar_system_id: JITA, locked: true }, { solar_system_id: THERA }] });
    await addConnection(c, { solar_system_source: JITA, solar_system_target: THERA });
    expect((await c.send('DELETE', `/systems/${THERA}`)).status).toBe(204);
    await addSystem(c, { solar_system_id: THERA });
    await addConnection(c, { solar_system_source: JITA, solar_system_target: THERA });
    const since = await c.mark();
    const locked = await c.send('DELETE', `/systems/${JITA}`);
    expect(locked.status).toBe(409);
    expect(locked.body).toEqual({ error: 'System is locked; unlock it before deleting it', code: 'system_locked' });
    expect((await c.send('DELETE', `/systems/${J152820}`)).status).toBe(404);
    expect((await c.send('DELETE', `/systems/${THERA}`)).status).toBe(204);
    const hidden = await c.send('DELETE', `/systems/${THERA}`);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: 'System not found', code: 'system_not_found' });
    const events = await c.eventsSince(since);
    expect(events.map((e) => e.type)).toEqual(['connection_removed', 'deleted_system']);
    expect((await systemRows(c)).find((r) => r.solar_system_id === JITA)).toMatchObject({ visible: true });
  });
});
