/**
 * Webhook delivery under faults, with worker processes of their own (`serve --roles worker`) over the
 * machine's PostgreSQL and a Redis server of the test's own: two workers share the work without
 * sending an event twice; a worker SIGKILLed mid-delivery, a Redis restart, and a Redis stream trimmed
 * under a stopped worker lose nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamKeys } from '../../src/events/transport/keys.js';
import { createClient } from 'redis';
import { startTestServer, TEST_ENCRYPTION_KEY, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { OwnRedis } from '../support/redis-server.js';
import { moveSystem } from '../support/sse.js';
import { gate, startReceiver, type Receiver } from '../support/receiver.js';
import { subscribe, toggleWebhooks } from '../support/webhooks.js';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { testDatabaseEnv } from '../support/db.js';
import { apiRole } from '../../src/api/api.role.js';

const SYSTEMS = [31000005, 31000001, 31000008];

let t: TestServer;
let redis: OwnRedis;
const workers: CliProcess[] = [];
const receivers: Receiver[] = [];

function startWorker(env: Record<string, string> = {}): CliProcess {
  const w = startCli(['serve', '--roles', 'worker'], {
    PORT: '0',
    HOST: '127.0.0.1',
    OPS_PORT: '0',
    OPS_HOST: '127.0.0.1',
    ...testDatabaseEnv(t.config.databaseSchema),
    DATABASE_POOL_MAX: '4',
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: t.config.redisKeyPrefix,
    SERVICE_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    SERVICE_WEBHOOKS_ENABLED: 'true',
    SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true',
    WEBHOOK_RETRY_WAITS: '200ms,400ms,800ms',
    WEBHOOK_TIMEOUT_MS: '2000',
    SERVICE_SHUTDOWN_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'info',
    ...env,
  });
  workers.push(w);
  return w;
}

beforeAll(async () => {
  redis = await OwnRedis.create();
  t = await startTestServer({
    redis: true,
    roles: [apiRole],
    env: { REDIS_URL: redis.url, SERVICE_WEBHOOKS_ENABLED: 'true', SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true', EVENTS_RELAY_POLL_MS: '100' },
  });
  await importFixture(t.platform);
}, 60_000);
afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  for (const r of receivers) await r.close();
  await t?.close();
  await redis?.destroy();
});

async function subscribedMap() {
  const { map, key } = await makeMap(t.platform);
  const receiver = await startReceiver();
  receivers.push(receiver);
  await subscribe(t, map.id, key, receiver, receiver.url);
  await toggleWebhooks(t, map.id, key);
  return { map, key, receiver };
}

/** Ids of the map's events once the relay has given each written one its id. */
async function eventIds(mapId: string): Promise<string[]> {
  const query = (sql: string) => t.platform.orm.em.getConnection().execute<Record<string, string>[]>(sql, [mapId]);
  await expect
    .poll(async () => (await query('select count(*) as n from map_events where map_id = ? and event_id is null'))[0]!.n, { timeout: 30_000 })
    .toBe('0');
  return (await query('select event_id from map_events where map_id = ? order by event_id')).map((r) => r.event_id!);
}

const deliveredIds = (r: Receiver) => r.accepted().map((x) => x.headers['x-service-event-id'] as string);

