/**
 * `Map-Event-Id` (docs/api.md): every map read answered to a map key carries the id of the newest
 * event of the map whose effect the answer includes, read in the same snapshot as the answer (cached
 * answers and 304s too), and the stream resumes from it. The proof: a writer moves systems as fast as
 * it can while a reader reads the map's systems again and again; each read's answer plus the events
 * the stream sends after its header is exactly the writer's history from there, no write missing and
 * none twice, ending in the final state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { openStream, type Frame } from '../support/sse.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ redis: true, env: { SERVICE_SSE_ENABLED: 'true', SERVICE_RATE_LIMIT_PER_MINUTE: '1000000', STREAM_MAX_PER_KEY: '50' } });
  await importFixture(t.platform);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const SYSTEMS = [31000005, 30000142, 30000144];
const READS = ['systems', 'connections', 'characters', 'systems-kills', 'character-activity', 'user_characters', 'structure-timers', 'audit', 'acls'];

let position = 0;
async function move(slug: string, key: string, solarSystemId: number): Promise<number> {
  const x = ++position;
  const res = await t.fetch(`/api/maps/${slug}/systems`, {
    method: 'POST',
    token: key,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ solar_system_id: solarSystemId, position_x: x, position_y: 1 }),
  });
  expect(res.status, await res.text()).toBeLessThan(300);
  return x;
}

/** The state a client keeps: each system's position_x, by solar system id. */
type State = Map<number, number>;

async function readSystems(slug: string, key: string): Promise<{ state: State; id: string }> {
  const res = await t.fetch(`/api/map/systems?slug=${slug}`, { token: key });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { solar_system_id: number; position_x: number }[] };
  return { state: new Map(body.data.map((s) => [s.solar_system_id, s.position_x])), id: res.headers.get('map-event-id')! };
}

/** The events the stream sends after `lastId`, up to the event `until` (none when they are the same). */
async function resumed(slug: string, key: string, lastId: string, until: string): Promise<{ solar_system_id: number; position_x: number; id: string }[]> {
  if (lastId === until) return [];
  const c = await openStream(`${t.url}/api/maps/${slug}/events/stream?last_event_id=${lastId}`, { headers: { authorization: `Bearer ${key}` } });
  try {
    expect(c.status).toBe(200);
    await c.waitFor((f: Frame) => f.id === until || f.event === 'reset', 1, 20_000);
    expect(c.frames.filter((f) => f.event === 'reset')).toEqual([]);
    return c.frames
      .filter((f) => f.id !== undefined)
      .map((f) => {
        const e = JSON.parse(f.data!) as { id: string; payload: { solar_system_id: number; position_x: number } };
        return { id: e.id, solar_system_id: e.payload.solar_system_id, position_x: e.payload.position_x };
      });
  } finally {
    c.close();
  }
}

describe('Map-Event-Id', () => {
  it('is 0 on a map without events, on every /api/map/* read, and the stream takes 0 as before the first event', async () => {
    const m = await makeMap(t.platform);
    for (const path of READS) {
      const res = await t.fetch(`/api/map/${path}?slug=${m.map.slug}${path === 'audit' ? '&period=1D' : ''}`, { token: m.key });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('map-event-id'), path).toBe('0');
    }
    const system = await t.fetch(`/api/map/system?slug=${m.map.slug}&id=31000005`, { token: m.key });
    expect(system.status).toBe(404);
    expect(system.headers.get('map-event-id')).toBeNull();
    await move(m.map.slug, m.key, 31000005);
    await move(m.map.slug, m.key, 30000142);
    const after = await readSystems(m.map.slug, m.key);
    expect(after.id).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    const events = await resumed(m.map.slug, m.key, '0', after.id);
    expect(events.map((e) => e.solar_system_id)).toEqual([31000005, 30000142]);
    expect(events.at(-1)!.id).toBe(after.id);
  });

  it('comes with cached answers and 304s: the id of the snapshot the answer was read from', async () => {
    const m = await makeMap(t.platform);
    await move(m.map.slug, m.key, 31000005);
    const first = await t.fetch(`/api/map/systems?slug=${m.map.slug}`, { token: m.key });
    const id = first.headers.get('map-event-id')!;
    expect(id).not.toBe('0');
    const cached = await t.fetch(`/api/map/systems?slug=${m.map.slug}`, { token: m.key });
    expect(cached.headers.get('map-event-id')).toBe(id);
    const etag = first.headers.get('etag')!;
    const notModified = await t.fetch(`/api/map/systems?slug=${m.map.slug}`, { token: m.key, headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('map-event-id')).toBe(id);
    await move(m.map.slug, m.key, 30000142);
    const changed = await t.fetch(`/api/map/systems?slug=${m.map.slug}`, { token: m.key, headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('map-event-id')! > id).toBe(true);
  });

  it('reads taken while a writer edits, each resumed from its header, give every write once and the final state', async () => {
    const m = await makeMap(t.platform);
    const slug = m.map.slug;
    // The writer's history: each write's system and position, in order (positions only grow).
    const writes: { solar_system_id: number; position_x: number }[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing && i < 400; i++) {
        const sys = SYSTEMS[i % SYSTEMS.length]!;
        writes.push({ solar_system_id: sys, position_x: await move(slug, m.key, sys) });
      }
    })();
    const reads: { state: State; id: string }[] = [];
    while (reads.length < 40) reads.push(await readSystems(slug, m.key));
    writing = false;
    await writer;
    const final = await readSystems(slug, m.key);
    expect(final.state.size).toBe(SYSTEMS.length);
    // Reads that saw different states: most of them were taken while writes went on.
    expect(new Set(reads.map((r) => r.id)).size).toBeGreaterThan(5);
    for (const read of reads) {
      const events = await resumed(slug, m.key, read.id, final.id);
      // Which writes the answer includes: up to each system's position in it.
      const included = writes.filter((w) => read.state.has(w.solar_system_id) && w.position_x <= read.state.get(w.solar_system_id)!);
      const after = writes.filter((w) => !included.includes(w));
      // The answer is a prefix of the history (no write after one it misses), and the resumed events are the rest, each once, in order.
      expect(included.length).toBe(writes.findIndex((w) => !included.includes(w)) === -1 ? writes.length : writes.findIndex((w) => !included.includes(w)));
      expect(events.map(({ solar_system_id, position_x }) => ({ solar_system_id, position_x }))).toEqual(after);
      const state = new Map(read.state);
      for (const e of events) state.set(e.solar_system_id, e.position_x);
      expect(state).toEqual(final.state);
    }
  });
});
