/**
 * Editing API, signatures (events) and structures (no events) of a map.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import { makeCharacter } from '../support/factories.js';
import {
  type ErrorBody,
  expectValidation,
  freshMap,
  J152820,
  JITA,
  type Json,
  MICRO,
  SIGNATURE_KEYS,
  startEditServer,
  STRUCTURE_KEYS,
  THERA,
  UUID,
} from '../support/map-edit.js';

let t: TestServer;

beforeAll(async () => {
  t = await startEditServer();
});
afterAll(async () => t?.close());

/** A new map with the given systems (added through the API) and a client for it. */
async function fresh(systems: number[] = [JITA, THERA]) {
  return freshMap(t, { systems });
}

describe('PUT /api/maps/{map_id}/systems/{solar_system_id}/signatures', () => {
  it('adds signatures: signature_added each, then one signatures_updated; ids upper-cased, attributed to the key', async () => {
    const c = await fresh();
    const { result, events } = await c.withEvents(() =>
      c.send<{ data: Json }>('PUT', `/systems/${THERA}/signatures`, {
        signatures: [
          { signature_id: 'abc-123', name: 'Unstable Wormhole', kind: 'Cosmic Signature', group: 'Wormhole', type: 'K162', linked_system_id: JITA },
          { signature_id: 'XYZ-789', kind: 'Cosmic Signature', description: 'data?' },
        ],
      }),
    );
    expect(result.status, result.text).toBe(200);
    const data = result.body.data as { signatures: Json[] } & Json;
    expect(Object.keys(data).sort()).toEqual(['added_count', 'removed_count', 'signatures', 'solar_system_id', 'updated_count']);
    expect(data).toMatchObject({ solar_system_id: THERA, added_count: 2, updated_count: 0, removed_count: 0 });
    expect(data.signatures).toHaveLength(2);
    for (const s of data.signatures) expect(Object.keys(s).sort()).toEqual(SIGNATURE_KEYS);
    expect(data.signatures[0]).toEqual({
      id: expect.stringMatching(UUID),
      solar_system_id: THERA,
      signature_id: 'ABC-123',
      name: 'Unstable Wormhole',
      kind: 'Cosmic Signature',
      group: 'Wormhole',
      type: 'K162',
      description: null,
      character_eve_id: c.ownerEveId,
      linked_system_id: JITA,
      inserted_at: expect.stringMatching(MICRO),
      updated_at: expect.stringMatching(MICRO),
    });
    expect(data.signatures[1]).toMatchObject({ signature_id: 'XYZ-789', name: null, group: null, description: 'data?', linked_system_id: null });
    expect(events.map((e) => [e.map_id, e.type, e.payload])).toEqual([
      [
        c.mapId,
        'signature_added',
        {
          solar_system_id: THERA,
          signature_id: 'ABC-123',
          name: 'Unstable Wormhole',
          kind: 'Cosmic Signature',
          group: 'Wormhole',
          type: 'K162',
          character_eve_id: c.ownerEveId,
        },
      ],
      [
        c.mapId,
        'signature_added',
        { solar_system_id: THERA, signature_id: 'XYZ-789', name: null, kind: 'Cosmic Signature', group: null, type: null, character_eve_id: c.ownerEveId },
      ],
      [c.mapId, 'signatures_updated', { solar_system_id: THERA, added_count: 2, updated_count: 0, removed_count: 0 }],
    ]);
    expect(new Set(events.map((e) => e.xmin)).size).toBe(1);
  });

  it('updates, adds and (with replace) removes in one batch; omitted fields are kept, null clears', async () => {
    const c = await fresh();
    await c.send('PUT', `/systems/${THERA}/signatures`, {
      signatures: [
        { signature_id: 'AAA-111', name: 'Keep me', group: 'Data Site', description: 'notes' },
        { signature_id: 'BBB-222', group: 'Gas Site' },
        { signature_id: 'CCC-333', group: 'Relic Site' },
      ],
    });
    const other = await makeCharacter(t.platform);
    const issued = await t.platform.admin.issueKey(c.mapId, { character_eve_id: other.eve_id });
    const { result, events } = await c.withEvents(() =>
      c.send<{ data: { signatures: Json[] } & Json }>(
        'PUT',
        `/systems/${THERA}/signatures`,
        {
          replace: true,
          signatures: [
            { signature_id: 'aaa-111', group: 'Relic Site', description: null },
            { signature_id: 'BBB-222', group: 'Gas Site' },
            { signature_id: 'DDD-444', kind: 'Cosmic Anomaly' },
          ],
        },
        { token: issued.api_key },
      ),
    );
    expect(result.status, result.text).toBe(200);
    expect(result.body.data).toMatchObject({ added_count: 1, updated_count: 1, removed_count: 1 });
    const byId = Object.fromEntries(result.body.data.signatures.map((s) => [s.signature_id, s]));
    expect(Object.keys(byId)).toEqual(['AAA-111', 'BBB-222', 'DDD-444']);
    expect(byId['AAA-111']).toMatchObject({ name: 'Keep me', group: 'Relic Site', description: null, character_eve_id: other.eve_id });
    expect(byId['BBB-222']).toMatchObject({ group: 'Gas Site', character_eve_id: c.ownerEveId });
    expect(byId['DDD-444']).toMatchObject({ kind: 'Cosmic Anomaly', character_eve_id: other.eve_id });
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      [
        'signature_added',
        { solar_system_id: THERA, signature_id: 'DDD-444', name: null, kind: 'Cosmic Anomaly', group: null, type: null, character_eve_id: other.eve_id },
      ],
      ['signature_removed', { solar_system_id: THERA, signature_id: 'CCC-333' }],
      ['signatures_updated', { solar_system_id: THERA, added_count: 1, updated_count: 1, removed_count: 1 }],
    ]);
  });

  it('a batch that changes nothing emits nothing; replace with an empty list removes every signature', async () => {
    const c = await fresh();
    await c.send('PUT', `/systems/${JITA}/signatures`, { signatures: [{ signature_id: 'QQQ-001', name: 'x' }, { signature_id: 'QQQ-002' }] });
    const same = await c.withEvents(() =>
      c.send<{ data: Json }>('PUT', `/systems/${JITA}/signatures`, { signatures: [{ signature_id: 'qqq-001', name: 'x' }] }),
    );
    expect(same.result.status).toBe(200);
    expect(same.result.body.data).toMatchObject({ added_count: 0, updated_count: 0, removed_count: 0 });
    expect(same.events).toEqual([]);
    const wipe = await c.withEvents(() => c.send<{ data: Json }>('PUT', `/systems/${JITA}/signatures`, { signatures: [], replace: true }));
    expect(wipe.result.body.data).toEqual({ solar_system_id: JITA, added_count: 0, updated_count: 0, removed_count: 2, signatures: [] });
    expect(wipe.events.map((e) => [e.type, e.payload])).toEqual([
      ['signature_removed', { solar_system_id: JITA, signature_id: 'QQQ-001' }],
      ['signature_removed', { solar_system_id: JITA, signature_id: 'QQQ-002' }],
      ['signatures_updated', { solar_system_id: JITA, added_count: 0, updated_count: 0, removed_count: 2 }],
    ]);
  });

  it('refuses bad batches (400), unknown systems and links (404), writing nothing', async () => {
    const c = await fresh();
    await c.send('PUT', `/systems/${THERA}/signatures`, { signatures: [{ signature_id: 'KEP-001' }] });
    const since = await c.mark();
    const put = (body: unknown, sid = THERA) => c.send<ErrorBody>('PUT', `/systems/${sid}/signatures`, body);
    expectValidation(await put({ signatures: [{ signature_id: 'AB-123' }] }), 'signatures[0].signature_id', /Not match/);
    expectValidation(await put({ signatures: [{ signature_id: 'ABC-1234' }] }), 'signatures[0].signature_id');
    expectValidation(
      await put({ signatures: [{ signature_id: 'ABC-123' }, { signature_id: 'abc-123' }] }),
      'signatures[1].signature_id',
      'ABC-123 is listed more than once',
    );
    expectValidation(await put({ signatures: [{ signature_id: 'ABC-123', strength: 5 }] }), 'signatures[0].strength', /excess/);
    expectValidation(await put({ signatures: [{ signature_id: 'ABC-123', name: 'n'.repeat(256) }] }), 'signatures[0].name');
    expectValidation(await put({ signatures: [{ signature_id: 'ABC-123', linked_system_id: 'Jita' }] }), 'signatures[0].linked_system_id');
    expectValidation(await put({ signatures: [{ signature_id: 'ABC-123' }], replace: 'yes' }), 'replace');
    expectValidation(await put({ replace: true }), 'signatures', /required/);
    expectValidation(
      await put({ signatures: Array.from({ length: 501 }, (_, i) => ({ signature_id: `ABC-${String(i % 1000).padStart(3, '0')}` })) }),
      'signatures',
      /maxItems/,
    );
    const link = await put({ signatures: [{ signature_id: 'ABC-123' }, { signature_id: 'ABC-124', linked_system_id: J152820 }] });
    expect(link.status).toBe(404);
    expect(link.body).toEqual({
      error: 'System not found',
      code: 'system_not_found',
      details: [{ field: 'signatures[1].linked_system_id', message: `${J152820} is not a system on this map` }],
    });
    const notOnMap = await put({ signatures: [{ signature_id: 'ABC-123' }] }, J152820);
    expect(notOnMap.status).toBe(404);
    expect(notOnMap.body).toEqual({ error: 'System not found', code: 'system_not_found' });
    expect(await c.eventsSince(since)).toEqual([]);
    expect((await c.sql<{ eve_id: string }>('select eve_id from map_signatures where map_id = ?', [c.mapId])).map((r) => r.eve_id)).toEqual(['KEP-001']);
  });

  it('DELETE …/signatures/{signature_id}: 204 and signature_removed; unknown 404 signature_not_found', async () => {
    const c = await fresh();
    await c.send('PUT', `/systems/${THERA}/signatures`, { signatures: [{ signature_id: 'DEL-001' }, { signature_id: 'DEL-002' }] });
    const { result, events } = await c.withEvents(() => c.send('DELETE', `/systems/${THERA}/signatures/del-001`));
    expect(result.status).toBe(204);
    expect(result.text).toBe('');
    expect(events.map((e) => [e.map_id, e.type, e.payload])).toEqual([[c.mapId, 'signature_removed', { solar_system_id: THERA, signature_id: 'DEL-001' }]]);
    const since = await c.mark();
    for (const path of [`/systems/${THERA}/signatures/DEL-001`, `/systems/${THERA}/signatures/not-a-sig`, `/systems/${JITA}/signatures/DEL-002`]) {
      const res = await c.send('DELETE', path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Signature not found', code: 'signature_not_found' });
    }
    expect((await c.send('DELETE', `/systems/${J152820}/signatures/DEL-002`)).body).toEqual({ error: 'System not found', code: 'system_not_found' });
    expect(await c.eventsSince(since)).toEqual([]);
  });

  it('GET /signatures lists the visible systems’ signatures, optionally of one system', async () => {
    const c = await fresh([JITA, THERA, J152820]);
    await c.send('PUT', `/systems/${THERA}/signatures`, { signatures: [{ signature_id: 'THR-002' }, { signature_id: 'THR-001' }] });
    await c.send('PUT', `/systems/${JITA}/signatures`, { signatures: [{ signature_id: 'JTA-001' }] });
    await c.send('PUT', `/systems/${J152820}/signatures`, { signatures: [{ signature_id: 'HID-001' }] });
    expect((await c.send('DELETE', `/systems/${J152820}`)).status).toBe(204);
    const all = await c.send<{ data: Json[] }>('GET', '/signatures');
    expect(all.status).toBe(200);
    expect(all.body.data.map((s) => [s.solar_system_id, s.signature_id])).toEqual([
      [JITA, 'JTA-001'],
      [THERA, 'THR-001'],
      [THERA, 'THR-002'],
    ]);
    for (const s of all.body.data) expect(Object.keys(s).sort()).toEqual(SIGNATURE_KEYS);
    const one = await c.send<{ data: Json[] }>('GET', `/signatures?solar_system_id=${THERA}`);
    expect(one.body.data.map((s) => s.signature_id)).toEqual(['THR-001', 'THR-002']);
    expectValidation(await c.send('GET', '/signatures?solar_system_id=abc'), 'solar_system_id');
  });
});

