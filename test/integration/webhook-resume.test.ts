/**
 * Warnings before a disable, and a subscription disabled after failures resuming by itself when a
 * signed probe succeeds (docs/decisions/0011-webhooks-for-integrators.md). Real PostgreSQL, the worker
 * role, loopback receivers; short retry and probe schedules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem, openStream, type SseConnection } from '../support/sse.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { metricSum, scrape } from '../support/metrics.js';
import { apiRole } from '../../src/api/api.role.js';
import { workerRole } from '../../src/worker/worker.role.js';
import { streamRole } from '../../src/stream/stream.role.js';
import { subscribe, toggleWebhooks } from '../support/webhooks.js';

const DISABLE_AFTER = 10;
const SYSTEMS = [31000005, 31000001, 31000008];

describe('warnings before a disable, and resuming by itself', () => {
  let s: TestServer;
  const receivers: Receiver[] = [];
  const streams: SseConnection[] = [];

  beforeAll(async () => {
    s = await startTestServer({
      roles: [apiRole, streamRole, workerRole],
      env: {
        SERVICE_SSE_ENABLED: 'true',
        SERVICE_WEBHOOKS_ENABLED: 'true',
        SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true',
        WEBHOOK_RETRY_WAITS: '50ms',
        WEBHOOK_DISABLE_AFTER: String(DISABLE_AFTER),
        WEBHOOK_PROBE_WAITS: '400ms,800ms',
        WEBHOOK_TIMEOUT_MS: '2000',
      },
    });
    await importFixture(s.platform);
  });
  afterAll(async () => {
    for (const c of streams) c.close();
    for (const r of receivers) await r.close();
    await s?.close();
  });

  async function setup() {
    const { map, key } = await makeMap(s.platform);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const sub = await subscribe(s, map.id, key, receiver, receiver.url);
    await toggleWebhooks(s, map.id, key);
    const stream = await openStream(`${s.url}/api/maps/${map.id}/events/stream`, { headers: { authorization: `Bearer ${key}` } });
    streams.push(stream);
    await stream.waitFor((f) => f.event === 'connected');
    return { map, key, receiver, sub, stream };
  }

  /** The webhook notices a stream got about one subscription: kind and payload. */
  const noticeFrames = (stream: SseConnection, id: string) =>
    stream.frames
      .filter((f) => f.event?.startsWith('webhook_'))
      .map((f) => ({ kind: f.event!, id: f.id, data: JSON.parse(f.data!) as Record<string, unknown> }))
      .filter((f) => f.data.subscription_id === id);

  /** The subscription's state, read from PostgreSQL (polling the API would meet its rate limit). */
  async function subscription(_mapId: string, _key: string, id: string) {
    const [row] = await s.platform.orm.em
      .getConnection()
      .execute<{ active: boolean; consecutive_failures: number }[]>('select active, consecutive_failures from webhook_subscriptions where id = ?', [id]);
    return row!;
  }

  /** The worker's log lines about one subscription's failing state, in the order written. */
  const notices = (id: string) =>
    s.logs
      .filter((l) => l.subscription === id && typeof l.msg === 'string' && /^webhook subscription (failing|disabled|resumed)/.test(l.msg))
      .map((l) =>
        l.msg === 'webhook subscription disabled' ? 'disabled' : String(l.msg).startsWith('webhook subscription resumed') ? 'resumed' : `failing ${l.level}`,
      );

  it("warns at 50 % and 90 % of the threshold before it disables a subscription, on the map's stream, and counts the warnings", async () => {
    const { map, key, receiver, sub, stream } = await setup();
    receiver.reply = ({ headers }) => ({ status: headers['x-service-event-type'] === 'ping' ? 500 : 500 });
    const warningsBefore = metricSum(await scrape(s.opsUrl), 'mapintel_webhook_subscription_warnings_total') ?? 0;
    for (let i = 0; i < DISABLE_AFTER; i++) await moveSystem(s, map.slug, key, SYSTEMS[i % 3]!);
    await expect.poll(async () => (await subscription(map.id, key, sub.id)).active, { timeout: 30_000, interval: 100 }).toBe(false);
    const seen = notices(sub.id);
    expect(seen.slice(0, 3)).toEqual(['failing 50', 'failing 90', 'disabled']);
    const warnings = metricSum(await scrape(s.opsUrl), 'mapintel_webhook_subscription_warnings_total')!;
    expect(warnings - warningsBefore).toBe(2);
    // The map's stream: webhook_failing at 50 % and 90 %, then webhook_disabled; frames without an id.
    await stream.waitFor((f) => f.event === 'webhook_disabled', 1, 20_000);
    const frames = noticeFrames(stream, sub.id);
    expect(frames.map((f) => [f.kind, f.data.level])).toEqual([
      ['webhook_failing', 50],
      ['webhook_failing', 90],
      ['webhook_disabled', undefined],
    ]);
    expect(frames.every((f) => f.id === undefined)).toBe(true);
    expect(frames[0]!.data).toEqual({
      subscription_id: sub.id,
      map_id: map.id,
      level: 50,
      consecutive_failures: DISABLE_AFTER / 2,
      disable_after: DISABLE_AFTER,
      last_error: 'receiver answered 500',
      at: expect.stringMatching(/Z$/),
    });
    expect(frames[2]!.data).toMatchObject({ subscription_id: sub.id, reason: 'failures', last_error: 'receiver answered 500' });
  });

  it('warns before a 410 Gone disables at once: no subscription is disabled without a prior warning', async () => {
    const { map, key, receiver, sub, stream } = await setup();
    receiver.reply = () => ({ status: 410 });
    await moveSystem(s, map.slug, key, SYSTEMS[0]);
    await expect.poll(async () => (await subscription(map.id, key, sub.id)).active, { timeout: 30_000, interval: 100 }).toBe(false);
    await expect.poll(() => notices(sub.id), { timeout: 5_000 }).toEqual(['failing 90', 'disabled']);
    await stream.waitFor((f) => f.event === 'webhook_disabled', 1, 20_000);
    expect(noticeFrames(stream, sub.id).map((f) => f.kind)).toEqual(['webhook_failing', 'webhook_disabled']);
    // Every disable in this server's log came after a warning for the same subscription.
    const disabledIds = new Set(s.logs.filter((l) => l.msg === 'webhook subscription disabled').map((l) => String(l.subscription)));
    // This one among them (at least one disable in the log was met by an earlier test's alone).
    expect(disabledIds).toContain(sub.id);
    for (const id of disabledIds) {
      const seen = notices(id);
      expect(seen.indexOf('failing 90'), id).toBeGreaterThanOrEqual(0);
      expect(seen.indexOf('failing 90'), id).toBeLessThan(seen.indexOf('disabled'));
    }
  });

  it('probes a subscription disabled after failures with signed pings, resumes on a 2xx and delivers what it missed, in order', async () => {
    const { map, key, receiver, sub, stream } = await setup();
    let up = false;
    receiver.reply = () => ({ status: up ? 200 : 503 });
    for (let i = 0; i < DISABLE_AFTER; i++) await moveSystem(s, map.slug, key, SYSTEMS[i % 3]!);
    await expect.poll(async () => (await subscription(map.id, key, sub.id)).active, { timeout: 30_000, interval: 100 }).toBe(false);
    // Probes keep failing while the receiver is down: signed pings, at growing intervals.
    const probes = await receiver.waitFor(2, 20_000, (r) => r.verified && r.headers['x-service-event-type'] === 'ping');
    expect(JSON.parse(probes[0]!.body)).toMatchObject({ type: 'ping', map_id: map.id, payload: { subscription_id: sub.id } });
    expect(probes[0]!.headers['webhook-sequence']).toBeUndefined();
    // Written while it is disabled: not sent now, sent once it resumes.
    for (const id of [31000001, 31000008]) await moveSystem(s, map.slug, key, id);
    // Once the relay has given every written event its id.
    const conn = s.platform.orm.em.getConnection();
    await expect
      .poll(
        async () => Number((await conn.execute<{ n: string }[]>('select count(*) as n from map_events where map_id = ? and event_id is null', [map.id]))[0]!.n),
        {
          timeout: 20_000,
        },
      )
      .toBe(0);
    const log = ((await (await s.fetch(`/api/maps/${map.id}/events?limit=1000`, { token: key })).json()) as { data: { id: string }[] }).data;
    const missedIds = log.slice(-2).map((e) => e.id);
    const seenBefore = receiver.received.length;
    const resumedBefore = metricSum(await scrape(s.opsUrl), 'mapintel_webhook_subscriptions_resumed_total') ?? 0;
    up = true;
    await expect.poll(async () => (await subscription(map.id, key, sub.id)).active, { timeout: 30_000, interval: 100 }).toBe(true);
    const after = await receiver.waitFor(
      1,
      20_000,
      (r) => r.verified && r.status === 200 && r.headers['x-service-event-id'] === missedIds[1] && receiver.received.indexOf(r) >= seenBefore,
    );
    expect(after).toHaveLength(1);
    const delivered = receiver.received.slice(seenBefore).filter((r) => r.status === 200 && r.headers['x-service-event-type'] !== 'ping');
    const order = delivered.map((r) => r.headers['x-service-event-id']).filter((id) => missedIds.includes(id as string));
    expect(order).toEqual(missedIds);
    const sequences = delivered.filter((r) => missedIds.includes(r.headers['x-service-event-id'] as string)).map((r) => Number(r.headers['webhook-sequence']));
    // Numbered on from the ten it failed, in event order, none skipped (the probes' pings take no number).
    expect(sequences).toEqual([DISABLE_AFTER + 1, DISABLE_AFTER + 2]);
    expect((await subscription(map.id, key, sub.id)).consecutive_failures).toBe(0);
    expect(notices(sub.id)).toContain('resumed');
    await stream.waitFor((f) => f.event === 'webhook_recovered', 1, 20_000);
    const recovered = noticeFrames(stream, sub.id).at(-1)!;
    expect(recovered.kind).toBe('webhook_recovered');
    expect(recovered.data).toMatchObject({ subscription_id: sub.id, map_id: map.id });
    // The two events written while it was disabled, no more, and this one resume counted once.
    expect(recovered.data.missed_events).toBe(2);
    expect(metricSum(await scrape(s.opsUrl), 'mapintel_webhook_subscriptions_resumed_total')).toBe(resumedBefore + 1);
  });

  it('tells the stream a warned subscription recovered when it delivers again', async () => {
    const { map, key, receiver, sub, stream } = await setup();
    let up = false;
    receiver.reply = () => ({ status: up ? 200 : 500 });
    for (let i = 0; i < DISABLE_AFTER / 2; i++) await moveSystem(s, map.slug, key, SYSTEMS[i % 3]!);
    await stream.waitFor((f) => f.event === 'webhook_failing', 1, 30_000);
    await expect.poll(async () => (await subscription(map.id, key, sub.id)).consecutive_failures, { timeout: 30_000, interval: 100 }).toBe(DISABLE_AFTER / 2);
    up = true;
    await moveSystem(s, map.slug, key, 31000005);
    await stream.waitFor((f) => f.event === 'webhook_recovered', 1, 30_000);
    const frames = noticeFrames(stream, sub.id);
    expect(frames.map((f) => f.kind)).toEqual(['webhook_failing', 'webhook_recovered']);
    expect(frames[1]!.data).toMatchObject({ subscription_id: sub.id, map_id: map.id, missed_events: 0, since: null });
    expect((await subscription(map.id, key, sub.id)).active).toBe(true);
  });

  it('never probes a subscription its owner switched off', async () => {
    const { map, key, receiver, sub } = await setup();
    const res = await s.fetch(`/api/maps/${map.id}/webhooks/${sub.id}`, {
      method: 'PUT',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ active: false }),
    });
    expect(res.status).toBe(200);
    // Several probe intervals (400 ms, then 800 ms) pass: no ping comes.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(receiver.received.filter((r) => r.headers['x-service-event-type'] === 'ping')).toEqual([]);
    expect((await subscription(map.id, key, sub.id)).active).toBe(false);
  });
});
