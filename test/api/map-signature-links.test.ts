/**
 * Editing API: linking a signature to the system it leads to (`POST`/`DELETE
 * /api/maps/{map_id}/signatures/{id}/link`): the signature answered, stored state, the
 * `signatures_updated` event, errors and access by key kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestServer } from '../support/app.js';
import {
  addConnection,
  EGBINGER,
  type ErrorBody,
  expectValidation,
  freshMap,
  J152820,
  JITA,
  type Json,
  MICRO,
  SIGNATURE_KEYS,
  startEditServer,
  THERA,
} from '../support/map-edit.js';

let t: TestServer;

beforeAll(async () => {
  t = await startEditServer();
});
afterAll(async () => t?.close());

/** A map with Thera→J152820 and a data signature ABC-123 in Thera; the signature's record id. */
async function withSignature() {
  const c = await freshMap(t, { systems: [THERA, J152820, JITA] });
  await addConnection(c, { solar_system_source: THERA, solar_system_target: J152820 });
  const put = await c.send<{ data: { signatures: Json[] } }>('PUT', `/systems/${THERA}/signatures`, {
    signatures: [{ signature_id: 'ABC-123', group: 'Data Site', type: 'H296' }],
  });
  expect(put.status, put.text).toBe(200);
  return { c, id: put.body.data.signatures[0]!.id as string };
}

describe('POST /api/maps/{map_id}/signatures/{id}/link', () => {
  it('sets linked_system_id and group Wormhole, answers the signature and emits signatures_updated for its system', async () => {
    const { c, id } = await withSignature();
    const { result, events } = await c.withEvents(() => c.send<{ data: Json }>('POST', `/signatures/${id}/link`, { solar_system_target: J152820 }));
    expect(result.status, result.text).toBe(200);
    expect(Object.keys(result.body.data).sort()).toEqual(SIGNATURE_KEYS);
    expect(result.body.data).toEqual({
      id,
      solar_system_id: THERA,
      signature_id: 'ABC-123',
      name: null,
      kind: null,
      group: 'Wormhole',
      type: 'H296',
      description: null,
      character_eve_id: c.ownerEveId,
      linked_system_id: J152820,
      inserted_at: expect.stringMatching(MICRO),
      updated_at: expect.stringMatching(MICRO),
    });
    expect(events.map((e) => [e.map_id, e.type, e.payload])).toEqual([
      [c.mapId, 'signatures_updated', { solar_system_id: THERA, added_count: 0, updated_count: 1, removed_count: 0 }],
    ]);
    const listed = await c.send<{ data: Json[] }>('GET', `/signatures?solar_system_id=${THERA}`);
    expect(listed.body.data[0]).toMatchObject({ id, linked_system_id: J152820, group: 'Wormhole' });

    const again = await c.withEvents(() => c.send('POST', `/signatures/${id}/link`, { solar_system_target: J152820 }));
    expect(again.result.status).toBe(200);
    expect(again.events).toEqual([]);
    const relinked = await c.withEvents(() => c.send<{ data: Json }>('POST', `/signatures/${id}/link`, { solar_system_target: JITA }));
    expect(relinked.result.body.data.linked_system_id).toBe(JITA);
    expect(relinked.events.map((e) => e.type)).toEqual(['signatures_updated']);
  });

  it('a target not on the map, or the signature’s own system, is 404 system_not_found naming solar_system_target; nothing changes', async () => {
    const { c, id } = await withSignature();
    const since = await c.mark();
    for (const [target, message] of [
      [EGBINGER, `${EGBINGER} is not a system on this map`],
      [THERA, `${THERA} is the signature’s own system`],
    ] as const) {
      const res = await c.send<ErrorBody>('POST', `/signatures/${id}/link`, { solar_system_target: target });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'System not found', code: 'system_not_found', details: [{ field: 'solar_system_target', message }] });
    }
    expect(await c.eventsSince(since)).toEqual([]);
    const stored = await c.sql<{ linked_system_id: number | null; group_name: string }>(
      'select linked_system_id, group_name from map_signatures where id = ?',
      [id],
    );
    expect(stored).toEqual([{ linked_system_id: null, group_name: 'Data Site' }]);
  });

  it('an unknown or malformed signature id, or one of a hidden system, is 404 signature_not_found', async () => {
    const { c, id } = await withSignature();
    for (const bad of ['00000000-0000-4000-8000-000000000000', 'ABC-123']) {
      const res = await c.send('POST', `/signatures/${bad}/link`, { solar_system_target: J152820 });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Signature not found', code: 'signature_not_found' });
    }
    expect((await c.send('DELETE', `/systems/${THERA}`)).status).toBe(204);
    const hidden = await c.send<ErrorBody>('POST', `/signatures/${id}/link`, { solar_system_target: J152820 });
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe('signature_not_found');
  });

  it('answers 400 validation_failed without solar_system_target or with a non-integer one', async () => {
    const { c, id } = await withSignature();
    expectValidation(await c.send('POST', `/signatures/${id}/link`, {}), 'solar_system_target');
    expectValidation(await c.send('POST', `/signatures/${id}/link`, { solar_system_target: 'x' }), 'solar_system_target');
    expectValidation(await c.send('POST', `/signatures/${id}/link`, { solar_system_target: 1.5 }), 'solar_system_target');
  });
});

describe('DELETE /api/maps/{map_id}/signatures/{id}/link', () => {
  it('clears linked_system_id (group kept), emits signatures_updated; a second unlink is 409 signature_not_linked', async () => {
    const { c, id } = await withSignature();
    await c.send('POST', `/signatures/${id}/link`, { solar_system_target: J152820 });
    const { result, events } = await c.withEvents(() => c.send<{ data: Json }>('DELETE', `/signatures/${id}/link`));
    expect(result.status, result.text).toBe(200);
    expect(result.body.data).toMatchObject({ id, linked_system_id: null, group: 'Wormhole', solar_system_id: THERA });
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      ['signatures_updated', { solar_system_id: THERA, added_count: 0, updated_count: 1, removed_count: 0 }],
    ]);
    const again = await c.withEvents(() => c.send('DELETE', `/signatures/${id}/link`));
    expect(again.result.status).toBe(409);
    expect(again.result.body).toEqual({ error: 'Signature is not linked to a system', code: 'signature_not_linked' });
    expect(again.events).toEqual([]);
  });
});

describe('signature links: access by key kind', () => {
  it('another map key gets 404 map_not_found, an ACL key and the admin token 401; nothing changes', async () => {
    const { c, id } = await withSignature();
    const other = await freshMap(t);
    const acl = await t.fetch(`/api/map/acls?map_id=${c.mapId}`, {
      method: 'POST',
      token: c.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ acl: { name: 'Links', owner_eve_id: c.ownerEveId } }),
    });
    const aclKey = ((await acl.json()) as { data: { api_key: string } }).data.api_key;
    const since = await c.mark();
    for (const [method, body] of [
      ['POST', { solar_system_target: J152820 }],
      ['DELETE', undefined],
    ] as const) {
      const wrong = await c.send(method, `/signatures/${id}/link`, body, { token: other.key });
      expect(wrong.status).toBe(404);
      expect(wrong.body).toEqual({ error: 'Map not found', code: 'map_not_found' });
      for (const token of [aclKey, ADMIN_TOKEN]) expect((await c.send(method, `/signatures/${id}/link`, body, { token })).status).toBe(401);
    }
    expect(await c.eventsSince(since)).toEqual([]);
  });
});
