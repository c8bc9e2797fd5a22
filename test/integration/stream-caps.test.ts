/**
 * Stream connection caps, one contract for both implementations: Redis (shared by processes; here
 * several instances over the machine's Redis stand for several stream processes) and in-process.
 * The leases' life with Redis: connections that stay open long after the last admission, and a
 * Redis restart that loses every lease (a Redis server of the test's own, without persistence).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { connectTestRedis, deleteRedisPrefix, uniqueName } from '../support/db.js';
import { OwnRedis } from '../support/redis-server.js';
import { waitFor } from '../support/wait.js';
import { DEFAULT_CAP_TIMING, MemoryStreamCaps, type Admission, type CapLimits, type CapTiming, type StreamCaps } from '../../src/stream/stream-caps.js';
import { capKeys, countedConnections, RedisStreamCaps } from '../../src/stream/stream-caps.redis.js';
import { connectRedis, type Redis } from '../../src/redis/redis.js';
import { createLogger } from '../../src/common/log.js';

const prefixes: string[] = [];
const clients: Redis[] = [];
const open: StreamCaps[] = [];

async function redisClient(): Promise<Redis> {
  const c = await connectTestRedis('caps-test');
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const caps of open.splice(0)) await caps.close();
});
afterAll(async () => {
  for (const c of clients) c.destroy();
  for (const p of prefixes) await deleteRedisPrefix(p);
});

type Factory = (limits: CapLimits, timing?: CapTiming) => Promise<{ processes: StreamCaps[] }>;

/** Three "processes" sharing one set of caps. */
const redisCaps: Factory = async (limits, timing) => {
  const prefix = `${uniqueName('caps')}:`;
  prefixes.push(prefix);
  const processes: StreamCaps[] = [];
  for (let i = 0; i < 3; i++) processes.push(new RedisStreamCaps(await redisClient(), prefix, limits, timing));
  open.push(...processes);
  return { processes };
};

/** In-process, the single process is the deployment. */
const memoryCaps: Factory = async (limits, timing) => {
  const caps = new MemoryStreamCaps(limits, timing);
  open.push(caps);
  return { processes: [caps] };
};

const admitted = (results: Admission[]) => results.filter((r) => r.admitted).length;
const refusals = (results: Admission[]) => results.filter((r): r is Extract<Admission, { admitted: false }> => !r.admitted);

describe.each([
  ['Redis, three processes', redisCaps],
  ['in-process', memoryCaps],
] as const)('stream caps (%s)', (_name, make) => {
  it('never admits more than the per-map cap, however many connect at once', async () => {
    const { processes } = await make({ perMap: 50, perKey: 1000, perProcess: 1000 });
    const mapId = randomUUID();
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => processes[i % processes.length]!.admit(mapId, `key-${i}`)));
    expect(admitted(results)).toBe(50);
    for (const r of refusals(results)) {
      expect(r.code).toBe('map_stream_limit');
      // A renewal period (about when a slot may come back), in whole seconds: 9 for the default 25 s lease.
      expect(r.retryAfterS).toBe(Math.ceil(DEFAULT_CAP_TIMING.renewMs / 1000));
    }
    // Another map is not affected.
    expect((await processes[0]!.admit(randomUUID(), 'key-x')).admitted).toBe(true);
  });

  // An API key streams the map it belongs to (a map key), so its connections are all of one map.
  it('never admits more than the per-key cap, however many connect at once', async () => {
    const { processes } = await make({ perMap: 1000, perKey: 10, perProcess: 1000 });
    const mapId = randomUUID();
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => processes[i % processes.length]!.admit(mapId, 'one-key')));
    expect(admitted(results)).toBe(10);
    expect(new Set(refusals(results).map((r) => r.code))).toEqual(new Set(['key_stream_limit']));
  });

  it('refuses past the per-process ceiling with server_stream_limit', async () => {
    const { processes } = await make({ perMap: 1000, perKey: 1000, perProcess: 4 });
    const one = processes[0]!;
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => one.admit(randomUUID(), `k${i}`)));
    expect(admitted(results)).toBe(4);
    expect(one.held()).toBe(4);
    expect(new Set(refusals(results).map((r) => r.code))).toEqual(new Set(['server_stream_limit']));
  });

  it('frees a slot when its connection closes (release is idempotent)', async () => {
    const { processes } = await make({ perMap: 2, perKey: 1000, perProcess: 1000 });
    const mapId = randomUUID();
    const a = await processes[0]!.admit(mapId, 'a');
    const b = await processes[processes.length - 1]!.admit(mapId, 'b');
    expect((await processes[0]!.admit(mapId, 'c')).admitted).toBe(false);
    if (!a.admitted || !b.admitted) throw new Error('both should be admitted');
    await a.lease.release();
    await a.lease.release();
    expect((await processes[0]!.admit(mapId, 'c')).admitted).toBe(true);
    expect((await processes[0]!.admit(mapId, 'd')).admitted).toBe(false);
  });
});

