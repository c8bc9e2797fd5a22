/**
 * The presence feed's pace (src/stream/presence-feed.ts): a round tells at most so many connections of
 * a change (greetings do not count), the others at the next rounds, the maps left behind first, each
 * connection once. The feed runs over the real database (key names) with sinks that record what they
 * are sent, and counts given by the test (the caps' counts are covered by stream-presence.test.ts).
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
let otherMapId: string;
let otherKeyId: string;

beforeAll(async () => {
  server = await startTestServer();
  const m = await makeMap(server.platform);
  mapId = m.map.id;
  keyId = (await server.platform.admin.listKeys(m.map.slug))[0]!.id;
  const o = await makeMap(server.platform);
  otherMapId = o.map.id;
  otherKeyId = (await server.platform.admin.listKeys(o.map.slug))[0]!.id;
}, 120_000);

afterAll(async () => {
  await server?.close();
});

interface Sink extends PresenceSink {
  /** The connections count of each presence frame it was sent, in order. */
  got: number[];
}

function sink(map = mapId): Sink {
  const s: Sink = {
    mapId: map,
    compat: false,
    presence: undefined,
    got: [],
    send(frames: readonly SharedFrame[]) {
      for (const f of frames) s.got.push((JSON.parse(/^data: (.*)$/m.exec(f.text)![1]!) as { connections: number }).connections);
    },
  };
  return s;
}

function feedOf(open: Set<Sink>, counts: () => Map<string, number>, changeFramesPerRound?: number): PresenceFeed {
  return new PresenceFeed({
    open,
    source: { counts: async (m) => new Map([[m === mapId ? keyId : otherKeyId, counts().get(m) ?? 0]]) },
    db: dbOf(server.platform.orm),
    prefix: 'unused:',
    partitions: 1,
    log: createLogger('silent'),
    changeFramesPerRound,
  });
}

describe('presence frames past a round’s share', () => {
  it('greets at once, tells a round’s share of a change, and the rest at the next round, once each', async () => {
    let n = 4;
    const [a, b, c, d] = [sink(), sink(), sink(), sink()];
    const open = new Set<Sink>([a, b, c, d]);
    const feed = feedOf(open, () => new Map([[mapId, n]]), 2);
    // Greetings do not count against the share.
    await feed.tick();
    for (const s of [a, b, c, d]) expect(s.got).toEqual([4]);

    // A change for 4 connections, 2 a round: two now, and the newcomer greeted with the news.
    n = 5;
    const e = sink();
    open.add(e);
    feed.changed(mapId);
    await feed.tick();
    expect([a, b, c, d].map((s) => s.got.at(-1))).toEqual([5, 5, 4, 4]);
    expect(e.got).toEqual([5]);
    // The next round tells the two left, without a new change.
    await feed.tick();
    for (const s of [a, b, c, d]) expect(s.got).toEqual([4, 5]);
    expect(e.got).toEqual([5]);
    // Then nothing more.
    await feed.tick();
    for (const s of [a, b, c, d]) expect(s.got).toEqual([4, 5]);
    expect(e.got).toEqual([5]);
  });

  it('tells the maps left behind first, so no map waits behind another that keeps changing', async () => {
    const counts = new Map([
      [mapId, 1],
      [otherMapId, 1],
    ]);
    const [one, other] = [sink(mapId), sink(otherMapId)];
    const feed = feedOf(new Set([one, other]), () => counts, 1);
    await feed.tick();
    expect([one.got, other.got]).toEqual([[1], [1]]);
    const change = (k: number) => {
      counts.set(mapId, k);
      counts.set(otherMapId, k);
      feed.changed(mapId);
      feed.changed(otherMapId);
    };
    // One a round: the first map's connection now, the other's next round, ahead of the first map's next change.
    change(2);
    await feed.tick();
    expect([one.got, other.got]).toEqual([[1, 2], [1]]);
    change(3);
    await feed.tick();
    expect([one.got, other.got]).toEqual([
      [1, 2],
      [1, 3],
    ]);
    await feed.tick();
    expect([one.got, other.got]).toEqual([
      [1, 2, 3],
      [1, 3],
    ]);
  });
});

describe('the greeting of a new connection', () => {
  it('is the presence the last round read, with the new connection counted; unknown before a round or for a key not among them', async () => {
    let connections = 3;
    const open = new Set<Sink>([sink()]);
    const feed = feedOf(open, () => new Map([[mapId, connections]]));
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
