/**
 * A master failover of the Redis Cluster under writes, open streams and webhook deliveries: the
 * master serving the map (its stream, channel and caps share the map's slot) is SIGKILLed while kills
 * are posted; its replica takes over. Every committed event reaches every open stream and the webhook
 * receiver, and the caps count exactly the open streams afterwards. The cluster is this file's own
 * (three masters, a replica each), since it kills one of its nodes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { killBody } from '../support/map-edit.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { RedisClusterServer } from '../support/redis-cluster.js';
import { openStream, type Frame, type SseConnection } from '../support/sse.js';
import { waitFor } from '../support/wait.js';
import { subscribe, toggleWebhooks, WEBHOOKS_ON } from '../support/webhooks.js';
import { apiRole } from '../../src/api/api.role.js';
import { streamRole } from '../../src/stream/stream.role.js';
import { workerRole } from '../../src/worker/worker.role.js';
import { mapKey } from '../../src/redis/redis-keys.js';
import { countedConnections } from '../../src/stream/stream-caps.redis.js';
import { dbOf } from '../../src/db/db.js';

const KILLS = 40;
const STREAMS = 3;
const PER_MAP = 5;

let cluster: RedisClusterServer;
let s: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  cluster = await RedisClusterServer.start();
  s = await startTestServer({
    redis: true,
    roles: [apiRole, streamRole, workerRole],
    env: {
      ...WEBHOOKS_ON,
      REDIS_URL: cluster.url,
      REDIS_CLUSTER: 'true',
      SERVICE_SSE_ENABLED: 'true',
      STREAM_MAX_PER_MAP: String(PER_MAP),
      // The production lease's proportions: the map's keys outlive a failover of a few seconds.
      STREAM_LEASE_MS: '15000',
      SERVICE_RATE_LIMIT_PER_MINUTE: '100000',
      EVENTS_RELAY_POLL_MS: '100',
    },
  });
  await importFixture(s.platform);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await s?.close();
  await cluster?.stop();
});

/** The ids of the kill events a stream received, in order (an event frame carries its envelope as data). */
const eventIds = (c: SseConnection) =>
  c.frames.filter((f: Frame) => f.id !== undefined && (JSON.parse(f.data ?? '{}') as { type?: string }).type === 'map_kill').map((f) => f.id!);

describe('a Redis Cluster master failover', () => {
  it('loses no committed event on open streams or webhooks, and leaves the caps exact', async () => {
    const { map, key } = await makeMap(s.platform);
    await subscribe(s, map.id, key, receiver, `${receiver.url}/failover`, ['map_kill']);
    await toggleWebhooks(s, map.id, key);
    const streamUrl = `${s.url}/api/maps/${map.id}/events/stream`;
    const auth = { headers: { authorization: `Bearer ${key}` } };
    const streams: SseConnection[] = [];
    try {
      for (let i = 0; i < STREAMS; i++) {
        const c = await openStream(streamUrl, auth);
        expect(c.status).toBe(200);
        streams.push(c);
      }
      const prefix = s.config.redisKeyPrefix;
      const master = await cluster.masterOf(mapKey(prefix, map.id, 'caps:counts'));

      // Kills one request at a time; a third of the way in, the map's master dies.
      const statuses: number[] = [];
      let failedOver = Promise.resolve();
      for (let n = 0; n < KILLS; n++) {
        if (n === Math.floor(KILLS / 3)) {
          await cluster.kill(master);
          failedOver = cluster.waitFailedOver(master);
        }
        const res = await s.fetch(`/api/maps/${map.id}/kills`, {
          method: 'POST',
          token: key,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(killBody(31000005, 150_000_000 + n, { kill_time: new Date().toISOString() })),
        });
        statuses.push(res.status);
      }
      await failedOver;
      // Writes go to PostgreSQL: the failover never refuses one.
      expect(statuses.filter((st) => st !== 200)).toEqual([]);

      // Every committed kill event, in the order the map's relay numbered them (ids come with publication).
      const db = dbOf(s.platform.orm);
      let committed: string[] = [];
      await waitFor(
        async () => {
          const rows = await db.all<{ event_id: string | null }>("select event_id from map_events where map_id = ? and type = 'map_kill'", [map.id]);
          committed = rows
            .map((r) => r.event_id ?? '')
            .filter(Boolean)
            .sort();
          return rows.length === KILLS && committed.length === KILLS;
        },
        60_000,
        'every kill numbered by the relay',
      );

      // Every open stream receives each of them, once, in order.
      for (const c of streams) {
        await waitFor(() => eventIds(c).length >= KILLS, 60_000, 'every kill on the stream');
        expect(eventIds(c)).toEqual(committed);
      }
      // The receiver is delivered each of them (at least once).
      const got = await receiver.waitFor(KILLS, 60_000, (r) => r.path.endsWith('/failover'));
      const delivered = new Set(got.map((r) => r.headers['x-service-event-id'] as string));
      expect([...delivered].sort()).toEqual(committed);

      // The caps count exactly the open streams, and admit up to the cap, no more (once any recovery
      // window a slow failover opened is over: a 503 names how long to wait).
      const admitted = async (): Promise<SseConnection> => {
        for (;;) {
          const c = await openStream(streamUrl, auth);
          if (c.status !== 503) return c;
          c.close();
          await new Promise((r) => setTimeout(r, Number(c.headers.get('retry-after') ?? 1) * 1000));
        }
      };
      await waitFor(async () => (await countedConnections(s.platform.redis!, prefix, map.id)).map === STREAMS, 30_000, 'caps count the open streams');
      for (let i = STREAMS; i < PER_MAP; i++) {
        const c = await admitted();
        streams.push(c);
        expect(c.status).toBe(200);
      }
      const over = await admitted();
      streams.push(over);
      expect(over.status).toBe(429);
      expect((await countedConnections(s.platform.redis!, prefix, map.id)).map).toBe(PER_MAP);
    } finally {
      for (const c of streams) c.close();
    }
  }, 240_000);
});
