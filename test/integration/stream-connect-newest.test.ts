/**
 * The `connected` frame's `last_event_id` when the stream process knows a map's newest event without
 * reading it (src/stream/stream-hub.ts, `newestOf`): a further connection of a watched map is told the
 * newest event the process has seen, live events included, and a map no connection holds any more is
 * read afresh. Each case is the id of the map's newest event in the event log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem, openStream, type SseConnection } from '../support/sse.js';
import { waitFor } from '../support/wait.js';

let t: TestServer;
let key: string;
let slug: string;

beforeAll(async () => {
  t = await startTestServer({ redis: true, env: { SERVICE_SSE_ENABLED: 'true', SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
  await importFixture(t.platform);
  const m = await makeMap(t.platform);
  key = m.key;
  slug = m.map.slug;
}, 60_000);

afterAll(async () => {
  await t?.close();
});

async function connect(): Promise<{ c: SseConnection; lastEventId: string | null }> {
  const c = await openStream(`${t.url}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${key}` } });
  expect(c.status).toBe(200);
  const [connected] = await c.waitFor((f) => f.event === 'connected');
  return { c, lastEventId: (JSON.parse(connected!.data!) as { last_event_id: string | null }).last_event_id };
}

/** The newest id of the map's event log. */
async function newestLogged(): Promise<string | null> {
  const res = await t.fetch(`/api/maps/${slug}/events?limit=500`, { token: key });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { id: string }[] };
  return (
    body.data
      .map((e) => e.id)
      .sort()
      .at(-1) ?? null
  );
}

describe('connected.last_event_id of further connections', () => {
  it('is null for a map without events, then the newest live event once one came, for each new connection', async () => {
    const first = await connect();
    expect(first.lastEventId).toBeNull();
    const again = await connect();
    expect(again.lastEventId).toBeNull();

    await moveSystem(t, slug, key);
    const [live] = await first.c.waitFor((f) => f.id !== undefined);
    expect(live!.id).toBe(await newestLogged());
    // Known to the process from the live event: no read, and the same answer.
    const third = await connect();
    expect(third.lastEventId).toBe(live!.id);

    for (const x of [first, again, third]) x.c.close();
  });

  it('reads afresh once no connection holds the map: events written meanwhile are named', async () => {
    const one = await connect();
    one.c.close();
    // The process lets go of the map once its last connection is gone.
    await new Promise((r) => setTimeout(r, 300));
    await moveSystem(t, slug, key);
    await moveSystem(t, slug, key);
    const newest = await newestLogged();
    expect(newest).not.toBeNull();
    const told: (string | null)[] = [];
    await waitFor(
      async () => (told.push(await connect().then((x) => (x.c.close(), x.lastEventId))), told.at(-1) === newest),
      15_000,
      'connected names the newest event',
    ).catch((err: Error) => {
      throw new Error(`${err.message}: newest ${newest}, told ${[...new Set(told)].join(', ')} in ${told.length} connections`);
    });
  });
});
