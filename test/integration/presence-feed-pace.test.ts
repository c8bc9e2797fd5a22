/**
 * The presence feed's pace (src/stream/presence-feed.ts): a round that tells more connections of a
 * change than its rate allows puts the next change off for as long as those frames are worth, while
 * new connections are still greeted every round; the put-off change reaches everyone later, once. The
 * feed runs over the real database (key names) with sinks that record what they are sent, and counts
 * given by the test (the caps' counts are covered by stream-presence.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';
import { createLogger } from '../../src/common/log.js';
import { dbOf } from '../../src/db/db.js';
import { PresenceFeed, type PresenceSink } from '../../src/stream/presence-feed.js';
import type { SharedFrame } from '../../src/stream/sse-frames.js';

let server: TestServer;
let mapId: string;
let keyId: string;

beforeAll(async () => {
  server = await startTestServer();
  const m = await makeMap(server.platform);
  mapId = m.map.id;
  keyId = (await server.platform.admin.listKeys(m.map.slug))[0]!.id;
}, 120_000);

afterAll(async () => {
  await server?.close();
});

interface Sink extends PresenceSink {
  /** The connections count of each presence frame it was sent, in order. */
  got: number[];
}

function sink(): Sink {
  const s: Sink = {
    mapId,
    compat: false,
    presence: undefined,
    got: [],
    send(frames: readonly SharedFrame[]) {
      for (const f of frames) s.got.push((JSON.parse(/^data: (.*)$/m.exec(f.text)![1]!) as { connections: number }).connections);
    },
  };
  return s;
}

describe('presence frames past the feed’s rate', () => {
  it('greets every round, puts a change off for as long as its frames are worth, then tells everyone once', async () => {
    let connections = 4;
    const open = new Set<Sink>([sink(), sink(), sink(), sink()]);
    const feed = new PresenceFeed({
      open,
      source: { counts: async () => new Map([[keyId, connections]]) },
      db: dbOf(server.platform.orm),
      prefix: 'unused:',
      partitions: 1,
      log: createLogger('silent'),
      changeFramesPerSecond: 2,
    });
    const [a, b, c, d] = [...open] as [Sink, Sink, Sink, Sink];
    // Greetings do not count against the rate.
    await feed.tick();
    for (const s of [a, b, c, d]) expect(s.got).toEqual([4]);

    // A change told to 4 connections: twice the rate, so the next change waits 2 s.
    connections = 5;
    const e = sink();
    open.add(e);
    feed.changed(mapId);
    const told = Date.now();
    await feed.tick();
    for (const s of [a, b, c, d, e]) expect(s.got.at(-1)).toBe(5);
    expect(e.got).toEqual([5]);

    // Within those 2 s: the new connection is greeted with the news, the others are not told yet.
    connections = 6;
    const f = sink();
    open.add(f);
    feed.changed(mapId);
    await feed.tick();
    expect(f.got).toEqual([6]);
    for (const s of [a, b, c, d, e]) expect(s.got.at(-1)).toBe(5);
    // A round with nothing new in the meantime writes nothing.
    await feed.tick();
    expect(f.got).toEqual([6]);
    for (const s of [a, b, c, d, e]) expect(s.got.at(-1)).toBe(5);

    // After them, the change put off reaches those that had not heard it, and only them, once.
    await new Promise((r) => setTimeout(r, Math.max(0, told + 2_050 - Date.now())));
    await feed.tick();
    for (const s of [a, b, c, d]) expect(s.got).toEqual([4, 5, 6]);
    expect(e.got).toEqual([5, 6]);
    expect(f.got).toEqual([6]);
    await feed.tick();
    expect(f.got).toEqual([6]);
    expect(a.got).toEqual([4, 5, 6]);
  });
});

describe('the greeting of a new connection', () => {
  it('is the presence the last round read, with the new connection counted; unknown before a round or for a key not among them', async () => {
    let connections = 3;
    const open = new Set<Sink>([sink()]);
    const feed = new PresenceFeed({
      open,
      source: { counts: async () => new Map([[keyId, connections]]) },
      db: dbOf(server.platform.orm),
      prefix: 'unused:',
      partitions: 1,
      log: createLogger('silent'),
    });
    expect(feed.greeting(mapId, keyId)).toBeUndefined();
    await feed.tick();
    const greeting = JSON.parse(feed.greeting(mapId, keyId)!) as { connections: number; keys: { key_id: string; connections: number }[] };
    expect(greeting.connections).toBe(4);
    expect(greeting.keys.map((k) => [k.key_id, k.connections])).toEqual([[keyId, 4]]);
    expect(Object.keys(greeting.keys[0]!)).toEqual(['key_id', 'name', 'connections']);
    // A key the round did not see: its name is not known here, so no greeting.
    expect(feed.greeting(mapId, '00000000-0000-0000-0000-000000000000')).toBeUndefined();
    // Nothing is kept of a map without connections here.
    connections = 0;
    open.clear();
    await feed.tick();
    expect(feed.greeting(mapId, keyId)).toBeUndefined();
  });
});
