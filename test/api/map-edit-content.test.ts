/**
 * Editing API, map content other than systems and connections: signatures (events), structures (no
 * events), kills (idempotent, map_kill), character tracking and activity counters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeCharacter, makeMap } from '../support/factories.js';
import {
  editClient,
  expectValidation,
  killBody,
  MICRO,
  SECONDS,
  SIGNATURE_KEYS,
  STRUCTURE_KEYS,
  UUID,
  type ErrorBody,
  type Json,
} from '../support/map-edit.js';

const JITA = 30000142;
const THERA = 31000005;
const J152820 = 31001880;
const MIAKIE = 30003539;

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false', SERVICE_RATE_LIMIT_PER_MINUTE: '10000' } });
  await importFixture(t.platform);
});
afterAll(async () => t?.close());

/** A new map with the given systems (added through the API) and a client for it. */
async function fresh(systems: number[] = [JITA, THERA]) {
  const m = await makeMap(t.platform);
  const c = editClient(t, m.key, m.map.slug);
  if (systems.length) {
    const res = await c.send('POST', '/systems', { systems: systems.map((solar_system_id) => ({ solar_system_id })) });
    expect(res.status, res.text).toBe(201);
  }
  return { ...c, mapId: m.map.id as string, slug: m.map.slug as string, key: m.key, ownerEveId: m.ownerEveId };
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

describe('POST /api/maps/{map_id}/kills', () => {
  it('stores a killmail: 200 {data: {inserted, duplicates}}, one map_kill; the kill reads back in the spec 2.6 shape', async () => {
    const c = await fresh();
    // Two days ago with milliseconds, which are dropped: inside the one-year window read back below, whatever today is.
    const at = new Date(Date.now() - 2 * 86_400_000);
    at.setUTCMilliseconds(400);
    const seconds = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const kill = killBody(JITA, 120_000_001, { kill_time: at.toISOString() });
    const { result, events } = await c.withEvents(() => c.send<{ data: Json }>('POST', '/kills', kill));
    expect(result.status, result.text).toBe(200);
    expect(result.body).toEqual({ data: { inserted: 1, duplicates: 0 } });
    expect(events.map((e) => [e.map_id, e.type, e.payload])).toEqual([
      [
        c.mapId,
        'map_kill',
        {
          killmail_id: 120_000_001,
          system_name: 'Jita',
          solar_system_id: JITA,
          kill_time: seconds,
          victim: { name: 'Victim', ship: 'Anathema', corporation: 'VICT' },
          value: 250_000_000.5,
        },
      ],
    ]);
    const read = await t.fetch(`/api/map/systems-kills?map_id=${c.mapId}&hours=8760`, { token: c.key });
    const entries = ((await read.json()) as { data: { solar_system_id: number; kills: Json[] }[] }).data;
    const stored = entries.find((e) => e.solar_system_id === JITA)!.kills;
    expect(stored).toEqual([{ ...kill, kill_time: seconds }]);
  });

  it('is idempotent by killmail_id: a repeat is counted as a duplicate, not stored twice, no second map_kill', async () => {
    const c = await fresh();
    await c.send('POST', '/kills', killBody(JITA, 120_000_010));
    const { result, events } = await c.withEvents(() => c.send('POST', '/kills', killBody(JITA, 120_000_010, { total_value: 1 })));
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ data: { inserted: 0, duplicates: 1 } });
    expect(events).toEqual([]);
    const rows = await c.sql<{ total_value: number }>('select total_value from map_kills where map_id = ? and killmail_id = ?', [c.mapId, 120_000_010]);
    expect(rows).toEqual([{ total_value: 250_000_000.5 }]);
  });

  it('accepts an array and {kills: [...]}: new ones stored with one map_kill each, repeats (also within the batch) counted', async () => {
    const c = await fresh();
    await c.send('POST', '/kills', killBody(THERA, 120_000_020));
    const arr = await c.withEvents(() =>
      c.send('POST', '/kills', [killBody(THERA, 120_000_020), killBody(THERA, 120_000_021), killBody(MIAKIE, 120_000_022, { victim_char_name: null })]),
    );
    expect(arr.result.body).toEqual({ data: { inserted: 2, duplicates: 1 } });
    expect(arr.events.map((e) => [e.type, e.payload.killmail_id, e.payload.system_name])).toEqual([
      ['map_kill', 120_000_021, 'Thera'],
      ['map_kill', 120_000_022, 'Miakie'],
    ]);
    expect(arr.events[1]!.payload.victim).toEqual({ name: null, ship: 'Anathema', corporation: 'VICT' });
    const wrapped = await c.withEvents(() =>
      c.send('POST', '/kills', { kills: [killBody(JITA, 120_000_030), killBody(JITA, 120_000_030), killBody(JITA, 120_000_021)] }),
    );
    expect(wrapped.result.body).toEqual({ data: { inserted: 1, duplicates: 2 } });
    expect(wrapped.events.map((e) => e.payload.killmail_id)).toEqual([120_000_030]);
    expect(new Set(arr.events.map((e) => e.xmin)).size).toBe(1);
  });

  it('refuses unknown solar systems (404) and malformed kills (400) without storing any kill of the request', async () => {
    const c = await fresh();
    const since = await c.mark();
    const unknown = await c.send('POST', '/kills', { kills: [killBody(JITA, 120_000_040), killBody(12345, 120_000_041)] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      error: 'Solar system not found',
      code: 'solar_system_not_found',
      details: [{ field: 'kills[1].solar_system_id', message: '12345 is not a known solar system' }],
    });
    const { zkb: _zkb, ...noZkb } = killBody(JITA, 120_000_042);
    expectValidation(await c.send('POST', '/kills', noZkb), 'zkb', /required/);
    expectValidation(await c.send('POST', '/kills', killBody(JITA, 120_000_043, { kill_time: 'yesterday' })), 'kill_time');
    expectValidation(await c.send('POST', '/kills', killBody(JITA, 120_000_044, { killmail_id: 1.5 })), 'killmail_id');
    expectValidation(await c.send('POST', '/kills', killBody(JITA, 120_000_045, { total_value: -1 })), 'total_value');
    expectValidation(await c.send('POST', '/kills', killBody(JITA, 120_000_046, { victim_name: 'x' })), 'victim_name', /excess/);
    expectValidation(
      await c.send('POST', '/kills', killBody(JITA, 120_000_047, { zkb: { ...(killBody(JITA, 1).zkb as Json), href: 'x' } })),
      'zkb.href',
      /excess/,
    );
    expectValidation(await c.send('POST', '/kills', [killBody(JITA, 120_000_048), killBody(JITA, 120_000_049, { npc: 'no' })]), '[1].npc');
    expectValidation(await c.send('POST', '/kills', { kills: [] }), 'kills', /minItems/);
    expectValidation(await c.send('POST', '/kills', []), 'body');
    expect(await c.eventsSince(since)).toEqual([]);
    expect(await c.sql('select id from map_kills where map_id = ?', [c.mapId])).toEqual([]);
  });
});

