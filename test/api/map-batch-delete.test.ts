/**
 * Editing API: deleting systems and connections in one batch (`DELETE /api/maps/{map_id}/systems`)
 * and connections named by their two ends (`PATCH`/`DELETE …/connections?solar_system_source=&solar_system_target=`):
 * answers, stored state, the outbox rows and access by key kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestServer } from '../support/app.js';
import {
  addConnection,
  CONNECTION_KEYS,
  EGBINGER,
  type ErrorBody,
  expectValidation,
  freshMap,
  J100744,
  J152820,
  JITA,
  type Json,
  startEditServer,
  THERA,
} from '../support/map-edit.js';

let t: TestServer;

beforeAll(async () => {
  t = await startEditServer();
});
afterAll(async () => t?.close());

/** A map with Jita, Thera, J152820 and J100744, and connections Jita→Thera, Thera→J152820, J152820→J100744. */
async function chain() {
  const c = await freshMap(t, { systems: [JITA, THERA, J152820, J100744] });
  const jt = await addConnection(c, { solar_system_source: JITA, solar_system_target: THERA });
  const tj = await addConnection(c, { solar_system_source: THERA, solar_system_target: J152820 });
  const jj = await addConnection(c, { solar_system_source: J152820, solar_system_target: J100744 });
  return { c, jt: jt.id as string, tj: tj.id as string, jj: jj.id as string };
}

async function state(c: Awaited<ReturnType<typeof freshMap>>) {
  const systems = await c.sql<{ solar_system_id: number; visible: boolean }>(
    'select solar_system_id, visible from map_systems where map_id = ? order by solar_system_id',
    [c.mapId],
  );
  const connections = await c.sql<{ id: string }>('select id from map_connections where map_id = ? order by id', [c.mapId]);
  return { systems, connections: connections.map((r) => r.id) };
}

describe('DELETE /api/maps/{map_id}/systems (batch)', () => {
  it('hides the listed systems and removes the listed connections in one transaction, one event per deleted item', async () => {
    const { c, jt, tj, jj } = await chain();
    const { result, events } = await c.withEvents(() => c.send('DELETE', '/systems', { system_ids: [J152820], connection_ids: [jt] }));
    expect(result.status, result.text).toBe(200);
    expect(result.body).toEqual({ data: { deleted_count: 2, deleted_systems: 1, deleted_connections: 1 } });
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      ['connection_removed', { connection_id: jt, solar_system_source: JITA, solar_system_target: THERA, from_name: 'Jita', to_name: 'Thera' }],
      ['connection_removed', { connection_id: tj, solar_system_source: THERA, solar_system_target: J152820, from_name: 'Thera', to_name: 'J152820' }],
      ['connection_removed', { connection_id: jj, solar_system_source: J152820, solar_system_target: J100744, from_name: 'J152820', to_name: 'J100744' }],
      ['deleted_system', { solar_system_id: J152820, name: 'J152820', system_id: expect.any(String) }],
    ]);
    expect(new Set(events.map((e) => e.xmin)).size).toBe(1);
    expect(await state(c)).toEqual({
      systems: [
        { solar_system_id: JITA, visible: true },
        { solar_system_id: THERA, visible: true },
        { solar_system_id: J100744, visible: true },
        { solar_system_id: J152820, visible: false },
      ].sort((x, y) => x.solar_system_id - y.solar_system_id),
      connections: [],
    });
  });

  it('skips ids that name nothing on the map and does not count them; systems alone or connections alone work', async () => {
    const { c, jt } = await chain();
    const onlySystems = await c.send('DELETE', '/systems', { system_ids: [EGBINGER, THERA, THERA] });
    expect(onlySystems.body).toEqual({ data: { deleted_count: 1, deleted_systems: 1, deleted_connections: 0 } });
    const gone = await c.send('DELETE', '/systems', { connection_ids: [jt, '00000000-0000-4000-8000-000000000000'] });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ data: { deleted_count: 0, deleted_systems: 0, deleted_connections: 0 } });
  });

  it('refuses the whole batch with 409 when a listed system or connection is locked, naming it; nothing is deleted', async () => {
    const { c, jt } = await chain();
    expect((await c.send('PATCH', `/systems/${THERA}`, { locked: true })).status).toBe(200);
    expect((await c.send('PATCH', `/connections/${jt}`, { locked: true })).status).toBe(200);
    const before = await state(c);
    const since = await c.mark();
    const res = await c.send<ErrorBody>('DELETE', '/systems', { system_ids: [J152820, THERA], connection_ids: [jt] });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: 'A listed system is locked; unlock it before deleting it',
      code: 'system_locked',
      details: [{ field: 'system_ids[1]', message: `${THERA} is locked` }],
    });
    const conn = await c.send<ErrorBody>('DELETE', '/systems', { connection_ids: [jt] });
    expect(conn.status).toBe(409);
    expect(conn.body.code).toBe('connection_locked');
    expect(conn.body.details).toEqual([{ field: 'connection_ids[0]', message: `${jt} is locked` }]);
    expect(await state(c)).toEqual(before);
    expect(await c.eventsSince(since)).toEqual([]);
  });

  it('answers 400 validation_failed for an empty batch, a bad id, a non-UUID connection id or too many ids', async () => {
    const c = await freshMap(t, { systems: [JITA] });
    expectValidation(await c.send('DELETE', '/systems', {}), 'system_ids');
    expectValidation(await c.send('DELETE', '/systems', { system_ids: [], connection_ids: [] }), 'system_ids');
    expectValidation(await c.send('DELETE', '/systems', { system_ids: ['x'] }), 'system_ids[0]');
    expectValidation(await c.send('DELETE', '/systems', { connection_ids: ['nope'] }), 'connection_ids[0]');
    expectValidation(await c.send('DELETE', '/systems', { system_ids: Array.from({ length: 101 }, (_, i) => i) }), 'system_ids');
    expectValidation(await c.send('DELETE', '/systems', { system_ids: [JITA], extra: 1 }), 'extra');
    expect((await state(c)).systems).toEqual([{ solar_system_id: JITA, visible: true }]);
  });
});

