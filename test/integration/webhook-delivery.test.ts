import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem } from '../support/sse.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { apiRole } from '../../src/api/api.role.js';
import { workerRole } from '../../src/worker/worker.role.js';
import { verify } from '../../src/webhooks/signer.js';
import { toggleWebhooks } from '../support/webhooks.js';
import { Webhook } from 'standardwebhooks';
import type { Received } from '../support/receiver.js';

/**
 * Verifies a delivery as a Standard Webhooks receiver does, with the `standardwebhooks` package and the
 * documented key form of a subscription's secret: `whsec_` + base64 of its UTF-8 bytes. Throws when
 * it does not verify; answers the parsed body.
 */
function standardVerify(secret: string, r: Received, body = r.body): unknown {
  const h = r.headers as Record<string, string>;
  const headers = { 'webhook-id': h['webhook-id']!, 'webhook-timestamp': h['webhook-timestamp']!, 'webhook-signature': h['webhook-signature']! };
  return new Webhook(`whsec_${Buffer.from(secret, 'utf8').toString('base64')}`).verify(body, headers);
}

interface Sub {
  id: string;
  secret: string;
}

const WAITS = [200, 400];
const SYSTEMS = [31000005, 31000001, 31000008];

describe.each([
  ['in-process transport', false],
  ['Redis Streams', true],
])('webhook delivery (%s)', (_name, redis) => {
  let s: TestServer;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    s = await startTestServer({
      redis,
      roles: [apiRole, workerRole],
      env: {
        SERVICE_WEBHOOKS_ENABLED: 'true',
        SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true',
        WEBHOOK_RETRY_WAITS: WAITS.map((w) => `${w}ms`).join(','),
        WEBHOOK_TIMEOUT_MS: '1000',
      },
    });
    await importFixture(s.platform);
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await s?.close();
  });

  async function setup(opts: { events?: string[]; toggle?: boolean; subscriptions?: number } = {}) {
    const { map, key } = await makeMap(s.platform);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const subs: Sub[] = [];
    for (let i = 0; i < (opts.subscriptions ?? 1); i++) {
      const res = await s.fetch(`/api/maps/${map.id}/webhooks`, {
        method: 'POST',
        token: key,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}/${i}`, events: opts.events ?? ['*'] }),
      });
      expect(res.status).toBe(201);
      subs.push(((await res.json()) as { data: Sub }).data);
    }
    receiver.secrets.push(...subs.map((x) => x.secret));
    if (opts.toggle !== false) await toggle(map.id, key, true);
    return { map, key, receiver, subs };
  }

  const toggle = (mapId: string, key: string, enabled: boolean) => toggleWebhooks(s, mapId, key, enabled);

  async function subscription(mapId: string, key: string, id: string) {
    const list = ((await (await s.fetch(`/api/maps/${mapId}/webhooks`, { token: key })).json()) as { data: Record<string, unknown>[] }).data;
    return list.find((x) => x.id === id)!;
  }

  /** The map's event log once the relay has given every written event its id. */
  async function eventLog(mapId: string, key: string) {
    const written = async () =>
      Number((await s.platform.orm.em.getConnection().execute<{ n: string }[]>('select count(*) as n from map_events where map_id = ?', [mapId]))[0]!.n);
    const read = async () =>
      ((await (await s.fetch(`/api/maps/${mapId}/events?limit=1000`, { token: key })).json()) as { data: { id: string; type: string }[] }).data;
    const total = await written();
    await expect.poll(async () => (await read()).length, { timeout: 20_000, interval: 20 }).toBe(total);
    return read();
  }

  it('delivers every event once per subscription, signed, with the envelope bytes of the event log', async () => {
    const { map, key, receiver, subs } = await setup({ subscriptions: 2 });
    for (let i = 0; i < 5; i++) await moveSystem(s, map.slug, key, SYSTEMS[i % 2]!);
    const log = await eventLog(map.id, key);
    // One event per write: add_system twice, then system_metadata_changed three times.
    expect(log.map((e) => e.type)).toEqual(['add_system', 'add_system', 'system_metadata_changed', 'system_metadata_changed', 'system_metadata_changed']);
    const got = await receiver.waitFor(log.length * 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(log.length * 2);
    for (const [i, sub] of subs.entries()) {
      const mine = receiver.received.filter((r) => r.path === `/hook/${i}`);
      expect(mine.map((r) => r.headers['x-service-event-id']).sort()).toEqual(log.map((e) => e.id).sort());
      for (const r of mine) {
        expect(verify(sub.secret, r.headers['x-service-signature'] as string, r.headers['x-service-timestamp'] as string, r.body)).toBe(true);
        // The Standard Webhooks headers: the event id, the same timestamp, a signature the package accepts.
        expect(r.headers['webhook-id']).toBe(r.headers['x-service-event-id']);
        expect(r.headers['webhook-timestamp']).toBe(r.headers['x-service-timestamp']);
        expect(standardVerify(sub.secret, r)).toEqual(JSON.parse(r.body));
        expect(() => standardVerify(sub.secret, r, r.body.replace('"payload":', '"payload" :'))).toThrow();
        expect(() => standardVerify(subs[1 - i]!.secret, r)).toThrow();
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['user-agent']).toMatch(/^mapintel-webhooks\//);
        expect(r.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
        expect(r.headers['x-service-timestamp']).toMatch(/^\d{10}$/);
        expect(r.headers['x-service-delivery-attempt']).toBe('1');
        const envelope = JSON.parse(r.body) as Record<string, unknown>;
        expect(Object.keys(envelope)).toEqual(['id', 'type', 'map_id', 'ts', 'payload']);
        expect(envelope.map_id).toBe(map.id);
        expect(r.headers['x-service-event-type']).toBe(envelope.type);
        const logged = log.find((e) => e.id === envelope.id)!;
        expect(r.body).toBe(JSON.stringify(logged));
      }
    }
    expect(got.every((r) => r.verified)).toBe(true);
    const current = await subscription(map.id, key, subs[0]!.id);
    expect(current.last_delivery_at).toMatch(/Z$/);
    expect(current.consecutive_failures).toBe(0);
  });

  it('sends only the subscribed types', async () => {
    const { map, key, receiver } = await setup({ events: ['system_metadata_changed'] });
    await moveSystem(s, map.slug, key, 31000005); // add_system
    await moveSystem(s, map.slug, key, 31000005); // system_metadata_changed
    const log = await eventLog(map.id, key);
    const wanted = log.filter((e) => e.type === 'system_metadata_changed');
    expect(wanted).toHaveLength(1);
    await receiver.waitFor(wanted.length);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.map((r) => r.headers['x-service-event-id'])).toEqual(wanted.map((e) => e.id));
  });

  it('retries at the scheduled times: fails twice, succeeds on attempt 3', async () => {
    const { map, key, receiver, subs } = await setup();
    receiver.reply = ({ count }) => ({ status: count <= 2 ? 500 : 200 });
    await moveSystem(s, map.slug, key);
    await receiver.waitFor(1);
    const [a, b, c] = receiver.received;
    expect(receiver.received).toHaveLength(3);
    expect([a, b, c].map((r) => r!.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set([a, b, c].map((r) => r!.headers['x-service-event-id'])).size).toBe(1);
    // Waits of 200 ms and 400 ms, each plus 0–20 % jitter, never earlier; how much later depends on the
    // machine and the claim poll (the schedule itself is checked in the attempt log below; all three
    // arrived within waitFor's 10 s).
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(WAITS[0]!);
    expect(c!.at - b!.at).toBeGreaterThanOrEqual(WAITS[1]!);
    // Each attempt is signed afresh and verifies.
    expect([a, b, c].every((r) => r!.verified)).toBe(true);
    const attempts = () => s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/deliveries`, { token: key });
    await expect.poll(async () => ((await (await attempts()).json()) as { data: unknown[] }).data.length, { timeout: 15_000 }).toBe(3);
    const page = (await (await attempts()).json()) as {
      data: {
        attempt: number;
        attempted_at: string;
        duration_ms: number;
        status: number;
        outcome: string;
        error_class: string | null;
        next_attempt_at: string | null;
      }[];
      next_before: number | null;
    };
    expect(page.data.map((x) => [x.attempt, x.status, x.outcome, x.error_class])).toEqual([
      [3, 200, 'success', null],
      [2, 500, 'failure', 'http_5xx'],
      [1, 500, 'failure', 'http_5xx'],
    ]);
    expect(page.data[1]!.next_attempt_at).toMatch(/Z$/);
    expect(page.data[0]!.next_attempt_at).toBeNull();
    // Each failure scheduled its retry the wait (plus jitter) after its answer: attempt 1 → WAITS[0], attempt 2 → WAITS[1].
    for (const [x, wait] of [
      [page.data[2]!, WAITS[0]!],
      [page.data[1]!, WAITS[1]!],
    ] as const) {
      const answered = Date.parse(x.attempted_at) + x.duration_ms;
      const scheduled = Date.parse(x.next_attempt_at!) - answered;
      expect(scheduled).toBeGreaterThanOrEqual(wait - 2);
      expect(scheduled).toBeLessThan(wait * 1.2 + 1_000);
    }
    expect(page.next_before).toBeNull();
    const failures = (await (await s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/deliveries?outcome=failure&limit=1`, { token: key })).json()) as {
      data: { attempt: number }[];
      next_before: number;
    };
    expect(failures.data.map((x) => x.attempt)).toEqual([2]);
    const older = (await (
      await s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/deliveries?outcome=failure&before=${failures.next_before}`, { token: key })
    ).json()) as {
      data: { attempt: number }[];
    };
    expect(older.data.map((x) => x.attempt)).toEqual([1]);
    const current = await subscription(map.id, key, subs[0]!.id);
    expect(current.last_error).toBe('receiver answered 500');
    expect(current.consecutive_failures).toBe(0);
  });

  it("honours Retry-After on 429/503, up to the retry schedule's longest wait", async () => {
    const { map, key, receiver } = await setup();
    receiver.reply = ({ count }) => (count === 1 ? { status: 503, headers: { 'retry-after': '30' } } : { status: 200 });
    await moveSystem(s, map.slug, key);
    await receiver.waitFor(1, 20_000);
    const [a, b] = receiver.received;
    expect(a!.status).toBe(503);
    // 30 s asked, capped at the schedule's longest wait (400 ms here), which is longer than the first wait
    // (200-240 ms): honoured past the cap, the retry would come 30 s on (a busy machine may add seconds).
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(WAITS.at(-1)! - 10);
    expect(b!.at - a!.at).toBeLessThan(10_000);
  });

  it('disables the subscription at once on 410 Gone', async () => {
    const { map, key, receiver, subs } = await setup();
    receiver.reply = () => ({ status: 410 });
    await moveSystem(s, map.slug, key);
    await receiver.waitFor(1, 20_000, (r) => r.status === 410);
    await expect.poll(async () => (await subscription(map.id, key, subs[0]!.id)).active, { timeout: 20_000 }).toBe(false);
    const current = await subscription(map.id, key, subs[0]!.id);
    expect(current.last_error).toContain('410');
    await moveSystem(s, map.slug, key);
    await new Promise((r) => setTimeout(r, 800));
    expect(receiver.received).toHaveLength(1);
  });

  it('disables after 10 consecutive events exhausted their attempts; active again resets the count', async () => {
    const { map, key, receiver, subs } = await setup();
    receiver.reply = () => ({ status: 500 });
    for (let i = 0; i < 10; i++) await moveSystem(s, map.slug, key, SYSTEMS[i % 3]!);
    const log = await eventLog(map.id, key);
    expect(log).toHaveLength(10);
    await expect.poll(async () => (await subscription(map.id, key, subs[0]!.id)).active, { timeout: 15_000, interval: 200 }).toBe(false);
    const disabled = await subscription(map.id, key, subs[0]!.id);
    expect(disabled.consecutive_failures).toBe(10);
    expect(disabled.last_error).toMatch(/disabled after 10 consecutive events/);
    // 3 attempts for each of the 10 events; nothing is tried once it is inactive.
    await new Promise((r) => setTimeout(r, 1_000));
    const count = receiver.received.length;
    expect(count).toBe(30);
    await moveSystem(s, map.slug, key);
    await new Promise((r) => setTimeout(r, 800));
    expect(receiver.received.length).toBe(count);
    const res = await s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}`, {
      method: 'PUT',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ active: true }),
    });
    expect(((await res.json()) as { data: { active: boolean; consecutive_failures: number } }).data).toMatchObject({ active: true, consecutive_failures: 0 });
  });

  it('signs with the new secret only after rotate-secret', async () => {
    const { map, key, receiver, subs } = await setup();
    await moveSystem(s, map.slug, key);
    await receiver.waitFor(1);
    const rot = await s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/rotate-secret`, { method: 'POST', token: key });
    const fresh = ((await rot.json()) as { data: { secret: string } }).data.secret;
    receiver.secrets.splice(0, receiver.secrets.length, fresh);
    const before = receiver.received.length;
    await moveSystem(s, map.slug, key);
    await receiver.waitFor(before + 1, 20_000, (r) => r.verified);
    const after = receiver.received.slice(before);
    for (const r of after) {
      const sig = r.headers['x-service-signature'] as string;
      const ts = r.headers['x-service-timestamp'] as string;
      expect(verify(fresh, sig, ts, r.body)).toBe(true);
      expect(verify(subs[0]!.secret, sig, ts, r.body)).toBe(false);
      expect(standardVerify(fresh, r)).toEqual(JSON.parse(r.body));
      expect(() => standardVerify(subs[0]!.secret, r)).toThrow();
    }
  });

  it('sends nothing for events committed while the subscription was inactive or the map toggle off', async () => {
    const { map, key, receiver, subs } = await setup({ toggle: false });
    await moveSystem(s, map.slug, key); // toggle off
    await toggle(map.id, key, true);
    await s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}`, {
      method: 'PUT',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ active: false }),
    });
    await moveSystem(s, map.slug, key); // inactive
    await s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}`, {
      method: 'PUT',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ active: true }),
    });
    await moveSystem(s, map.slug, key); // delivered
    const log = await eventLog(map.id, key);
    await receiver.waitFor(1);
    await new Promise((r) => setTimeout(r, 800));
    expect(receiver.received.map((r) => r.headers['x-service-event-id'])).toEqual([log.at(-1)!.id]);
  });

  it('redelivers an event on request and sends a signed ping', async () => {
    const { map, key, receiver, subs } = await setup();
    await moveSystem(s, map.slug, key);
    const [first] = await receiver.waitFor(1);
    const eventId = first!.headers['x-service-event-id'] as string;
    const res = await s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/redeliver`, {
      method: 'POST',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event_id: eventId.toLowerCase() }),
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({
      data: { event_id: eventId, event_type: first!.headers['x-service-event-type'], subscription_id: subs[0]!.id, state: 'pending' },
    });
    const both = await receiver.waitFor(2);
    expect(both[1]!.body).toBe(first!.body);
    expect(both[1]!.headers['x-service-delivery-attempt']).toBe('1');

    const unknown = await s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/redeliver`, {
      method: 'POST',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' }),
    });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe('event_not_found');
    const malformed = await s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/redeliver`, {
      method: 'POST',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event_id: 'nope' }),
    });
    expect(malformed.status).toBe(400);

    // A subscription that does not receive the event's type gets no redelivery of it.
    const killsOnly = await s.fetch(`/api/maps/${map.id}/webhooks`, {
      method: 'POST',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiver.url}/kills-only`, events: ['map_kill'] }),
    });
    expect(killsOnly.status).toBe(201);
    const killsOnlyId = ((await killsOnly.json()) as { data: { id: string } }).data.id;
    const refused = await s.fetch(`/api/maps/${map.id}/webhooks/${killsOnlyId}/redeliver`, {
      method: 'POST',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event_id: eventId }),
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: `This subscription does not receive ${first!.headers['x-service-event-type'] as string} events (its events: map_kill)`,
      code: 'event_not_subscribed',
    });
    const queued = await s.platform.orm.em
      .fork()
      .getConnection()
      .execute<{ n: string }[]>('select count(*)::text as n from webhook_deliveries where subscription_id = ?', [killsOnlyId]);
    expect(queued[0]!.n).toBe('0');

    const ping = await s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/ping`, { method: 'POST', token: key });
    expect(ping.status).toBe(200);
    const result = ((await ping.json()) as { data: Record<string, unknown> }).data;
    expect(result).toMatchObject({ status: 200, outcome: 'success', error_class: null, error: null });
    expect(typeof result.duration_ms).toBe('number');
    const pinged = receiver.received.at(-1)!;
    expect(pinged.verified).toBe(true);
    expect(pinged.headers['x-service-event-type']).toBe('ping');
    expect(JSON.parse(pinged.body)).toMatchObject({ id: result.event_id, type: 'ping', map_id: map.id, payload: { subscription_id: subs[0]!.id } });
    const log = (await (await s.fetch(`/api/maps/${map.id}/webhooks/${subs[0]!.id}/deliveries?limit=10`, { token: key })).json()) as {
      data: { event_id: string; event_type: string; attempt: number; outcome: string }[];
    };
    expect(log.data.filter((a) => a.event_type === 'ping')).toEqual([
      expect.objectContaining({ event_id: result.event_id, event_type: 'ping', attempt: 1, outcome: 'success' }),
    ]);
  });

  it('exposes delivery metrics and never logs a secret', async () => {
    const metrics = await (await fetch(`${s.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/mapintel_webhook_deliveries_total\{outcome="success",status_class="2xx"\} [1-9]/);
    expect(metrics).toMatch(/mapintel_webhook_deliveries_total\{outcome="failure",status_class="5xx"\} [1-9]/);
    expect(metrics).toMatch(/mapintel_webhook_attempt_duration_seconds_count [1-9]/);
    expect(metrics).toMatch(/mapintel_webhook_event_to_delivered_seconds_count [1-9]/);
    expect(metrics).toContain('mapintel_webhook_queue_pending');
    expect(metrics).toContain('mapintel_webhook_queue_oldest_age_seconds');
    expect(metrics).toMatch(/mapintel_webhook_subscriptions\{state="(active|inactive)"\}/);
    expect(metrics).toContain('mapintel_webhook_worker_in_flight');
    expect(metrics).toMatch(/mapintel_webhook_worker_queued \d+/);
    for (const r of receivers) for (const secret of r.secrets) expect(s.rawLogs()).not.toContain(secret);
  });
});
