/**
 * `POST /api/maps/{map_id}/duplicate`: the copy's shape and key, what it copies (and leaves behind when
 * asked), owner only, errors and access by key kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestServer } from '../support/app.js';
import { makeCharacter } from '../support/factories.js';
import { addConnection, type ErrorBody, expectValidation, freshMap, J152820, JITA, type Json, startEditServer, THERA, UUID } from '../support/map-edit.js';

let t: TestServer;

beforeAll(async () => {
  t = await startEditServer();
});
afterAll(async () => t?.close());

/** A map with three systems (Thera hidden, locked Jita), a connection, a structure, a signature and an ACL link. */
async function source() {
  const c = await freshMap(t, { systems: [JITA, THERA, J152820] });
  await c.send('PATCH', `/systems/${JITA}`, { locked: true, tag: 'HQ', position_x: 40 });
  const conn = await addConnection(c, { solar_system_source: JITA, solar_system_target: J152820, mass_status: 1, wormhole_type: 'K162' });
  await c.send('PUT', `/systems/${J152820}/signatures`, { signatures: [{ signature_id: 'ABC-123', group: 'Wormhole', linked_system_id: JITA }] });
  expect((await c.send('POST', '/structures', { solar_system_id: JITA, structure_type_id: '35832', structure_type: 'Astrahus', name: 'Home' })).status).toBe(
    201,
  );
  expect((await c.send('DELETE', `/systems/${THERA}`)).status).toBe(204);
  const acl = await t.fetch(`/api/map/acls?map_id=${c.mapId}`, {
    method: 'POST',
    token: c.key,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ acl: { name: 'Copy', owner_eve_id: c.ownerEveId } }),
  });
  expect(acl.status).toBe(200);
  const aclBody = (await acl.json()) as { data: { id: string; api_key: string } };
  return { c, conn, aclId: aclBody.data.id, aclKey: aclBody.data.api_key };
}

/** What a map holds, without ids and times. */
async function content(c: Awaited<ReturnType<typeof freshMap>>, mapId: string) {
  const q = (sql: string) => c.sql(sql, [mapId]);
  return {
    systems: await q('select solar_system_id, name, tag, locked, visible, position_x from map_systems where map_id = ? order by solar_system_id'),
    connections: await q('select solar_system_source, solar_system_target, mass_status, wormhole_type from map_connections where map_id = ?'),
    structures: await q(
      'select st.solar_system_id, st.name, s.map_id = st.map_id as own_system from map_structures st join map_systems s on s.id = st.system_id where st.map_id = ?',
    ),
    signatures: await q(
      'select sg.solar_system_id, sg.eve_id, sg.linked_system_id, s.map_id = sg.map_id as own_system from map_signatures sg join map_systems s on s.id = sg.system_id where sg.map_id = ?',
    ),
    acls: (await q('select acl_id from map_acls where map_id = ?')).length,
  };
}

describe('POST /api/maps/{map_id}/duplicate', () => {
  it('answers 201 {data: {id, name, slug, description, api_key}} and copies systems, connections, structures, signatures and ACL links', async () => {
    const { c } = await source();
    const since = await c.mark();
    const res = await c.send<{ data: Json }>('POST', '/duplicate', { name: 'Chain Copy!', description: 'for the weekend' });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(['api_key', 'description', 'id', 'name', 'slug']);
    expect(data).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Chain Copy!',
      slug: 'chain-copy',
      description: 'for the weekend',
      api_key: expect.stringMatching(/^mik_/),
    });
    const copied = await content(c, data.id as string);
    expect(copied).toEqual(await content(c, c.mapId));
    expect(copied.systems).toHaveLength(3);
    expect(copied.signatures).toEqual([{ solar_system_id: J152820, eve_id: 'ABC-123', linked_system_id: JITA, own_system: true }]);
    expect(copied.acls).toBe(1);
    expect(await c.eventsSince(since)).toEqual([]);

    // The key works on the copy (and only there), bound to the owner.
    const read = await t.fetch(`/api/maps/${data.slug as string}/systems?all=true`, { token: data.api_key as string });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { data: { systems: unknown[] } }).data.systems).toHaveLength(3);
    expect((await c.send('GET', '/systems', undefined, { token: data.api_key as string })).status).toBe(404);
    const owner = await c.sql<{ eve_id: string }>('select c.eve_id from maps m join characters c on c.id = m.owner_character_id where m.id = ?', [data.id]);
    expect(owner).toEqual([{ eve_id: c.ownerEveId }]);

    const second = await c.send<{ data: Json }>('POST', '/duplicate', { name: 'chain copy' });
    expect(second.status).toBe(201);
    expect(second.body.data).toMatchObject({ slug: 'chain-copy-2', description: null });
  });

  it('leaves signatures and ACL links behind when copy_signatures and copy_acls are false', async () => {
    const { c } = await source();
    const res = await c.send<{ data: Json }>('POST', '/duplicate', { name: 'Bare copy', copy_signatures: false, copy_acls: false, copy_user_settings: true });
    expect(res.status).toBe(201);
    const copied = await content(c, res.body.data.id as string);
    expect(copied.signatures).toEqual([]);
    expect(copied.acls).toBe(0);
    expect(copied.systems).toHaveLength(3);
    expect(copied.connections).toHaveLength(1);
    expect(copied.structures).toHaveLength(1);
  });

  it('a key of the map bound to another character is 403 not_map_owner, and no map is made', async () => {
    const { c } = await source();
    const pilot = await makeCharacter(t.platform);
    const issued = await t.platform.admin.issueKey(c.mapId, { character_eve_id: pilot.eve_id });
    const before = await c.sql('select count(*)::int as n from maps');
    const res = await c.send<ErrorBody>('POST', '/duplicate', { name: 'Not mine' }, { token: issued.api_key });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Only the map owner can duplicate maps', code: 'not_map_owner' });
    expect(await c.sql('select count(*)::int as n from maps')).toEqual(before);
  });

  it('answers 400 validation_failed for a missing, too short, too long or blank name and a non-boolean flag', async () => {
    const c = await freshMap(t);
    const before = await c.sql('select count(*)::int as n from maps');
    expectValidation(await c.send('POST', '/duplicate', {}), 'name');
    expectValidation(await c.send('POST', '/duplicate', { name: 'ab' }), 'name');
    expectValidation(await c.send('POST', '/duplicate', { name: 'x'.repeat(21) }), 'name');
    expectValidation(await c.send('POST', '/duplicate', { name: '     ' }), 'name');
    expectValidation(await c.send('POST', '/duplicate', { name: 'Fine name', copy_acls: 'yes' }), 'copy_acls');
    expect(await c.sql('select count(*)::int as n from maps')).toEqual(before);
  });

  it('another map key gets 404 map_not_found, an ACL key and the admin token 401', async () => {
    const { c, aclKey } = await source();
    const other = await freshMap(t);
    const wrong = await c.send('POST', '/duplicate', { name: 'Elsewhere' }, { token: other.key });
    expect(wrong.status).toBe(404);
    expect(wrong.body).toEqual({ error: 'Map not found', code: 'map_not_found' });
    for (const token of [aclKey, ADMIN_TOKEN]) expect((await c.send('POST', '/duplicate', { name: 'Elsewhere' }, { token })).status).toBe(401);
    expect(await c.sql("select count(*)::int as n from maps where slug like 'elsewhere%'")).toEqual([{ n: 0 }]);
  });
});
