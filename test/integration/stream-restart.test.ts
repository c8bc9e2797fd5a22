/**
 * A stream served by a process that started after the map's events were written: its hot history
 * (in-process here) holds nothing of them, and the `connected` frame still names the map's newest
 * event, from the event log (decisions §6: "latest id of the map, or null").
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem, openStream, type Frame } from '../support/sse.js';
import { waitFor } from '../support/wait.js';
import { dropSchema } from '../support/db.js';

const servers: TestServer[] = [];
let schema: string | undefined;
afterAll(async () => {
  for (const s of servers.reverse()) await s.close();
  if (schema) await dropSchema(schema);
});

describe('the connected frame after a restart', () => {
  it('names the newest event of the event log when the hot history has none of the map, and resumes from it', async () => {
    const first = await startTestServer({ env: { SERVICE_SSE_ENABLED: 'true' }, keepSchema: true });
    await importFixture(first.platform);
    const m = await makeMap(first.platform);
    for (let i = 0; i < 3; i++) await moveSystem(first, m.map.slug, m.key);
    const log = async () => (await (await first.fetch(`/api/maps/${m.map.slug}/events?limit=100`, { token: m.key })).json()) as { data: { id: string }[] };
    await waitFor(async () => (await log()).data.length === 3, 10_000, 'three events in the log');
    const newest = (await log()).data.at(-1)!.id;
    schema = first.config.databaseSchema;
    await first.server.shutdown();

    const second = await startTestServer({ env: { SERVICE_SSE_ENABLED: 'true' }, schema });
    servers.push(second);
    const c = await openStream(`${second.url}/api/maps/${m.map.slug}/events/stream`, { headers: { authorization: `Bearer ${m.key}` } });
    const [connected] = await c.waitFor((f: Frame) => f.event === 'connected');
    expect(JSON.parse(connected!.data!)).toMatchObject({ map_id: m.map.id, last_event_id: newest });
    // Live events follow, none of the older ones.
    await moveSystem(second, m.map.slug, m.key);
    const [event] = await c.waitFor((f: Frame) => f.id !== undefined);
    expect(event!.id! > newest).toBe(true);
    c.close();
  }, 60_000);
});
