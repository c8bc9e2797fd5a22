/**
 * What the caps' bookkeeping costs Redis per open connection: commands counted by the server itself
 * (INFO commandstats, on a Redis of the test's own so no other traffic counts) over a number of
 * renewals, with 10,000 idle connections held by two processes on 100 maps. Counted, not timed: the
 * renewals are run by hand (the timer's period is an hour), so the figure is per renewal period.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CAP_TIMING, type Lease } from '../../src/stream/stream-caps.js';
import { RedisStreamCaps } from '../../src/stream/stream-caps.redis.js';
import { connectRedis, type Redis } from '../../src/redis/redis.js';
import { createLogger } from '../../src/common/log.js';
import { OwnRedis } from '../support/redis-server.js';

const CONNECTIONS = 10_000;
const MAPS = 100;
const KEYS_PER_MAP = 10;
const RENEWALS = 5;
/** The target: caps bookkeeping of at most 0.05 commands per open connection per second. */
const COMMANDS_PER_CONNECTION_PER_S = 0.05;

let own: OwnRedis;
const clients: Redis[] = [];

beforeAll(async () => {
  own = await OwnRedis.create({ persist: false });
});
afterAll(async () => {
  for (const c of clients) c.destroy();
  await own?.destroy();
});

/** Every command Redis has run since its start, by INFO commandstats (commands inside scripts included). */
async function commandsRun(redis: Redis): Promise<number> {
  const info = String(await redis.info('commandstats'));
  let calls = 0;
  for (const m of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) calls += Number(m[1]);
  return calls;
}

describe('the cost of the caps per open connection', () => {
  it('renews one entry per map a process serves, not one lease per connection: under 0.05 commands per connection per second', async () => {
    const log = createLogger('silent');
    // Leases of the default length; the renewal timer is pushed out of the way and renewals run by hand.
    const timing = { leaseMs: 3_600_000, renewMs: 3_600_000 };
    const processes: RedisStreamCaps[] = [];
    for (let i = 0; i < 2; i++) {
      const c = await connectRedis({ url: own.url, purpose: 'caps-cost', log });
      clients.push(c);
      processes.push(new RedisStreamCaps(c, 'cost:', { perMap: 1_000_000, perKey: 1_000_000, perProcess: 1_000_000 }, timing));
    }
    const inspect = await connectRedis({ url: own.url, purpose: 'caps-cost-inspect', log });
    clients.push(inspect);
    const leases: Lease[] = [];
    for (let from = 0; from < CONNECTIONS; from += 1000) {
      const batch = await Promise.all(
        Array.from({ length: 1000 }, (_, j) => {
          const i = from + j;
          return processes[i % 2]!.admit(`map-${i % MAPS}`, `key-${i % MAPS}-${Math.floor(i / MAPS) % KEYS_PER_MAP}`);
        }),
      );
      for (const a of batch) {
        if (!a.admitted) throw new Error(`refused: ${a.code}`);
        leases.push(a.lease);
      }
    }
    expect(processes.map((p) => p.stats().held)).toEqual([CONNECTIONS / 2, CONNECTIONS / 2]);

    const before = await commandsRun(inspect);
    for (let r = 0; r < RENEWALS; r++) for (const p of processes) await p.renewNow();
    // Less the INFO that reads the counts (counted once it has run).
    const spent = (await commandsRun(inspect)) - before - 1;

    // Each process serves every map: 2 x 100 entries renewed per period, a handful of commands each.
    const entries = processes.length * MAPS;
    expect(spent).toBeGreaterThanOrEqual(RENEWALS * entries);
    expect(spent).toBeLessThanOrEqual(RENEWALS * entries * 8);
    const perConnectionPerSecond = spent / RENEWALS / CONNECTIONS / (DEFAULT_CAP_TIMING.renewMs / 1000);
    expect(perConnectionPerSecond).toBeLessThanOrEqual(COMMANDS_PER_CONNECTION_PER_S);
    // The figure docs/scaling.md quotes (R_conn).
    process.stderr.write(
      `caps bookkeeping: ${spent / RENEWALS} commands per renewal period (${DEFAULT_CAP_TIMING.renewMs} ms) for ${CONNECTIONS} connections on ${MAPS} maps in 2 processes: ${perConnectionPerSecond.toFixed(4)} commands per connection per second\n`,
    );

    // The renewals changed nothing: every connection is still counted, none written again.
    expect(processes.map((p) => p.stats().inRedis)).toEqual([CONNECTIONS / 2, CONNECTIONS / 2]);
    for (const l of leases) await l.release();
    expect(processes.map((p) => p.held())).toEqual([0, 0]);
    for (const p of processes) await p.close();
  }, 180_000);
});
