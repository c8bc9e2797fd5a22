/**
 * Kills dated in the future are refused (they would outlive retention and hide every real kill of their
 * system), kill times are checked as stored (to the second), and a map key deletes one kill by its
 * killmail id, without an event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap, makeSystem } from '../support/factories.js';
import { editClient, expectValidation, killBody, SECONDS, type ErrorBody } from '../support/map-edit.js';

const SYSTEM = 30000142;
const MINUTE = 60_000;

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false' } });
  await importFixture(t.platform);
});
afterAll(async () => t?.close());

async function newMap() {
  const m = await makeMap(t.platform);
  await makeSystem(t.platform, m.map.id, SYSTEM);
  return { ...m, api: editClient(t, m.key, m.map.id) };
}

type KillsAnswer = { data: { solar_system_id: number; kills: { killmail_id: number; kill_time: string }[] }[] };

async function systemsKills(key: string, mapId: string): Promise<{ kills: { killmail_id: number; kill_time: string }[]; etag: string | null }> {
  const res = await t.fetch(`/api/map/systems-kills?map_id=${mapId}&hours=8760`, { token: key });
  expect(res.status).toBe(200);
  const body = (await res.json()) as KillsAnswer;
  return { kills: body.data.flatMap((s) => s.kills), etag: res.headers.get('etag') };
}

describe('kill_time in the future', () => {
  it('refuses a kill dated more than 5 minutes ahead with 400 naming the field, and stores nothing', async () => {
    const { api, map } = await newMap();
    const ahead = new Date(Date.now() + 10 * MINUTE).toISOString();
    expectValidation(await api.send('POST', '/kills', killBody(SYSTEM, 501, { kill_time: ahead })), 'kill_time', /5 minutes in the future/);
    const batch = await api.send('POST', '/kills', { kills: [killBody(SYSTEM, 502), killBody(SYSTEM, 503, { kill_time: '2099-01-01T00:00:00Z' })] });
    expectValidation(batch, 'kills[1].kill_time', /future/);
    expect((batch.body as unknown as ErrorBody).details).toHaveLength(1);
    expectValidation(await api.send('POST', '/kills', [killBody(SYSTEM, 504, { kill_time: ahead })]), '[0].kill_time');
    const rows = await api.sql<{ n: number }>('select count(*)::int as n from map_kills where map_id = ?', [map.id]);
    expect(rows[0]!.n).toBe(0);
  });

  it('refuses 9999-12-31T23:59:59.999Z (it would round to the year 10000) instead of storing it', async () => {
    const { api, map } = await newMap();
    for (const time of ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.5Z', '9999-12-31T23:59:59Z']) {
      expectValidation(await api.send('POST', '/kills', killBody(SYSTEM, 601, { kill_time: time })), 'kill_time');
    }
    const rows = await api.sql<{ n: number }>('select count(*)::int as n from map_kills where map_id = ?', [map.id]);
    expect(rows[0]!.n).toBe(0);
  });

  it('accepts a kill a little ahead (clock skew) and answers every kill time in RFC 3339 with seconds', async () => {
    const { api, map, key } = await newMap();
    const slightlyAhead = new Date(Math.floor((Date.now() + 2 * MINUTE) / 1000) * 1000 + 400);
    const res = await api.send('POST', '/kills', {
      kills: [
        killBody(SYSTEM, 701, { kill_time: slightlyAhead.toISOString() }),
        killBody(SYSTEM, 702, { kill_time: new Date(Date.now() - MINUTE).toISOString().replace(/\.\d+Z$/, '.999Z') }),
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ data: { inserted: 2, duplicates: 0 } });
    const { kills } = await systemsKills(key, map.id);
    expect(kills.map((k) => k.killmail_id).sort()).toEqual([701, 702]);
    for (const k of kills) expect(k.kill_time).toMatch(SECONDS);
    // Rounded to the second, as it is stored.
    expect(kills.find((k) => k.killmail_id === 701)!.kill_time).toBe(
      new Date(Math.floor(slightlyAhead.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    );
  });
});

describe('DELETE /api/maps/{map_id}/kills/{killmail_id}', () => {
  it('deletes the kill (204, empty), emits no event, and the reads and their ETag change at once', async () => {
    const { api, map, key } = await newMap();
    const recent = new Date(Date.now() - MINUTE).toISOString();
    expect(
      (await api.send('POST', '/kills', { kills: [killBody(SYSTEM, 801, { kill_time: recent }), killBody(SYSTEM, 802, { kill_time: recent })] })).status,
    ).toBe(200);
    const before = await systemsKills(key, map.id);
    expect(before.kills.map((k) => k.killmail_id).sort()).toEqual([801, 802]);

    const { result, events } = await api.withEvents(() => api.send('DELETE', '/kills/801'));
    expect(result.status, result.text).toBe(204);
    expect(result.text).toBe('');
    expect(events).toEqual([]);
    const after = await systemsKills(key, map.id);
    expect(after.kills.map((k) => k.killmail_id)).toEqual([802]);
    expect(after.etag).not.toBe(before.etag);

    // Gone: a second delete is 404, and an import of the same killmail stores it again (with its event).
    const again = await api.send('DELETE', '/kills/801');
    expect(again.status).toBe(404);
    expect((again.body as unknown as ErrorBody).code).toBe('kill_not_found');
    const reimport = await api.withEvents(() => api.send('POST', '/kills', killBody(SYSTEM, 801, { kill_time: recent })));
    expect(reimport.result.body).toEqual({ data: { inserted: 1, duplicates: 0 } });
    expect(reimport.events.map((e) => e.type)).toEqual(['map_kill']);
  });

  it("deletes only the key's own map's kill: another map's key gets 404 and the kill stays", async () => {
    const a = await newMap();
    const b = await newMap();
    expect((await a.api.send('POST', '/kills', killBody(SYSTEM, 901, { kill_time: new Date(Date.now() - MINUTE).toISOString() }))).status).toBe(200);
    // b's key on a's map: map_not_found; b's key on its own map: no such kill there.
    const foreign = await a.api.send('DELETE', '/kills/901', undefined, { token: b.key });
    expect(foreign.status).toBe(404);
    expect((foreign.body as unknown as ErrorBody).code).toBe('map_not_found');
    const own = await b.api.send('DELETE', '/kills/901');
    expect(own.status).toBe(404);
    expect((own.body as unknown as ErrorBody).code).toBe('kill_not_found');
    expect((await systemsKills(a.key, a.map.id)).kills.map((k) => k.killmail_id)).toEqual([901]);
  });

  it('refuses a killmail id that is not a positive integer with 400', async () => {
    const { api } = await newMap();
    for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      const res = await api.send('DELETE', `/kills/${id}`);
      expect(res.status, `${id}: ${res.text}`).toBe(400);
      expect((res.body as unknown as ErrorBody).code).toBe('validation_failed');
    }
  });
});
