/**
 * Date-time inputs (`kill_time` of kills, `end_time` of structures) take RFC 3339 only: anything else
 * ISO 8601 allows (week or ordinal dates, basic format, hour-only, comma fractions, date-only,
 * zone-less) and impossible calendar values are 400 validation_failed naming the field, and write
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { editClient, expectValidation, killBody, type Json } from '../support/map-edit.js';

const JITA = 30000142;

const REFUSED = [
  '2026-W47',
  '2026-W47-7',
  '2026-330',
  '20261122T100000Z',
  '2026-11-22T10',
  '2026-11-22T10Z',
  '2026-11-22T10:00Z',
  '2026-11-22T10:00:00,5Z',
  '2026-11-22',
  '2026-11-22T10:00:00',
  '2026-11-22T10:00:00.Z',
  '2026-11-22 10:00:00Z',
  '2026-11-22T10:00:00+0100',
  '2026-11-22T10:00:00+01',
  '2026-13-01T00:00:00Z',
  '2026-02-29T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-04-31T00:00:00Z',
  '2026-00-10T00:00:00Z',
  '2026-11-00T00:00:00Z',
  '2026-11-22T24:00:00Z',
  '2026-11-22T10:60:00Z',
  '2026-11-22T10:00:60Z',
  '2026-11-22T10:00:00+24:00',
  '2026-11-22T10:00:00+01:60',
  '0000-01-01T00:00:00Z',
  '+002026-11-22T10:00:00Z',
  ' 2026-11-22T10:00:00Z',
  '2026-11-22T10:00:00Z ',
  '２０２６-11-22T10:00:00Z',
  '',
];

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false', SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
  await importFixture(t.platform);
});
afterAll(async () => t?.close());

async function fresh() {
  const m = await makeMap(t.platform);
  const c = editClient(t, m.key, m.map.slug);
  const res = await c.send('POST', '/systems', { systems: [{ solar_system_id: JITA }] });
  expect(res.status, res.text).toBe(201);
  return { ...c, mapId: m.map.id as string };
}

const astrahus = { solar_system_id: JITA, structure_type_id: '35832', structure_type: 'Astrahus', name: 'Home', status: 'Reinforced' };

describe('POST /api/maps/{map_id}/kills kill_time', () => {
  it.each(REFUSED)('answers 400 validation_failed naming kill_time for %j and stores nothing', async (value) => {
    const c = await fresh();
    const since = await c.mark();
    expectValidation(await c.send('POST', '/kills', killBody(JITA, 130_000_001, { kill_time: value })), 'kill_time', /RFC 3339/);
    expectValidation(
      await c.send('POST', '/kills', [killBody(JITA, 130_000_002), killBody(JITA, 130_000_003, { kill_time: value })]),
      '[1].kill_time',
      /RFC 3339/,
    );
    expectValidation(await c.send('POST', '/kills', { kills: [killBody(JITA, 130_000_004, { kill_time: value })] }), 'kills[0].kill_time', /RFC 3339/);
    expect(await c.sql('select id from map_kills where map_id = ?', [c.mapId])).toEqual([]);
    expect(await c.eventsSince(since)).toEqual([]);
  });

  it.each([
    ['2026-11-22T10:00:00Z', '2026-11-22T10:00:00Z'],
    ['2026-11-22t10:00:00z', '2026-11-22T10:00:00Z'],
    ['2026-11-22T12:30:00+02:30', '2026-11-22T10:00:00Z'],
    ['2026-11-22T05:00:00-05:00', '2026-11-22T10:00:00Z'],
    ['2026-11-22T10:00:00-00:00', '2026-11-22T10:00:00Z'],
    ['2026-11-22T10:00:00.4Z', '2026-11-22T10:00:00Z'],
    ['2026-11-22T09:59:59.999999999Z', '2026-11-22T10:00:00Z'],
    ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59Z'],
    ['2000-02-29T00:00:00+01:00', '2000-02-28T23:00:00Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00Z'],
  ])('accepts %j and stores the instant it names (%s)', async (value, stored) => {
    const c = await fresh();
    const res = await c.send('POST', '/kills', killBody(JITA, 130_000_010, { kill_time: value }));
    expect(res.status, res.text).toBe(200);
    const rows = await c.sql<{ kill_time: string }>(
      `select to_char(kill_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as kill_time from map_kills where map_id = ?`,
      [c.mapId],
    );
    expect(rows).toEqual([{ kill_time: stored }]);
  });
});

describe('structure end_time', () => {
  it.each(REFUSED)('POST and PUT /structures answer 400 validation_failed naming end_time for %j and change nothing', async (value) => {
    const c = await fresh();
    const created = await c.send<{ data: Json }>('POST', '/structures', { ...astrahus, end_time: '2030-01-01T00:00:00Z' });
    expect(created.status, created.text).toBe(201);
    expectValidation(await c.send('POST', '/structures', { ...astrahus, end_time: value }), 'end_time', /RFC 3339/);
    expectValidation(await c.send('PUT', `/structures/${String(created.body.data.id)}`, { end_time: value }), 'end_time', /RFC 3339/);
    const rows = await c.sql<{ n: number; end_time: string }>(
      `select count(*) over ()::int as n, to_char(end_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as end_time from map_structures where map_id = ?`,
      [c.mapId],
    );
    expect(rows).toEqual([{ n: 1, end_time: '2030-01-01T00:00:00Z' }]);
  });

  it('accepts an RFC 3339 end_time with an offset and answers it in UTC; null still clears it', async () => {
    const c = await fresh();
    const created = await c.send<{ data: Json }>('POST', '/structures', { ...astrahus, end_time: '2030-01-01T02:00:00.5+02:00' });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.end_time).toBe('2030-01-01T00:00:00.500000Z');
    const cleared = await c.send<{ data: Json }>('PUT', `/structures/${String(created.body.data.id)}`, { end_time: null });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.data.end_time).toBeNull();
  });

  it('names the accepted forms when end_time is neither a date-time nor null', async () => {
    const c = await fresh();
    expectValidation(await c.send('POST', '/structures', { ...astrahus, end_time: '2026-W47' }), 'end_time', 'must be an RFC 3339 date-time or null');
  });
});
