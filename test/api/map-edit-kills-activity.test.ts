/**
 * Editing API, map content other than systems, connections, signatures and structures: kills
 * (idempotent, map_kill), character tracking and activity counters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import { makeCharacter } from '../support/factories.js';
import { expectValidation, freshMap, JITA, type Json, killBody, MIAKIE, SECONDS, startEditServer, THERA, UUID } from '../support/map-edit.js';

let t: TestServer;

beforeAll(async () => {
  t = await startEditServer();
});
afterAll(async () => t?.close());

/** A new map with the given systems (added through the API) and a client for it. */
async function fresh(systems: number[] = [JITA, THERA]) {
  return freshMap(t, { systems });
}

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
  it('tracks and untracks a known character: 200 tracked character entry, listed by GET; character_added, then character_removed', async () => {
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
    const characterId = (await c.sql<{ id: string }>('select id from characters where eve_id = ?', [pilot.eve_id]))[0]!.id;
    const payload = {
      id: on.body.data.id,
      character_id: characterId,
      character_eve_id: pilot.eve_id,
      name: pilot.name,
      corporation_id: pilot.corporation_id,
      corporation_ticker: pilot.corporation_ticker,
      alliance_id: null,
      alliance_ticker: null,
      tracked: true,
      ship_type_id: null,
      ship_name: null,
      online: null,
      solar_system_id: null,
      structure_id: null,
      station_id: null,
    };
    expect((await c.eventsSince(since)).map((e) => [e.map_id, e.type, e.payload])).toEqual([
      [c.mapId, 'character_added', payload],
      [c.mapId, 'character_removed', { ...payload, tracked: false }],
    ]);
    // Setting the flag it already has emits nothing.
    const again = await c.mark();
    await c.send('PUT', `/tracked-characters/${pilot.eve_id}`, { tracked: false });
    expect(await c.eventsSince(again)).toEqual([]);
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