describe('stream caps (Redis only)', () => {
  it('keeps the slots of a live process (renewed), and frees those of a dead one within the lease time', async () => {
    const timing = { leaseMs: 1200, renewMs: 300 };
    const { processes } = await redisCaps({ perMap: 3, perKey: 1000, perProcess: 1000 }, timing);
    const [alive, dying, other] = processes as [StreamCaps, RedisStreamCaps, StreamCaps];
    const mapId = randomUUID();
    expect((await alive.admit(mapId, 'a')).admitted).toBe(true);
    expect((await dying.admit(mapId, 'b')).admitted).toBe(true);
    expect((await dying.admit(mapId, 'c')).admitted).toBe(true);
    expect((await other.admit(mapId, 'd')).admitted).toBe(false);
    // The dying process stops renewing without releasing (as a SIGKILLed process would).
    clearInterval((dying as unknown as { timer: NodeJS.Timeout }).timer);
    (dying as unknown as { leases: Map<string, unknown> }).leases.clear();
    await new Promise((r) => setTimeout(r, timing.leaseMs + 400));
    const after = await Promise.all([other.admit(mapId, 'e'), other.admit(mapId, 'f'), other.admit(mapId, 'g')]);
    // The live process's lease was renewed meanwhile and still counts: two slots came back, not three.
    expect(admitted(after)).toBe(2);
  });
});

