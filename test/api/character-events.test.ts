/**
 * Character events through administration: tracking a character (`PUT /api/admin/maps/{map}/characters/{eve_id}`)
 * emits character_added, untracking or removing it character_removed, and a change of a tracked
 * character's public fields (`PUT /api/admin/characters`) one characters_updated per map that tracks it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestServer } from '../support/app.js';
import { makeCharacter } from '../support/factories.js';
import { freshMap, type Json, startEditServer } from '../support/map-edit.js';

let t: TestServer;

beforeAll(async () => {
  t = await startEditServer();
});
afterAll(async () => t?.close());

async function admin(method: string, path: string, body?: unknown) {
  const res = await t.fetch(`/api/admin${path}`, {
    method,
    token: ADMIN_TOKEN,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as { data: Json } };
}

describe('character events from administration', () => {
  it('track emits character_added, untrack and remove character_removed, each once', async () => {
    const c = await freshMap(t);
    const pilot = await makeCharacter(t.platform);
    const since = await c.mark();
    expect((await admin('PUT', `/maps/${c.slug}/characters/${pilot.eve_id}`, { tracked: true })).status).toBe(200);
    expect((await admin('PUT', `/maps/${c.slug}/characters/${pilot.eve_id}`, { tracked: true })).status).toBe(200);
    expect((await admin('PUT', `/maps/${c.slug}/characters/${pilot.eve_id}`, { tracked: false })).status).toBe(200);
    expect((await admin('PUT', `/maps/${c.slug}/characters/${pilot.eve_id}`, { tracked: true })).status).toBe(200);
    expect((await admin('DELETE', `/maps/${c.slug}/characters/${pilot.eve_id}`)).status).toBe(204);
    const events = await c.eventsSince(since, c.mapId);
    expect(events.map((e) => [e.type, e.payload.character_eve_id, e.payload.tracked])).toEqual([
      ['character_added', pilot.eve_id, true],
      ['character_removed', pilot.eve_id, false],
      ['character_added', pilot.eve_id, true],
      ['character_removed', pilot.eve_id, false],
    ]);
    expect(events[0]!.payload).toMatchObject({ name: pilot.name, corporation_id: pilot.corporation_id, ship_type_id: null, solar_system_id: null });
  });

  it('a changed tracked character emits characters_updated on each map that tracks it; an unchanged upsert emits nothing', async () => {
    const a = await freshMap(t);
    const b = await freshMap(t);
    const untracking = await freshMap(t);
    const pilot = await makeCharacter(t.platform);
    await admin('PUT', `/maps/${a.slug}/characters/${pilot.eve_id}`, { tracked: true });
    await admin('PUT', `/maps/${b.slug}/characters/${pilot.eve_id}`, { tracked: true });
    await admin('PUT', `/maps/${untracking.slug}/characters/${pilot.eve_id}`, { tracked: false });
    const since = await a.mark();
    const same = { eve_id: pilot.eve_id, name: pilot.name, corporation_id: pilot.corporation_id, corporation_ticker: pilot.corporation_ticker };
    expect((await admin('PUT', '/characters', { ...same, alliance_id: pilot.alliance_id, alliance_ticker: pilot.alliance_ticker })).status).toBe(200);
    expect(await a.eventsSince(since)).toEqual([]);
    expect((await admin('PUT', '/characters', { ...same, name: 'Renamed Pilot', alliance_id: null, alliance_ticker: null })).status).toBe(200);
    const events = await a.eventsSince(since);
    expect(events.map((e) => [e.map_id, e.type]).sort()).toEqual(
      [
        [a.mapId, 'characters_updated'],
        [b.mapId, 'characters_updated'],
      ].sort(),
    );
    const payload = events.find((e) => e.map_id === a.mapId)!.payload as { characters: Json[]; timestamp: string };
    expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(payload.characters).toEqual([expect.objectContaining({ character_eve_id: pilot.eve_id, name: 'Renamed Pilot', alliance_id: null, tracked: true })]);
  });
});
