/**
 * What integrators get beyond delivery itself (docs/decisions/0011-webhooks-for-integrators.md):
 * `webhook-sequence` numbers, a receiver's Retry-After holding its subscription, recover since a time,
 * and health from the attempt log. Real PostgreSQL, the worker role, loopback receivers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem } from '../support/sse.js';
import { gate, startReceiver, type Receiver } from '../support/receiver.js';
import { apiRole } from '../../src/api/api.role.js';
import { workerRole } from '../../src/worker/worker.role.js';
import { subscribe, toggleWebhooks } from '../support/webhooks.js';

/** The retry schedule: three attempts; its longest wait (3 s) caps a receiver's Retry-After. */
const WAITS = [300, 3_000];

describe('webhooks for integrators', () => {
  let s: TestServer;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    s = await startTestServer({
      roles: [apiRole, workerRole],
      env: {
        SERVICE_WEBHOOKS_ENABLED: 'true',
        SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true',
        WEBHOOK_RETRY_WAITS: WAITS.map((w) => `${w}ms`).join(','),
        WEBHOOK_TIMEOUT_MS: '2000',
      },
    });
    await importFixture(s.platform);
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await s?.close();
  });

  async function setup(subscriptions = 1) {
    const { map, key } = await makeMap(s.platform);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const subs: { id: string; secret: string }[] = [];
    for (let i = 0; i < subscriptions; i++) subs.push(await subscribe(s, map.id, key, receiver, `${receiver.url}/${i}`));
    await toggleWebhooks(s, map.id, key);
    return { map, key, receiver, subs };
  }

  /** The map's event ids once the relay has published every written event, oldest first. */
  async function eventIds(mapId: string, key: string, atLeast: number): Promise<string[]> {
    const read = async () => ((await (await s.fetch(`/api/maps/${mapId}/events?limit=1000`, { token: key })).json()) as { data: { id: string }[] }).data;
    await expect.poll(async () => (await read()).length, { timeout: 20_000, interval: 20 }).toBeGreaterThanOrEqual(atLeast);
    return (await read()).map((e) => e.id);
  }

  const post = (path: string, key: string, body: unknown) =>
    s.fetch(path, { method: 'POST', token: key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  describe('webhook-sequence', () => {
    it('numbers each subscription 1, 2, 3… in event order, and a retry carries the number of its first attempt', async () => {
      const { map, key, receiver } = await setup(2);
      // The second event's first attempt to subscription 0 fails; its retry must carry the same number.
      let failedOnce = false;
      receiver.reply = ({ headers }) => {
        if (!failedOnce && headers['webhook-sequence'] === '2' && String(headers['x-service-delivery-attempt']) === '1') {
          failedOnce = true;
          return { status: 500 };
        }
        return { status: 200 };
      };
      for (const id of [31000005, 31000001, 31000008]) await moveSystem(s, map.slug, key, id);
      const ids = await eventIds(map.id, key, 3);
      await receiver.waitFor(ids.length * 2, 20_000);
      for (const path of ['/hook/0', '/hook/1']) {
        const ok = receiver.accepted().filter((r) => r.path === path);
        const byEvent = new Map(ok.map((r) => [r.headers['x-service-event-id'], Number(r.headers['webhook-sequence'])]));
        // Numbered in the order the events were planned: the event log's order.
        expect(ids.map((id) => byEvent.get(id))).toEqual(ids.map((_, i) => i + 1));
      }
      const retried = receiver.received.filter(
        (r) => r.headers['webhook-sequence'] === '2' && r.path === receiver.received.find((x) => x.status === 500)!.path,
      );
      expect(retried.map((r) => [r.headers['x-service-delivery-attempt'], r.status])).toEqual([
        ['1', 500],
        ['2', 200],
      ]);
      expect(new Set(retried.map((r) => r.headers['x-service-event-id'])).size).toBe(1);
    });
  });

  describe('Retry-After', () => {
    it("holds the subscription's next attempts for the seconds a 429 asks, while its other subscriptions go on", async () => {
      const { map, key, receiver } = await setup(2);
      let answered429At = 0;
      receiver.reply = ({ headers }) => {
        if (answered429At === 0 && String(headers['webhook-sequence']) === '1' && headers['x-service-event-type'] !== undefined) {
          answered429At = Date.now();
          return { status: 429, headers: { 'retry-after': '2' } };
        }
        return { status: 200 };
      };
      await moveSystem(s, map.slug, key, 31000005);
      await expect.poll(() => answered429At, { timeout: 20_000, interval: 20 }).toBeGreaterThan(0);
      const heldPath = receiver.received.find((r) => r.status === 429)!.path;
      // Events written during the hold: the held subscription gets none of them before it ends.
      for (const id of [31000001, 31000008]) await moveSystem(s, map.slug, key, id);
      const ids = await eventIds(map.id, key, 3);
      await receiver.waitFor(ids.length * 2, 20_000);
      const held = receiver.received.filter((r) => r.path === heldPath && r.status !== 429);
      // Every event once (the refused one again), none twice: 'at least one each' let repeats through.
      expect(held.map((r) => r.headers['webhook-sequence']).sort()).toEqual(ids.map((_, i) => String(i + 1)));
      for (const r of held) expect(r.at - answered429At).toBeGreaterThanOrEqual(1_900);
      // The other subscription of the map was never held: it got its events, each once.
      const other = receiver.accepted().filter((r) => r.path !== heldPath);
      expect(other.map((r) => r.headers['webhook-sequence'])).toEqual(ids.map((_, i) => String(i + 1)));
    });

    it('caps a Retry-After past the retry schedule (even one too large to read) at its longest wait', async () => {
      const { map, key, receiver } = await setup(1);
      let first = 0;
      receiver.reply = () => {
        if (first === 0) {
          first = Date.now();
          return { status: 503, headers: { 'retry-after': '9'.repeat(40) } };
        }
        return { status: 200 };
      };
      await moveSystem(s, map.slug, key, 31000005);
      const [again] = await receiver.waitFor(1, 30_000);
      // At the cap (3 s), not 10^40 seconds later, and never before it.
      expect(again!.at - first).toBeGreaterThanOrEqual(2_900);
      expect(again!.headers['x-service-delivery-attempt']).toBe('2');
    });
  });

  describe('POST /api/maps/{map_id}/webhooks/{id}/recover', () => {
    it('delivers every matching event since the time again, in event order, with their numbers, marked recovered', async () => {
      const { map, key, receiver, subs } = await setup(1);
      const before = new Date(Date.now() - 1_000).toISOString();
      for (const id of [31000005, 31000001]) await moveSystem(s, map.slug, key, id);
      const ids = await eventIds(map.id, key, 2);
      await receiver.waitFor(ids.length, 20_000);
      const open = gate();
      receiver.reply = () => ({ status: 200, hold: open.hold });
      const res = await post(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/recover`, key, { since: before });
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ data: { events: ids.length } });
      // A second recover while the first still delivers: 409.
      const again = await post(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/recover`, key, { since: before });
      expect(again.status).toBe(409);
      expect(((await again.json()) as { code: string }).code).toBe('recover_in_progress');
      open.open();
      const all = await receiver.waitFor(ids.length * 2, 20_000);
      const recovered = all.slice(ids.length);
      expect(recovered.map((r) => r.headers['x-service-event-id'])).toEqual(ids);
      expect(recovered.map((r) => r.headers['webhook-sequence'])).toEqual(ids.map((_, i) => String(i + 1)));
      await expect
        .poll(
          async () => {
            const page = (await (await s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/deliveries`, { token: key })).json()) as {
              data: { event_id: string; recovered: boolean; sequence: number }[];
            };
            return page.data.filter((a) => a.recovered).map((a) => [a.event_id, a.sequence]);
          },
          { timeout: 20_000, interval: 50 },
        )
        .toEqual(ids.map((id, i) => [id, i + 1]).reverse());
    });

    it('answers 400 naming the oldest time available for a `since` past the retention, and 400 for more than 10,000 events', async () => {
      const { map, key, subs } = await setup(1);
      const old = await post(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/recover`, key, { since: '2020-01-01T00:00:00Z' });
      expect(old.status).toBe(400);
      const body = (await old.json()) as { code: string; error: string; details: { field: string }[] };
      expect(body.code).toBe('recover_since_too_old');
      const oldest = /oldest time available is (\S+Z)/.exec(body.error)![1]!;
      // EVENTS_RETENTION_DAYS is 7 by default.
      expect(Math.abs(Date.parse(oldest) - (Date.now() - 7 * 86_400_000))).toBeLessThan(120_000);
      expect(body.details[0]!.field).toBe('since');
      const bad = await post(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/recover`, key, { since: 'yesterday' });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { code: string }).code).toBe('validation_failed');

      const since = new Date(Date.now() - 60_000).toISOString();
      // 10,001 events in the log: one written and published, and 10,000 with ids below it (which the
      // relay, whose cursor is past them, counts as published).
      await moveSystem(s, map.slug, key, 31000005);
      await eventIds(map.id, key, 1);
      await s.platform.orm.em.getConnection().execute(
        `insert into map_events (map_id, type, payload, event_id, created_at)
         select ?, 'map_kill', '{}'::jsonb, '00' || lpad(g::text, 24, '0'), now() from generate_series(1, 10000) g`,
        [map.id],
      );
      const many = await post(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/recover`, key, { since });
      expect(many.status).toBe(400);
      expect(((await many.json()) as { code: string }).code).toBe('recover_too_many_events');
      const queued = await s.platform.orm.em
        .getConnection()
        .execute<{ n: string }[]>(`select count(*) as n from webhook_deliveries where subscription_id = ? and recovered`, [subs[0]!.id]);
      expect(Number(queued[0]!.n)).toBe(0);
    });
  });

  describe('GET /api/maps/{map_id}/webhooks/{id}/stats', () => {
    it('counts attempts by outcome and failure class, with latency percentiles and the last error, over the window', async () => {
      const { map, key, receiver, subs } = await setup(1);
      receiver.reply = ({ count }) => ({ status: count === 1 ? 502 : 200 });
      await moveSystem(s, map.slug, key, 31000005);
      await receiver.waitFor(1, 20_000);
      const url = `/api/maps/${map.id}/webhooks/${subs[0]!.id}/stats`;
      type Stats = { data: Record<string, unknown> & { latency_ms: { p50: number | null; p99: number | null } } };
      await expect.poll(async () => ((await (await s.fetch(`${url}?window=5m`, { token: key })).json()) as Stats).data.attempts, { timeout: 20_000 }).toBe(2);
      const stats = ((await (await s.fetch(`${url}?window=5m`, { token: key })).json()) as Stats).data;
      expect(stats).toEqual({
        window_seconds: 300,
        attempts: 2,
        succeeded: 1,
        failed: 1,
        failed_by_class: { http_5xx: 1 },
        latency_ms: { p50: expect.any(Number), p99: expect.any(Number) },
        last_error: 'receiver answered 502',
        last_error_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      expect(stats.latency_ms.p99!).toBeGreaterThanOrEqual(stats.latency_ms.p50!);
      expect(((await (await s.fetch(url, { token: key })).json()) as Stats).data.window_seconds).toBe(3600);
      expect(((await (await s.fetch(`${url}?window=24h`, { token: key })).json()) as Stats).data.window_seconds).toBe(86400);
      const bad = await s.fetch(`${url}?window=2h`, { token: key });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { code: string }).code).toBe('validation_failed');
    });
  });
});