describe('PUT /api/maps/{map_id}/tracked-characters/{eve_id}', () => {
  it('tracks and untracks a known character: 200 tracked character entry, listed by GET; no event', async () => {
    const c = await fresh([]);
    const pilot = await makeCharacter(t.platform, { alliance_id: null, alliance_ticker: null });
    const since = await c.mark();
    const on = await c.send<{ data: Json }>('PUT', `/tracked-characters/${pilot.eve_id}`, { tracked: true });
    expect(on.status, on.text).toBe(200);
    expect(on.body.data).toEqual({
      id: expect.stringMatching(UUID),
      character: {
        eve_id: pilot.eve_id,
        name: pilot.name,
        corporation_id: pilot.corporation_id,
        corporation_ticker: pilot.corporation_ticker,
        alliance_id: null,
        alliance_ticker: null,
      },
      tracked: true,
      map_id: c.mapId,
    });
    const off = await c.send<{ data: Json }>('PUT', `/tracked-characters/${pilot.eve_id}`, { tracked: false });
    expect(off.body.data).toEqual({ ...on.body.data, tracked: false });
    const listed = await c.send<{ data: Json[] }>('GET', '/tracked-characters');
    expect(listed.body.data).toEqual([off.body.data]);
    expect(await c.eventsSince(since)).toEqual([]);
  });

  it('answers 404 character_not_found for an unknown eve_id and 400 for a bad body', async () => {
    const c = await fresh([]);
    const res = await c.send('PUT', '/tracked-characters/999999999999', { tracked: true });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Character not found', code: 'character_not_found' });
    const pilot = await makeCharacter(t.platform);
    expectValidation(await c.send('PUT', `/tracked-characters/${pilot.eve_id}`, { tracked: 'yes' }), 'tracked');
    expectValidation(await c.send('PUT', `/tracked-characters/${pilot.eve_id}`, {}), 'tracked', /required/);
    expectValidation(await c.send('PUT', `/tracked-characters/${pilot.eve_id}`, { tracked: true, main: true }), 'main', /excess/);
    expect(await c.sql('select id from map_characters where map_id = ?', [c.mapId])).toEqual([]);
  });
});

