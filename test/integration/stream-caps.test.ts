/**
 * Stream connection caps, one contract for both implementations: Redis (shared by processes; here
 * several instances over the machine's Redis stand for several stream processes) and in-process.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { deleteRedisPrefix, TEST_REDIS_URL, uniqueName } from '../support/db.js';
import { MemoryStreamCaps, RedisStreamCaps, type Admission, type CapLimits, type CapTiming, type StreamCaps } from '../../src/stream/stream-caps.js';
import type { Redis } from '../../src/core/redis.js';

const prefixes: string[] = [];
const clients: Redis[] = [];
const open: StreamCaps[] = [];

async function redisClient(): Promise<Redis> {
  const c = createClient({ url: TEST_REDIS_URL }) as Redis;
  c.on('error', () => undefined);
  await c.connect();
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
      expect(r.retryAfterS).toBeGreaterThanOrEqual(1);
    }
    // Another map is not affected.
    expect((await processes[0]!.admit(randomUUID(), 'key-x')).admitted).toBe(true);
  });

  it('never admits more than the per-key cap across maps', async () => {
    const { processes } = await make({ perMap: 1000, perKey: 10, perProcess: 1000 });
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => processes[i % processes.length]!.admit(randomUUID(), 'one-key')));
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