describe('webhook delivery under faults', () => {
  it('spreads work over two workers and sends each event once', async () => {
    const { map, key, receiver } = await subscribedMap();
    // Held answers must not time out, however long both workers take to lease.
    const [w1, w2] = [startWorker({ WEBHOOK_TIMEOUT_MS: '60000' }), startWorker({ WEBHOOK_TIMEOUT_MS: '60000' })];
    await w1.waitForLog('worker role started: delivering webhooks');
    await w2.waitForLog('worker role started: delivering webhooks');
    // Answers wait until both workers hold leases: a worker holds a new subscription's one slot and a
    // buffer of two, so the other takes part whatever the machine's speed.
    const held = gate();
    receiver.reply = () => ({ status: 200, hold: held.hold });
    for (let i = 0; i < 30; i++) await moveSystem(t, map.slug, key, SYSTEMS[i % 3]);
    const ids = await eventIds(map.id);
    const owners = async () =>
      (
        await t.platform.orm.em
          .getConnection()
          .execute<{ n: string }[]>('select count(distinct lease_owner) as n from webhook_deliveries where map_id = ? and lease_owner is not null', [map.id])
      )[0]!.n;
    await expect.poll(owners, { timeout: 60_000, interval: 50 }).toBe('2');
    held.open();
    receiver.reply = () => ({ status: 200 });
    await receiver.waitFor(ids.length, 60_000);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(deliveredIds(receiver).sort()).toEqual(ids);
    expect(receiver.received).toHaveLength(ids.length);
    // Both took part: each worker's own counter of successful attempts.
    const sent = await Promise.all(
      [w1, w2].map(async (w) => {
        const ops = (await w.waitForLog('ops port listening')).url as string;
        const text = await (await fetch(`${ops}/metrics`)).text();
        return Number(/mapintel_webhook_deliveries_total\{outcome="success",status_class="2xx"\} (\d+)/.exec(text)?.[1] ?? 0);
      }),
    );
    expect(sent[0]! + sent[1]!).toBe(ids.length);
    expect(sent[0]).toBeGreaterThan(0);
    expect(sent[1]).toBeGreaterThan(0);
    await w1.stop();
    await w2.stop();
  }, 150_000);

  it('delivers every event although a worker is SIGKILLed mid-delivery', async () => {
    const { map, key, receiver } = await subscribedMap();
    // No answer reaches the first worker before it is killed.
    const held = gate();
    receiver.reply = () => ({ status: 200, hold: held.hold });
    // A 10 s timeout: the request the worker is killed in is still its attempt, however slow the machine.
    const w1 = startWorker({ WEBHOOK_TIMEOUT_MS: '10000' });
    await w1.waitForLog('worker role started: delivering webhooks');
    for (let i = 0; i < 20; i++) await moveSystem(t, map.slug, key, SYSTEMS[i % 3]);
    await expect.poll(() => receiver.received.length, { timeout: 60_000, interval: 10 }).toBeGreaterThanOrEqual(1);
    w1.child.kill('SIGKILL');
    // The dead worker's leases, as it left them (epoch ms).
    const leases = await t.platform.orm.em
      .getConnection()
      .execute<{ event_id: string; until: string }[]>(
        `select event_id, (extract(epoch from lease_until) * 1000)::float8::text as until from webhook_deliveries where map_id = ? and lease_owner is not null`,
        [map.id],
      );
    const leaseUntil = new Map(leases.map((l) => [l.event_id, Number(l.until)]));
    // Requests still waiting for their answer when the worker died, under its lease: it never learnt their outcome.
    const inFlight = new Set(
      receiver.received
        .filter((r) => r.answeredAt === undefined)
        .map((r) => r.headers['x-service-event-id'] as string)
        .filter((id) => leaseUntil.has(id)),
    );
    expect(inFlight.size).toBeGreaterThan(0);
    held.open();
    receiver.reply = () => ({ status: 200 });
    const w2 = startWorker();
    await w2.waitForLog('worker role started: delivering webhooks');
    const ids = await eventIds(map.id);
    // The answers to the requests in flight never reached the dead worker: its leases expire
    // (timeout + 5 s) and the new worker sends those deliveries again, not before.
    const sends = (id: string) => receiver.received.filter((r) => r.headers['x-service-event-id'] === id);
    await expect.poll(() => [...inFlight].every((id) => sends(id).length >= 2), { timeout: 60_000, interval: 100 }).toBe(true);
    for (const id of inFlight) expect(sends(id)[1]!.at, id).toBeGreaterThanOrEqual(leaseUntil.get(id)!);
    // The repeat says so: the dead worker's attempt was counted before it was sent.
    for (const id of inFlight)
      expect(
        sends(id)
          .map((r) => r.headers['x-service-delivery-attempt'])
          .slice(0, 2),
        id,
      ).toEqual(['1', '2']);
    await expect.poll(() => new Set(deliveredIds(receiver)).size, { timeout: 60_000, interval: 100 }).toBe(ids.length);
    expect([...new Set(deliveredIds(receiver))].sort()).toEqual(ids);
    await w2.stop();
  }, 150_000);

  it('keeps a scheduled retry through a worker restart', async () => {
    const { map, key, receiver } = await subscribedMap();
    receiver.reply = ({ count }) => (count === 1 ? { status: 503, headers: { 'retry-after': '3' } } : { status: 200 });
    // A Retry-After is capped at the retry schedule's longest wait (decision 0011): a schedule whose
    // longest wait is beyond the 3 s asked, so the retry is due at the Retry-After, not at the cap.
    const schedule = { WEBHOOK_RETRY_WAITS: '200ms,400ms,5s' };
    let w = startWorker(schedule);
    await w.waitForLog('worker role started: delivering webhooks');
    await moveSystem(t, map.slug, key, SYSTEMS[0]);
    await receiver.waitFor(1, 30_000, (r) => r.status === 503);
    // The outcome is recorded (a batch every 20 ms), then the worker goes away before the retry is due.
    const recorded = async () =>
      (
        await t.platform.orm.em
          .getConnection()
          .execute<{ attempts: number; lease_owner: string | null }[]>('select attempts, lease_owner from webhook_deliveries where map_id = ?', [map.id])
      )[0];
    await expect.poll(recorded, { timeout: 30_000, interval: 20 }).toEqual({ attempts: 1, lease_owner: null });
    expect(await w.stop()).toBe(0);
    w = startWorker(schedule);
    await w.waitForLog('worker role started: delivering webhooks');
    const [ok] = await receiver.waitFor(1, 60_000);
    const first = receiver.received[0]!;
    expect(ok!.headers['x-service-event-id']).toBe(first.headers['x-service-event-id']);
    expect(ok!.headers['x-service-delivery-attempt']).toBe('2');
    expect(ok!.at - first.at).toBeGreaterThanOrEqual(3_000);
    expect(receiver.received).toHaveLength(2);
    await w.stop();
  }, 150_000);

  it('delivers events written while Redis was down, once it is back', async () => {
    const { map, key, receiver } = await subscribedMap();
    const w = startWorker();
    await w.waitForLog('worker role started: delivering webhooks');
    await moveSystem(t, map.slug, key, SYSTEMS[0]);
    await receiver.waitFor(1, 30_000);
    await redis.stop();
    for (let i = 0; i < 5; i++) await moveSystem(t, map.slug, key, SYSTEMS[i % 3]);
    await redis.start();
    const ids = await eventIds(map.id);
    await expect.poll(() => new Set(deliveredIds(receiver)).size, { timeout: 60_000, interval: 100 }).toBe(ids.length);
    expect([...new Set(deliveredIds(receiver))].sort()).toEqual(ids);
    await w.stop();
  }, 150_000);

  it('catches up from PostgreSQL when Redis trimmed the stream under a stopped worker', async () => {
    const { map, key, receiver } = await subscribedMap();
    let w = startWorker();
    await w.waitForLog('worker role started: delivering webhooks');
    await moveSystem(t, map.slug, key, SYSTEMS[0]);
    await receiver.waitFor(1, 30_000);
    expect(await w.stop()).toBe(0);
    for (let i = 0; i < 10; i++) await moveSystem(t, map.slug, key, SYSTEMS[i % 3]);
    const ids = await eventIds(map.id);
    const client = createClient({ url: redis.url });
    await client.connect();
    const keys = new StreamKeys(t.config.redisKeyPrefix, t.config.eventsPartitions);
    const partition = keys.partition(keys.partitionOf(map.id));
    expect(await client.xLen(partition)).toBeGreaterThan(0);
    await client.xTrim(partition, 'MAXLEN', 0);
    await client.xTrim(keys.map(map.id), 'MAXLEN', 0);
    expect(await client.xLen(partition)).toBe(0);
    await client.quit();
    w = startWorker();
    await w.waitForLog('worker role started: delivering webhooks');
    await expect.poll(() => new Set(deliveredIds(receiver)).size, { timeout: 60_000, interval: 100 }).toBe(ids.length);
    expect([...new Set(deliveredIds(receiver))].sort()).toEqual(ids);
    await w.stop();
  }, 150_000);
});
