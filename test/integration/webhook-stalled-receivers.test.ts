/**
 * Receivers that answer 200 and then never end their body: each attempt runs to the timeout and is a
 * success, but it must not grow its subscription's share of the worker (subscription-slots.ts), and one
 * map's subscriptions together hold at most WEBHOOK_CONCURRENCY_PER_MAP slots (delivery-dispatcher.ts).
 * Another map's deliveries all go out beside them while the stalled attempts still hang (how long they
 * take beside the stallers against alone is a figure of make bench-webhooks, not an assertion).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, makeMap } from '../support/factories.js';
import { moveSystem } from '../support/sse.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { apiRole } from '../../src/api/api.role.js';
import { workerRole } from '../../src/worker/worker.role.js';
import { subscribe, toggleWebhooks, WEBHOOKS_ON } from '../support/webhooks.js';

// Long enough that the victim's ten events go out within one stalled round however slow the machine.
const TIMEOUT_MS = 8_000;
const CONCURRENCY = 8;
const PER_MAP = 3;
const VICTIM_EVENTS = 10;

interface Stalled {
  start: number;
  closed?: number;
}

/** A receiver that answers 200 with the first byte of a body it never ends; records when each request began and closed. */
async function startStaller(): Promise<{ url: string; requests: Stalled[]; open(): number; close(): Promise<void> }> {
  const requests: Stalled[] = [];
  const server = http.createServer((req, res) => {
    const r: Stalled = { start: Date.now() };
    requests.push(r);
    req.resume();
    res.on('close', () => (r.closed = Date.now()));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{');
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    open: () => requests.filter((r) => r.closed === undefined).length,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('webhook worker with stalling receivers', () => {
  let s: TestServer;
  let staller: Awaited<ReturnType<typeof startStaller>>;
  let victim: Receiver;

  beforeAll(async () => {
    s = await startTestServer({
      roles: [apiRole, workerRole],
      env: {
        ...WEBHOOKS_ON,
        WEBHOOK_CONCURRENCY: String(CONCURRENCY),
        WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: '4',
        WEBHOOK_CONCURRENCY_PER_MAP: String(PER_MAP),
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOK_RETRY_WAITS: '30s',
      },
    });
    await importFixture(s.platform);
    staller = await startStaller();
    victim = await startReceiver();
  });
  afterAll(async () => {
    await staller?.close();
    await victim?.close();
    await s?.close();
  });

  /** Posts the victim's events and waits for them; the time from the first post to the last arrival. */
  async function victimRound(map: { slug: string; key: string }): Promise<{ started: number; lastArrival: number }> {
    const before = victim.received.length;
    const started = Date.now();
    for (let i = 0; i < VICTIM_EVENTS; i++) await moveSystem(s, map.slug, map.key);
    await victim.waitFor(before + VICTIM_EVENTS, 4 * TIMEOUT_MS);
    return { started, lastArrival: Math.max(...victim.received.slice(before).map((r) => r.at)) };
  }

  it('delivers every event of a victim map while five subscriptions of a map whose receivers stall after 200 still hang, that map holding at most its share', async () => {
    const live = await makeMap(s.platform);
    await subscribe(s, live.map.id, live.key, victim, `${victim.url}/victim`);
    await toggleWebhooks(s, live.map.id, live.key);
    // The victim alone (twice: the first round warms connections and caches).
    await victimRound({ slug: live.map.slug, key: live.key });
    await victimRound({ slug: live.map.slug, key: live.key });

    const stalling = await makeMap(s.platform);
    for (let i = 0; i < 5; i++) await subscribe(s, stalling.map.id, stalling.key, victim, `${staller.url}/s${i}`);
    await toggleWebhooks(s, stalling.map.id, stalling.key);
    for (let i = 0; i < 8; i++) await moveSystem(s, stalling.map.slug, stalling.key);
    // Past the first stalled round (whose successes grew each subscription's share before), and at the
    // start of a fresh one: its attempts hang for the whole timeout from now.
    await until(() => staller.requests.filter((r) => r.closed !== undefined).length >= PER_MAP, 3 * TIMEOUT_MS, 'a stalled round to end');
    await until(
      () => staller.requests.length >= 2 * PER_MAP && Date.now() - Math.max(...staller.requests.map((r) => r.start)) < 300,
      3 * TIMEOUT_MS,
      'a fresh stalled round',
    );
    const stalledNow = staller.requests.filter((r) => r.closed === undefined);
    expect(stalledNow.length).toBeGreaterThan(0);

    const beside = await victimRound({ slug: live.map.slug, key: live.key });
    // Every stalled attempt that hung when the victim's round began still hangs once its events are in.
    for (const r of stalledNow) expect(r.closed ?? Infinity).toBeGreaterThan(beside.lastArrival);

    // Over the whole run: never more than WEBHOOK_CONCURRENCY_PER_MAP of the stalling map's attempts
    // hanging at once, however many its five subscriptions wanted, and that share used.
    const events = staller.requests.flatMap((r) => [
      { at: r.start, d: 1 },
      { at: r.closed ?? Infinity, d: -1 },
    ]);
    events.sort((a, b) => a.at - b.at || a.d - b.d);
    let open = 0;
    let peak = 0;
    for (const e of events) peak = Math.max(peak, (open += e.d));
    expect(peak).toBe(PER_MAP);
  }, 120_000);
});