describe('stream caps (Redis only): leases for the life of every connection', () => {
  it('keeps counting connections that stay open long after the last admission to their map and key', async () => {
    const timing = { leaseMs: 1200, renewMs: 300 };
    const { processes } = await redisCaps({ perMap: 4, perKey: 3, perProcess: 1000 }, timing);
    const mapId = randomUUID();
    const held = await Promise.all([0, 1, 2].map((i) => processes[i]!.admit(mapId, 'one-key')));
    expect(admitted(held)).toBe(3);
    // No admission to this map or this key for several lease times (past twice the lease, the time
    // the keys live after their last write): the three connections are still open.
    await new Promise((r) => setTimeout(r, 4 * timing.leaseMs));
    const key = await processes[1]!.admit(mapId, 'one-key');
    expect(key).toMatchObject({ admitted: false, code: 'key_stream_limit' });
    expect((await processes[2]!.admit(mapId, 'another-key')).admitted).toBe(true);
    const map = await processes[0]!.admit(mapId, 'a-third-key');
    expect(map).toMatchObject({ admitted: false, code: 'map_stream_limit' });
  });

  it('a refusal counted by a renewal sent while it was under way is written off before it answers', async () => {
    const { processes } = await redisCaps({ perMap: 4, perKey: 2, perProcess: 1000 }, { leaseMs: 60_000, renewMs: 30_000 });
    const [one, other] = processes as [RedisStreamCaps, RedisStreamCaps];
    const mapId = randomUUID();
    expect(admitted(await Promise.all([one.admit(mapId, 'full-key'), one.admit(mapId, 'full-key'), other.admit(mapId, 'k')]))).toBe(3);
    // The renewal goes out while the refused admission is pending, so it writes that admission's count too.
    const refused = one.admit(mapId, 'full-key');
    const renewal = one.renewNow();
    expect(await refused).toMatchObject({ admitted: false, code: 'key_stream_limit' });
    await renewal;
    const inspect = await redisClient();
    const prefix = prefixes[prefixes.length - 1]!;
    expect(await countedConnections(inspect, prefix, mapId, 'full-key')).toEqual({ map: 3, key: 2 });
    // The map's fourth slot is free for any process at once, not a renewal period later.
    expect((await other.admit(mapId, 'another-key')).admitted).toBe(true);
  });

  it('after a Redis restart that lost every count: admits nothing past a cap, and the counts are whole again within a renewal period', async () => {
    const own = await OwnRedis.create({ persist: false });
    const conns: Redis[] = [];
    const processes: RedisStreamCaps[] = [];
    try {
      const log = createLogger('silent');
      const timing = { leaseMs: 3000, renewMs: 1000 };
      const prefix = `${uniqueName('caps')}:`;
      const lost: number[] = [];
      for (let i = 0; i < 3; i++) {
        // As the stream role connects: commands fail at once while Redis is down, and each reconnection renews.
        const c = await connectRedis({ url: own.url, purpose: 'caps-test', log });
        conns.push(c);
        processes.push(new RedisStreamCaps(c, prefix, { perMap: 6, perKey: 4, perProcess: 1000 }, timing, { reconnects: c, onLost: (n) => lost.push(n) }));
      }
      const mapId = randomUUID();
      const keyMap = randomUUID();
      // One map full (6), and one key full (4) on another map, spread over the three processes.
      const first = await Promise.all(Array.from({ length: 6 }, (_, i) => processes[i % 3]!.admit(mapId, `key-${i}`)));
      const keyed = await Promise.all(Array.from({ length: 4 }, (_, i) => processes[i % 3]!.admit(keyMap, 'full-key')));
      expect(admitted(first)).toBe(6);
      expect(admitted(keyed)).toBe(4);
      const inspect = await connectRedis({ url: own.url, purpose: 'caps-inspect', log });
      conns.push(inspect);
      const count = async (map: string, keyId = '') => countedConnections(inspect, prefix, map, keyId).catch(() => ({ map: -1, key: -1 }));
      expect(await count(mapId)).toEqual({ map: 6, key: 0 });
      expect(await count(keyMap, 'full-key')).toEqual({ map: 4, key: 4 });

      await own.stop();
      await own.start();
      // Admissions from the moment every process can reach Redis again, before and after they have
      // written their counts back: none passes a cap, on the maps they held or on maps new to them.
      await waitFor(
        async () =>
          (
            await Promise.all(
              conns.map((c) =>
                c.ping().then(
                  () => true,
                  () => false,
                ),
              ),
            )
          ).every(Boolean),
        20_000,
        'every client reconnected',
      );
      const tries: Admission[] = [];
      const tryAll = async () => {
        const round = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            processes[i % 3]!.admit(i % 3 === 0 ? mapId : i % 3 === 1 ? keyMap : randomUUID(), i % 3 === 1 ? 'full-key' : `other-${i}`).catch(() => undefined),
          ),
        );
        tries.push(...round.filter((r): r is Admission => r !== undefined));
      };
      await tryAll();
      expect(admitted(tries)).toBe(0);
      await waitFor(async () => (await count(mapId)).map === 6 && (await count(keyMap, 'full-key')).key === 4, 15_000, 'counts written back');
      await tryAll();
      expect(admitted(tries)).toBe(0);
      // Each connection was written back once, by the process that holds it; none was shed.
      expect(lost.reduce((a, b) => a + b, 0)).toBe(10);
      expect(processes.map((p) => p.stats().held)).toEqual([4, 3, 3]);

      // Once the recovery window has passed, the caps are the caps again: full, then one slot freed, one admitted.
      await waitFor(
        async () => Number(await inspect.pTTL(capKeys(prefix, mapId).recovering)) < 0 && Number(await inspect.pTTL(capKeys(prefix, keyMap).recovering)) < 0,
        30_000,
        'recovery window over',
      );
      expect(await processes[0]!.admit(mapId, 'late')).toMatchObject({ admitted: false, code: 'map_stream_limit' });
      expect(await processes[1]!.admit(keyMap, 'full-key')).toMatchObject({ admitted: false, code: 'key_stream_limit' });
      const [one] = first;
      if (!one?.admitted) throw new Error('admitted above');
      await one.lease.release();
      expect((await processes[2]!.admit(mapId, 'late')).admitted).toBe(true);
      expect((await count(mapId)).map).toBe(6);
    } finally {
      for (const p of processes) await p.close().catch(() => undefined);
      for (const c of conns) c.destroy();
      await own.destroy();
    }
  }, 90_000);
});
