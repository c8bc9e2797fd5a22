/**
 * `systems=` filters (docs/api.md, "Filters") on the stream, live and on resume, and on the event log,
 * each with `events=` too: only events that name one of the systems (a system's own events, a
 * connection's either end, a kill's or signature's system), and malformed lists answered 400 naming
 * the parameter. Real server (api + stream roles), real PostgreSQL and Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { openStream, type Frame } from '../support/sse.js';
import { killBody } from '../support/map-edit.js';

let t: TestServer;
let slug: string;
let key: string;
let mapId: string;

const [A, B, C] = [31000005, 30000142, 30000144];

beforeAll(async () => {
  t = await startTestServer({ redis: true, env: { SERVICE_SSE_ENABLED: 'true', SERVICE_RATE_LIMIT_PER_MINUTE: '1000000', STREAM_MAX_PER_KEY: '50' } });
  await importFixture(t.platform);
  const m = await makeMap(t.platform);
  ({ slug, key } = { slug: m.map.slug, key: m.key });
  mapId = m.map.id;
}, 120_000);
afterAll(async () => {
  await t?.close();
});

async function post(path: string, body: unknown): Promise<void> {
  const res = await t.fetch(`/api/maps/${slug}/${path}`, {
    method: 'POST',
    token: key,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.text()).toBeLessThan(300);
}

/** One event of each kind: systems A, B and C added, a connection A–B, a kill in C. */
async function writeEach(): Promise<void> {
  for (const id of [A, B, C]) await post('systems', { solar_system_id: id, position_x: 1, position_y: 1 });
  await post('connections', { solar_system_source: A, solar_system_target: B });
  await post('kills', killBody(C, 900_001, { kill_time: new Date().toISOString() }));
}

async function newestId(): Promise<string> {
  for (;;) {
    const all = await t.platform.eventLog.list(mapId, undefined, 1000);
    if (all.length) return all.at(-1)!.id;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const summary = (e: { type: string; payload: Record<string, unknown> }) =>
  `${e.type}:${String(e.payload.solar_system_id ?? `${String(e.payload.solar_system_source)}-${String(e.payload.solar_system_target)}`)}`;

describe('systems= on the stream and the event log', () => {
  it('the stream sends, live and on resume, only the events naming the systems; with events= both apply', async () => {
    const streams = {
      a: await openStream(`${t.url}/api/maps/${slug}/events/stream?systems=${A}`, { headers: { authorization: `Bearer ${key}` } }),
      bc: await openStream(`${t.url}/api/maps/${slug}/events/stream?systems=${B},${C}&events=add_system`, { headers: { authorization: `Bearer ${key}` } }),
    };
    for (const c of Object.values(streams)) await c.waitFor((f) => f.event === 'connected');
    const start = (JSON.parse(streams.a.frames.find((f) => f.event === 'connected')!.data!) as { last_event_id: string | null }).last_event_id;
    await writeEach();
    // An unfiltered stream marks the end: every event has been fanned out once it has the last one.
    const last = await newestId();
    const all = await openStream(`${t.url}/api/maps/${slug}/events/stream?last_event_id=${start ?? '0'}`, { headers: { authorization: `Bearer ${key}` } });
    await all.waitFor((f) => f.id === last);
    all.close();
    await new Promise((r) => setTimeout(r, 300));
    const events = (f: Frame[]) =>
      f.filter((x) => x.id !== undefined).map((x) => summary(JSON.parse(x.data!) as { type: string; payload: Record<string, unknown> }));
    expect(events(streams.a.frames)).toEqual([`add_system:${A}`, `connection_added:${A}-${B}`]);
    expect(events(streams.bc.frames)).toEqual([`add_system:${B}`, `add_system:${C}`]);
    for (const c of Object.values(streams)) c.close();

    // A filtered resume replays only matching events.
    const resumed = await openStream(`${t.url}/api/maps/${slug}/events/stream?systems=${C}&last_event_id=${start ?? '0'}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await resumed.waitFor((f) => f.id !== undefined && (JSON.parse(f.data!) as { type: string }).type === 'map_kill');
    await new Promise((r) => setTimeout(r, 300));
    resumed.close();
    expect(events(resumed.frames)).toEqual([`add_system:${C}`, `map_kill:${C}`]);
  });

  it('the event log pages over the matching events only; with events= both apply', async () => {
    const page = async (query: string) => {
      const res = await t.fetch(`/api/maps/${slug}/events?${query}`, { token: key });
      expect(res.status).toBe(200);
      return (await res.json()) as { data: { id: string; type: string; payload: Record<string, unknown> }[]; next_after: string | null };
    };
    expect((await page(`systems=${B}`)).data.map(summary)).toEqual([`add_system:${B}`, `connection_added:${A}-${B}`]);
    expect((await page(`systems=${A},${C}&events=connection_added,map_kill`)).data.map(summary)).toEqual([`connection_added:${A}-${B}`, `map_kill:${C}`]);
    const first = await page(`systems=${A},${B}&limit=2`);
    expect(first.data.map(summary)).toEqual([`add_system:${A}`, `add_system:${B}`]);
    expect((await page(`systems=${A},${B}&limit=2&after=${first.next_after}`)).data.map(summary)).toEqual([`connection_added:${A}-${B}`]);
    expect((await page(`events=map_kill`)).data.map(summary)).toEqual([`map_kill:${C}`]);
  });

  it('answers 400 naming systems for a malformed list, on both', async () => {
    const many = Array.from({ length: 101 }, (_, i) => 30000000 + i).join(',');
    for (const bad of ['', '1,,2', 'abc', '-5', '1.5', '99999999999', many]) {
      const q = `systems=${encodeURIComponent(bad)}`;
      const log = await t.fetch(`/api/maps/${slug}/events?${q}`, { token: key });
      expect(log.status, `log ${bad.slice(0, 20)}`).toBe(400);
      expect(JSON.stringify(await log.json())).toContain('"field":"systems"');
      const res = await fetch(`${t.url}/api/maps/${slug}/events/stream?${q}`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status, `stream ${bad.slice(0, 20)}`).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.stringify(await res.json())).toContain('"field":"systems"');
    }
    const badType = await t.fetch(`/api/maps/${slug}/events?events=nope`, { token: key });
    expect(badType.status).toBe(400);
    expect(JSON.stringify(await badType.json())).toContain('"field":"events"');
  });
});