describe('PATCH and DELETE /api/maps/{map_id}/connections?solar_system_source=&solar_system_target=', () => {
  it('PATCH finds the connection in either orientation and answers it; connection_updated lists the change', async () => {
    const { c, jt } = await chain();
    const { result, events } = await c.withEvents(() =>
      c.send<{ data: Json }>('PATCH', `/connections?solar_system_source=${THERA}&solar_system_target=${JITA}`, { mass_status: 2 }),
    );
    expect(result.status, result.text).toBe(200);
    expect(Object.keys(result.body.data).sort()).toEqual(CONNECTION_KEYS);
    expect(result.body.data).toMatchObject({ id: jt, solar_system_source: JITA, solar_system_target: THERA, mass_status: 2 });
    expect(events.map((e) => [e.type, e.payload.connection_id, e.payload.changed])).toEqual([['connection_updated', jt, ['mass_status']]]);
    const same = await c.send<{ data: Json }>('PATCH', `/connections?solar_system_source=${JITA}&solar_system_target=${THERA}`, { time_status: 1 });
    expect(same.body.data).toMatchObject({ id: jt, time_status: 1, mass_status: 2 });
  });

  it('DELETE removes it (either orientation): 204 and connection_removed; then 404 connection_not_found', async () => {
    const { c, tj } = await chain();
    const q = `/connections?solar_system_source=${J152820}&solar_system_target=${THERA}`;
    const { result, events } = await c.withEvents(() => c.send('DELETE', q));
    expect(result.status).toBe(204);
    expect(result.text).toBe('');
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      ['connection_removed', { connection_id: tj, solar_system_source: THERA, solar_system_target: J152820, from_name: 'Thera', to_name: 'J152820' }],
    ]);
    const again = await c.send('DELETE', q);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'Connection not found', code: 'connection_not_found' });
    const patch = await c.send('PATCH', `/connections?solar_system_source=${JITA}&solar_system_target=${J100744}`, { mass_status: 1 });
    expect(patch.status).toBe(404);
    expect(patch.body).toEqual({ error: 'Connection not found', code: 'connection_not_found' });
  });

  it('a locked connection is 409 connection_locked and stays', async () => {
    const { c, jj } = await chain();
    await c.send('PATCH', `/connections/${jj}`, { locked: true });
    const res = await c.send<ErrorBody>('DELETE', `/connections?solar_system_source=${J100744}&solar_system_target=${J152820}`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('connection_locked');
    expect((await state(c)).connections).toContain(jj);
  });

  it('answers 400 naming the query parameter when an end is missing or not an integer', async () => {
    const c = await freshMap(t);
    expectValidation(await c.send('DELETE', `/connections?solar_system_source=${JITA}`), 'solar_system_target');
    expectValidation(await c.send('PATCH', `/connections?solar_system_source=x&solar_system_target=${JITA}`, {}), 'solar_system_source');
  });
});

describe('access by key kind', () => {
  it('another map key gets 404 map_not_found, an ACL key and the admin token 401, and nothing changes', async () => {
    const { c, jt } = await chain();
    const other = await freshMap(t);
    const acl = await t.fetch(`/api/map/acls?map_id=${c.mapId}`, {
      method: 'POST',
      token: c.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ acl: { name: 'Batch', owner_eve_id: c.ownerEveId } }),
    });
    expect(acl.status).toBe(200);
    const aclKey = ((await acl.json()) as { data: { api_key: string } }).data.api_key;
    const before = await state(c);
    const requests: [string, string, unknown?][] = [
      ['DELETE', '/systems', { system_ids: [JITA], connection_ids: [jt] }],
      ['PATCH', `/connections?solar_system_source=${JITA}&solar_system_target=${THERA}`, { mass_status: 1 }],
      ['DELETE', `/connections?solar_system_source=${JITA}&solar_system_target=${THERA}`],
    ];
    for (const [method, path, body] of requests) {
      const wrongMap = await c.send(method, path, body, { token: other.key });
      expect(wrongMap.status, `${method} ${path}`).toBe(404);
      expect(wrongMap.body).toEqual({ error: 'Map not found', code: 'map_not_found' });
      for (const token of [aclKey, ADMIN_TOKEN]) {
        const res = await c.send(method, path, body, { token });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
      }
    }
    expect(await state(c)).toEqual(before);
  });
});