describe('structures: POST /structures, PUT and DELETE /structures/{id}', () => {
  const astrahus = { solar_system_id: JITA, structure_type_id: '35832', structure_type: 'Astrahus', name: 'Hostile Astrahus' };

  it('creates a structure: 201 {data: structure timer} attributed to the key, no event', async () => {
    const c = await fresh();
    const { result, events } = await c.withEvents(() =>
      c.send<{ data: Json }>('POST', '/structures', {
        ...astrahus,
        status: 'Reinforced',
        end_time: '2030-01-02T03:04:05Z',
        notes: 'armor timer',
        owner_name: 'Oops Corp',
        owner_ticker: 'OOPS',
        owner_id: '98000777',
      }),
    );
    expect(result.status, result.text).toBe(201);
    const s = result.body.data;
    expect(Object.keys(s).sort()).toEqual(STRUCTURE_KEYS);
    const [jita] = await c.sql<{ id: string }>('select id from map_systems where map_id = ? and solar_system_id = ?', [c.mapId, JITA]);
    expect(s).toEqual({
      id: expect.stringMatching(UUID),
      system_id: jita!.id,
      solar_system_id: JITA,
      solar_system_name: 'Jita',
      structure_type_id: '35832',
      structure_type: 'Astrahus',
      character_eve_id: c.ownerEveId,
      name: 'Hostile Astrahus',
      notes: 'armor timer',
      owner_name: 'Oops Corp',
      owner_ticker: 'OOPS',
      owner_id: '98000777',
      status: 'Reinforced',
      end_time: '2030-01-02T03:04:05.000000Z',
      inserted_at: expect.stringMatching(MICRO),
      updated_at: expect.stringMatching(MICRO),
    });
    expect(events).toEqual([]);
    const listed = await c.send<{ data: Json[] }>('GET', '/structures');
    expect(listed.body.data).toEqual([s]);
    const timers = await c.send<{ data: Json[] }>('GET', '/structure-timers');
    expect(timers.body.data).toEqual([s]);
  });

  it('defaults to Powered without a timer; refuses bad input (400) and systems not on the map (404)', async () => {
    const c = await fresh();
    const plain = await c.send<{ data: Json }>('POST', '/structures', astrahus);
    expect(plain.status).toBe(201);
    expect(plain.body.data).toMatchObject({ status: 'Powered', end_time: null, notes: null });
    expectValidation(
      await c.send('POST', '/structures', { ...astrahus, status: 'Exploded' }),
      'status',
      "must be one of 'Powered', 'Anchoring', 'Unanchoring', 'Low Power', 'Abandoned', 'Reinforced'",
    );
    expectValidation(await c.send('POST', '/structures', { ...astrahus, status: 'reinforced' }), 'status');
    expectValidation(await c.send('POST', '/structures', { ...astrahus, end_time: 'tomorrow' }), 'end_time', 'must be an RFC 3339 date-time or null');
    expectValidation(await c.send('POST', '/structures', { ...astrahus, end_time: 1767225600 }), 'end_time');
    expectValidation(await c.send('POST', '/structures', { ...astrahus, name: '' }), 'name');
    expectValidation(await c.send('POST', '/structures', { ...astrahus, owner_ticker: 'T'.repeat(17) }), 'owner_ticker');
    expectValidation(await c.send('POST', '/structures', { ...astrahus, fuel: 3 }), 'fuel', /excess/);
    expectValidation(await c.send('POST', '/structures', { solar_system_id: JITA, structure_type: 'Astrahus', name: 'x' }), 'structure_type_id', /required/);
    const missing = await c.send('POST', '/structures', { ...astrahus, solar_system_id: J152820 });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: 'System not found',
      code: 'system_not_found',
      details: [{ field: 'solar_system_id', message: `${J152820} is not a system on this map` }],
    });
    expect(await c.sql('select id from map_structures where map_id = ?', [c.mapId])).toHaveLength(1);
  });

  it('updates given fields (null clears, solar_system_id moves it) and deletes; no events', async () => {
    const c = await fresh();
    const created = (await c.send<{ data: Json }>('POST', '/structures', { ...astrahus, notes: 'n', end_time: '2030-01-01T00:00:00Z', status: 'Anchoring' }))
      .body.data;
    const other = await makeCharacter(t.platform);
    const issued = await t.platform.admin.issueKey(c.mapId, { character_eve_id: other.eve_id });
    const since = await c.mark();
    const res = await c.send<{ data: Json }>(
      'PUT',
      `/structures/${created.id}`,
      { solar_system_id: THERA, notes: null, status: 'Reinforced', end_time: null },
      { token: issued.api_key },
    );
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(STRUCTURE_KEYS);
    expect(res.body.data).toMatchObject({
      id: created.id,
      solar_system_id: THERA,
      solar_system_name: 'Thera',
      notes: null,
      status: 'Reinforced',
      end_time: null,
      name: 'Hostile Astrahus',
      character_eve_id: other.eve_id,
    });
    expect(res.body.data.system_id).not.toBe(created.system_id);
    expectValidation(await c.send('PUT', `/structures/${created.id}`, { status: 'Gone' }), 'status');
    expectValidation(await c.send('PUT', `/structures/${created.id}`, { name: null }), 'name');
    expect((await c.send('PUT', `/structures/${created.id}`, { solar_system_id: J152820 })).status).toBe(404);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      const r = await c.send('PUT', `/structures/${id}`, { name: 'x' });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ error: 'Structure not found', code: 'structure_not_found' });
    }
    const del = await c.send('DELETE', `/structures/${created.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await c.send('DELETE', `/structures/${created.id}`)).status).toBe(404);
    expect(await c.eventsSince(since)).toEqual([]);
    expect((await c.send<{ data: Json[] }>('GET', '/structures')).body.data).toEqual([]);
  });
});