describe('POST /api/maps/{map_id}/character-activity', () => {
  it("adds to today's counters of the key's character by default, or of character_eve_id", async () => {
    const c = await fresh([]);
    const first = await c.send<{ data: Json }>('POST', '/character-activity', { passages: 2, signatures: 1 });
    expect(first.status, first.text).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(first.body.data).toEqual({
      character: expect.objectContaining({ eve_id: c.ownerEveId }),
      day: today,
      passages: 2,
      connections: 0,
      signatures: 1,
      timestamp: expect.stringMatching(SECONDS),
    });
    const second = await c.send<{ data: Json }>('POST', '/character-activity', { passages: 3, connections: 4 });
    expect(second.body.data).toMatchObject({ passages: 5, connections: 4, signatures: 1 });
    const pilot = await makeCharacter(t.platform);
    const theirs = await c.send<{ data: Json }>('POST', '/character-activity', { character_eve_id: pilot.eve_id, connections: 1 });
    expect(theirs.body.data).toMatchObject({ character: expect.objectContaining({ eve_id: pilot.eve_id }), passages: 0, connections: 1, signatures: 0 });
    const read = await t.fetch(`/api/map/character-activity?map_id=${c.mapId}`, { token: c.key });
    const rows = ((await read.json()) as { data: { character: { eve_id: string }; passages: number; connections: number; signatures: number }[] }).data;
    expect(rows.map((r) => [r.character.eve_id, r.passages, r.connections, r.signatures])).toEqual([
      [c.ownerEveId, 5, 4, 1],
      [pilot.eve_id, 0, 1, 0],
    ]);
  });

  it('saturates at 2147483647 and refuses negative, oversized, fractional or all-zero increments', async () => {
    const c = await fresh([]);
    await c.send('POST', '/character-activity', { passages: 1 });
    await c.sql('update character_activity set passages = 2147480000 where map_id = ?', [c.mapId]);
    const capped = await c.send<{ data: Json }>('POST', '/character-activity', { passages: 10000 });
    expect(capped.body.data).toMatchObject({ passages: 2147483647 });
    expectValidation(await c.send('POST', '/character-activity', { passages: -1 }), 'passages');
    expectValidation(await c.send('POST', '/character-activity', { connections: 10001 }), 'connections', 'max 10000');
    expectValidation(await c.send('POST', '/character-activity', { signatures: 0.5 }), 'signatures');
    expectValidation(
      await c.send('POST', '/character-activity', { passages: 0 }),
      'body',
      'at least one of passages, connections, signatures must be positive',
    );
    expectValidation(await c.send('POST', '/character-activity', { jumps: 1 }), 'jumps', /excess/);
    const unknown = await c.send('POST', '/character-activity', { character_eve_id: '999999999999', passages: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Character not found', code: 'character_not_found' });
    const rows = await c.sql<{ passages: number }>('select passages from character_activity where map_id = ?', [c.mapId]);
    expect(rows).toEqual([{ passages: 2147483647 }]);
  });
});
