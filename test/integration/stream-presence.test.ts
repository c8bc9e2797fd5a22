/**
 * Presence across stream processes: two servers (api + stream roles each) over one database and one
 * Redis (one key prefix). GET /api/maps/{map_id}/presence on either counts the map's stream
 * connections of both, per key, within 2 s of a connect or disconnect; the streams get
 * `presence_changed` frames (no `id:` line) with the same object; key names only, never key material.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';
import { openStream, type SseConnection } from '../support/sse.js';
import { waitFor } from '../support/wait.js';
import { partitionOf } from '../../src/events/transport/keys.js';

let a: TestServer;
let b: TestServer;
let slug: string;
let mapId: string;
const keys: { id: string; name: string | null; api_key: string; prefix: string }[] = [];
const open: SseConnection[] = [];

const PARTITIONS = 8;
const ENV = { SERVICE_SSE_ENABLED: 'true', SERVICE_RATE_LIMIT_PER_MINUTE: '100000', STREAM_KEEPALIVE_MS: '500', EVENTS_PARTITIONS: String(PARTITIONS) };

beforeAll(async () => {
  a = await startTestServer({ redis: true, env: ENV });
  b = await startTestServer({ redis: true, schema: a.config.databaseSchema, keepSchema: true, env: { ...ENV, REDIS_KEY_PREFIX: a.config.redisKeyPrefix } });
  const m = await makeMap(a.platform);
  slug = m.map.slug;
  mapId = m.map.id;
  const first = (await a.platform.admin.listKeys(slug))[0]!;
  keys.push({ ...first, api_key: m.key });
  keys.push(await a.platform.admin.issueKey(slug, { character_eve_id: m.ownerEveId, name: 'wall screen' }));
}, 120_000);

afterAll(async () => {
  for (const c of open) c.close();
  await b?.close();
  await a?.close();
});

interface Presence {
  connections: number;
  keys: { key_id: string; name: string | null; connections: number }[];
}

async function presence(server: TestServer, key = keys[0]!.api_key): Promise<{ status: number; body: { data: Presence }; text: string }> {
  const res = await server.fetch(`/api/maps/${slug}/presence`, { token: key });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as { data: Presence }, text };
}

async function stream(server: TestServer, key: string): Promise<SseConnection> {
  const c = await openStream(`${server.url}/api/maps/${slug}/events/stream`, { headers: { authorization: `Bearer ${key}` } });
  expect(c.status).toBe(200);
  open.push(c);
  return c;
}

describe('GET /api/maps/{map_id}/presence', () => {
  it('counts the connections of both processes per key within 2 s, with key names and no key material', async () => {
    const [owner, wall] = keys as [(typeof keys)[0], (typeof keys)[0]];
    expect((await presence(a)).body).toEqual({ data: { connections: 0, keys: [] } });
    const onA = await stream(a, owner.api_key);
    await stream(b, wall.api_key);
    const onB2 = await stream(b, wall.api_key);
    const expected = {
      connections: 3,
      keys: [
        { key_id: wall.id, name: 'wall screen', connections: 2 },
        { key_id: owner.id, name: owner.name, connections: 1 },
      ],
    };
    const same = (p: Presence) => JSON.stringify(p) === JSON.stringify(expected);
    // Polled for 2 s (the promise of the endpoint), on either process.
    for (const server of [a, b])
      await waitFor(async () => same((await presence(server)).body.data), 2_000, 'presence of 3 connections').catch(async (err: Error) => {
        throw new Error(`${err.message}: ${(await presence(server)).text}`);
      });
    // Key names only: neither key, nor its hash, nor its prefix.
    const { text } = await presence(b, wall.api_key);
    for (const k of keys) {
      expect(text).not.toContain(k.api_key);
      expect(text).not.toContain(k.prefix);
    }
    expect(text).not.toMatch(/api_key|key_hash|prefix/);

    // The stream on A hears of B's connections: a presence_changed frame without an id line.
    const frames = await onA.waitFor((f) => f.event === 'presence_changed' && (JSON.parse(f.data!) as Presence).connections === 3, 1, 5_000);
    expect(frames[0]!.id).toBeUndefined();
    expect(JSON.parse(frames[0]!.data!)).toEqual(expected);

    // A disconnect on B is seen on A within 2 s, by the endpoint and by the stream.
    onB2.close();
    await waitFor(async () => (await presence(a)).body.data.connections === 2, 2_000, 'presence of 2 connections');
    await onA.waitFor((f) => f.event === 'presence_changed' && (JSON.parse(f.data!) as Presence).connections === 2, 1, 5_000);
    // Ties in key id order.
    expect((await presence(a)).body.data.keys).toEqual(
      [
        { key_id: owner.id, name: owner.name, connections: 1 },
        { key_id: wall.id, name: 'wall screen', connections: 1 },
      ].sort((x, y) => x.key_id.localeCompare(y.key_id)),
    );
    // Every presence frame is the presence object, none with an id.
    for (const f of onA.frames.filter((x) => x.event === 'presence_changed')) {
      expect(f.id).toBeUndefined();
      expect(Object.keys(JSON.parse(f.data!) as object)).toEqual(['connections', 'keys']);
    }
  });

  it("keeps a map's changes in its partition's set (no one key written at every connect of every process)", async () => {
    const prefix = a.config.redisKeyPrefix;
    const c = await stream(b, keys[0]!.api_key);
    const own = `${prefix}{p:${partitionOf(mapId, PARTITIONS)}}:presence`;
    await waitFor(async () => (await a.platform.redis!.zScore(own, mapId)) !== null, 2_000, "the map in its partition's set");
    // Only the map's own partition has it, and the single set of every map is gone.
    for (let n = 0; n < PARTITIONS; n++) {
      if (`${prefix}{p:${n}}:presence` === own) continue;
      expect(await a.platform.redis!.zScore(`${prefix}{p:${n}}:presence`, mapId)).toBeNull();
    }
    expect(await a.platform.redis!.exists(`${prefix}presence:changes`)).toBe(0);
    c.close();
  });

  it('answers 401 without a key and 404 for another map, as the other map endpoints do', async () => {
    expect((await a.fetch(`/api/maps/${slug}/presence`)).status).toBe(401);
    const other = await makeMap(a.platform);
    expect((await a.fetch(`/api/maps/${other.map.slug}/presence`, { token: keys[0]!.api_key })).status).toBe(404);
    expect((await a.fetch(`/api/maps/${mapId}/presence`, { token: other.key })).status).toBe(404);
    expect((await a.fetch(`/api/maps/${mapId}/presence`, { token: keys[1]!.api_key })).status).toBe(200);
  });
});

describe('presence_changed frames', () => {
  it('greet a connection to a map this process has read with that presence, itself counted, right after `connected`', async () => {
    const m = await makeMap(a.platform);
    const url = `${a.url}/api/maps/${m.map.slug}/events/stream`;
    const first = await openStream(url, { headers: { authorization: `Bearer ${m.key}` } });
    open.push(first);
    // The first connection of the map is greeted by a round (nothing was read of the map before).
    await first.waitFor((f) => f.event === 'presence_changed' && (JSON.parse(f.data!) as Presence).connections === 1, 1, 5_000);
    const second = await openStream(url, { headers: { authorization: `Bearer ${m.key}` } });
    open.push(second);
    const [greeting] = await second.waitFor((f) => f.event === 'presence_changed', 1, 5_000);
    const named = second.frames.filter((f) => f.event !== undefined).map((f) => f.event);
    expect(named.slice(0, 2)).toEqual(['connected', 'presence_changed']);
    // In the very write that carried `connected`, not at a later round.
    expect(second.raw.find((c) => c.includes('event: connected'))).toContain('event: presence_changed');
    expect(greeting!.id).toBeUndefined();
    const p = JSON.parse(greeting!.data!) as Presence;
    expect(p.connections).toBe(2);
    expect(p.keys.map((k) => k.connections)).toEqual([2]);
    // What the endpoint says, the stream said.
    expect((await a.fetch(`/api/maps/${m.map.slug}/presence`, { token: m.key }).then((r) => r.json())) as { data: Presence }).toEqual({ data: p });
  });
});
