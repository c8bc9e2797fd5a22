/**
 * `GET /api/map/audit`: the map's event log over a period, newest first, in the reference server's
 * entry shape; its errors and access by key kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestServer } from '../support/app.js';
import { addConnection, type ErrorBody, expectValidation, freshMap, J152820, JITA, type Json, MICRO, startEditServer, THERA } from '../support/map-edit.js';

let t: TestServer;

beforeAll(async () => {
  t = await startEditServer();
});
afterAll(async () => t?.close());

async function audit(query: string, token: string) {
  const res = await t.fetch(`/api/map/audit?${query}`, { token });
  return { status: res.status, body: (await res.json()) as { data: Json[] } & ErrorBody };
}

describe('GET /api/map/audit', () => {
  it('answers the period’s events newest first: entity_type, event_name, event_type, event_data, character, inserted_at', async () => {
    const c = await freshMap(t, { systems: [JITA, THERA] });
    const conn = await addConnection(c, { solar_system_source: JITA, solar_system_target: THERA });
    await c.send('PUT', `/systems/${THERA}/signatures`, { signatures: [{ signature_id: 'ABC-123' }] });
    const res = await audit(`slug=${c.slug}&period=1H`, c.key);
    expect(res.status).toBe(200);
    const entries = res.body.data;
    for (const e of entries) expect(Object.keys(e).sort()).toEqual(['character', 'entity_type', 'event_data', 'event_name', 'event_type', 'inserted_at']);
    expect(entries.map((e) => [e.entity_type, e.event_name, e.event_type])).toEqual([
      ['map', 'Signatures Updated', 'signatures_updated'],
      ['map', 'Signatures Added', 'signature_added'],
      ['map', 'Connection Added', 'connection_added'],
      ['map', 'System Added', 'add_system'],
      ['map', 'System Added', 'add_system'],
    ]);
    expect(entries[2]!.event_data).toMatchObject({ connection_id: conn.id, solar_system_source: JITA, solar_system_target: THERA });
    expect(entries[1]!.character).toEqual({
      eve_id: c.ownerEveId,
      name: expect.any(String),
      corporation_id: '98000001',
      corporation_ticker: 'CORP',
      alliance_id: '99000001',
      alliance_ticker: 'ALLY',
    });
    expect(entries[2]!.character).toBeNull();
    for (const e of entries) expect(e.inserted_at).toMatch(MICRO);
    const times = entries.map((e) => e.inserted_at as string);
    expect([...times].sort().reverse()).toEqual(times);
    const limited = await audit(`map_id=${c.mapId}&period=1D&limit=2`, c.key);
    expect(limited.body.data.map((e) => e.event_type)).toEqual(['signatures_updated', 'signature_added']);
  });

  it('keeps to the period: an event two days old is in 1W and not in 1H or 1D', async () => {
    const c = await freshMap(t, { systems: [J152820] });
    await c.sql(`update map_events set created_at = now() - interval '2 days' where map_id = ?`, [c.mapId]);
    await c.send('PATCH', `/systems/${J152820}`, { tag: 'X' });
    const types = async (period: string) => (await audit(`slug=${c.slug}&period=${period}`, c.key)).body.data.map((e) => e.event_type);
    expect(await types('1H')).toEqual(['system_metadata_changed']);
    expect(await types('1D')).toEqual(['system_metadata_changed']);
    expect(await types('1W')).toEqual(['system_metadata_changed', 'add_system']);
    expect(await types('3M')).toEqual(['system_metadata_changed', 'add_system']);
  });

  it('answers 400 without period, with an unknown period, without a selector, and for a selector naming two maps', async () => {
    const c = await freshMap(t);
    const other = await freshMap(t);
    const noPeriod = await t.fetch(`/api/map/audit?slug=${c.slug}`, { token: c.key });
    expectValidation({ status: noPeriod.status, body: await noPeriod.json(), text: '', headers: noPeriod.headers }, 'period');
    const bad = await t.fetch(`/api/map/audit?slug=${c.slug}&period=5Y`, { token: c.key });
    expectValidation({ status: bad.status, body: await bad.json(), text: '', headers: bad.headers }, 'period');
    const noSelector = await audit('period=1H', c.key);
    expect(noSelector.status).toBe(400);
    expect(noSelector.body.code).toBe('map_identifier_required');
    const conflict = await audit(`map_id=${c.mapId}&slug=${other.slug}&period=1H`, c.key);
    expect(conflict.status).toBe(400);
    expect(conflict.body.code).toBe('map_selector_conflict');
    const same = await audit(`map_id=${c.mapId}&slug=${c.slug}&period=1H`, c.key);
    expect(same.status).toBe(200);
    expectValidation(
      await (async () => {
        const r = await t.fetch(`/api/map/audit?slug=${c.slug}&period=1H&limit=0`, { token: c.key });
        return { status: r.status, body: await r.json(), text: '', headers: r.headers };
      })(),
      'limit',
    );
  });

  it('another map key gets 404 map_not_found, an ACL key and the admin token 401', async () => {
    const c = await freshMap(t);
    const other = await freshMap(t);
    const wrong = await audit(`slug=${c.slug}&period=1H`, other.key);
    expect(wrong.status).toBe(404);
    expect(wrong.body).toEqual({ error: 'Map not found', code: 'map_not_found' });
    const acl = await t.fetch(`/api/map/acls?map_id=${c.mapId}`, {
      method: 'POST',
      token: c.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ acl: { name: 'Audit', owner_eve_id: c.ownerEveId } }),
    });
    const aclKey = ((await acl.json()) as { data: { api_key: string } }).data.api_key;
    for (const token of [aclKey, ADMIN_TOKEN]) expect((await audit(`slug=${c.slug}&period=1H`, token)).status).toBe(401);
    // The ACL's creation is no map event; member events read as access_list entries.
    const entries = (await audit(`slug=${c.slug}&period=1H`, c.key)).body.data;
    expect(entries).toEqual([]);
  });
});
