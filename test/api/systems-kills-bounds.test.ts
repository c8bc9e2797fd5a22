/**
 * GET /api/map/systems-kills is bounded: the last 24 hours unless `hours` says otherwise, at most 100
 * kills per system and 1000 in all (the newest ones), in the spec's shape.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeKill, makeMap, makeSystem } from '../support/factories.js';

const HOUR = 3_600_000;
const SYSTEMS = [30000021, 30000142, 30000326, 30000619, 30002420, 30003539, 30004550, 31000005, 31000008, 31000356, 31000881, 31001361];

type KillEntry = { solar_system_id: number; kills: { killmail_id: number; kill_time: string }[] };

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false' } });
  await importFixture(t.platform);
});
afterAll(async () => t?.close());

const sql = <T>(query: string, params: unknown[] = []) => t.platform.orm.em.fork().getConnection().execute<T[]>(query, params);

/** `count` kills in one system, `ageMs(i)` old, killmail ids from `firstId` (bulk, no events). */
async function bulkKills(mapId: string, solarSystemId: number, firstId: number, count: number, ageMs: (i: number) => number): Promise<void> {
  const ages = Array.from({ length: count }, (_, i) => ageMs(i) / 1000);
  await sql(
    `insert into map_kills (map_id, killmail_id, kill_time, solar_system_id, attacker_count, npc, total_value, zkb)
     select ?, ? + i, now() - make_interval(secs => a), ?, 1, false, 1, '{"hash":"h"}'::jsonb
     from unnest(string_to_array(?, ',')::double precision[]) with ordinality as x(a, i)`,
    [mapId, firstId - 1, solarSystemId, ages.join(',')],
  );
}

async function kills(key: string, query: string): Promise<KillEntry[]> {
  const res = await t.fetch(`/api/map/systems-kills?${query}`, { token: key });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return (JSON.parse(text) as { data: KillEntry[] }).data;
}

describe('GET /api/map/systems-kills bounds', () => {
  it('answers the kills of the last 24 hours when hours is omitted; hours widens the window', async () => {
    const { map, key } = await makeMap(t.platform);
    await makeSystem(t.platform, map.id, 30000142);
    const recent = await makeKill(t.platform, map.id, 30000142, { killTime: new Date(Date.now() - 23 * HOUR) });
    const older = await makeKill(t.platform, map.id, 30000142, { killTime: new Date(Date.now() - 25 * HOUR) });
    expect(await kills(key, `map_id=${map.id}`)).toEqual([{ solar_system_id: 30000142, kills: [expect.objectContaining({ killmail_id: recent.killmailId })] }]);
    const wide = await kills(key, `map_id=${map.id}&hours=48`);
    expect(wide[0]!.kills.map((k) => k.killmail_id)).toEqual([recent.killmailId, older.killmailId]);
  });

  it('answers at most 100 kills per system and 1000 in all, the newest, still one entry per visible system', async () => {
    const { map, key } = await makeMap(t.platform);
    for (const s of SYSTEMS) await makeSystem(t.platform, map.id, s);
    // System n has 120 kills, its i-th one (n*120 + i) minutes old: system 0 holds the newest kills.
    for (const [n, s] of SYSTEMS.entries()) await bulkKills(map.id, s, 1_000_000 + n * 1000, 120, (i) => (n * 120 + i) * 60_000);

    const data = await kills(key, `map_id=${map.id}&hours=8760`);
    expect(data.map((e) => e.solar_system_id)).toEqual([...SYSTEMS].sort((a, b) => a - b));
    const per = Object.fromEntries(data.map((e) => [e.solar_system_id, e.kills.map((k) => k.killmail_id)]));
    // The first ten systems get their newest 100 each; the 1000 are spent before the last two.
    for (const [n, s] of SYSTEMS.entries()) {
      const expected = n < 10 ? Array.from({ length: 100 }, (_, i) => 1_000_000 + n * 1000 + i) : [];
      expect(per[s], String(s)).toEqual(expected);
    }
    expect(data.reduce((sum, e) => sum + e.kills.length, 0)).toBe(1000);

    // The large body (kept in chunks) reads the same from the cache as computed, byte for byte, with
    // its length and a tag over exactly those bytes; HEAD gives the headers alone.
    const path = `/api/map/systems-kills?map_id=${map.id}&hours=8760`;
    const miss = await t.fetch(`${path}&fresh=1`, { token: key });
    const hit = await t.fetch(`${path}&fresh=1`, { token: key });
    const [a, b] = [Buffer.from(await miss.arrayBuffer()), Buffer.from(await hit.arrayBuffer())];
    expect(a.length).toBeGreaterThan(128 * 1024);
    expect(b.equals(a)).toBe(true);
    expect(JSON.parse(a.toString()) as unknown).toEqual({ data });
    for (const res of [miss, hit]) {
      expect(res.headers.get('content-length')).toBe(String(a.length));
      expect(res.headers.get('etag')).toBe(`"${createHash('sha1').update(a).digest('base64url')}"`);
    }
    const head = await t.fetch(`${path}&fresh=1`, { token: key, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(a.length));
    expect(head.headers.get('etag')).toBe(hit.headers.get('etag'));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });
});
