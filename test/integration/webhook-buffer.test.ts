/**
 * The worker's buffer of leased deliveries (two per slot): with every slot busy, the next deliveries
 * are leased ahead and go out the moment the slot frees up; the rest wait unleased (queued in the
 * worker by id, open to other workers' claims). A worker that stops gives buffered leases back at once
 * instead of leaving them to expire.
 */
import { describe, expect, it } from 'vitest';
import { makeMap } from '../support/factories.js';
import { moveSystem } from '../support/sse.js';
import { apiRole } from '../../src/api/api.role.js';
import { workerRole } from '../../src/worker/worker.role.js';
import { dbOf } from '../../src/db/db.js';
import { subscribe, toggleWebhooks, webhookServer } from '../support/webhooks.js';
import { gate } from '../support/receiver.js';

interface Row {
  subscription_id: string;
  state: string;
  lease_owner: string | null;
}

describe('webhook worker buffer', () => {
  const w = webhookServer({
    roles: [apiRole, workerRole],
    env: { WEBHOOK_CONCURRENCY: '1', WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_RETRY_WAITS: '30s' },
  });

  it('leases the next delivery while the one slot is busy, sends it when the slot frees, and gives buffered leases back on stop', async () => {
    const { s, receiver } = w;
    const { map, key } = await makeMap(s.platform);
    const a = await subscribe(s, map.id, key, receiver, `${receiver.url}/a`);
    const b = await subscribe(s, map.id, key, receiver, `${receiver.url}/b`);
    const c = await subscribe(s, map.id, key, receiver, `${receiver.url}/c`);
    const d = await subscribe(s, map.id, key, receiver, `${receiver.url}/d`);
    await toggleWebhooks(s, map.id, key);
    const db = dbOf(s.platform.orm);
    const rows = () => db.all<Row>('select subscription_id::text, state, lease_owner from webhook_deliveries where map_id = ? order by id', [map.id]);

    // The first request is held until the test lets it go; the later ones are answered at once.
    const held = gate();
    receiver.reply = ({ count }) => (count === 1 ? { status: 200, hold: held.hold } : { status: 200 });
    await moveSystem(s, map.slug, key);
    await receiver.waitFor(1, 15_000, () => true);
    const first = receiver.received[0]!;
    // One slot and a buffer of two: two more deliveries are leased and wait; the fourth waits unleased.
    let state: Row[] = [];
    for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
      state = await rows();
      if (state.filter((r) => r.lease_owner !== null).length === 3) break;
    }
    expect(state.map((r) => r.state)).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect(state.filter((r) => r.lease_owner !== null)).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 200));
    expect((await rows()).filter((r) => r.lease_owner !== null)).toHaveLength(3);
    expect(receiver.received).toHaveLength(1);

    // The slot frees up: the buffered deliveries go out, one after the other, then the fourth after a lease by id.
    held.open();
    const all = await receiver.waitFor(4, 15_000);
    expect(first.answeredAt).toBeDefined();
    for (const later of all.slice(1)) expect(later.at).toBeGreaterThanOrEqual(first.answeredAt!);
    expect(all.map((r) => r.path).sort()).toEqual(['/hook/a', '/hook/b', '/hook/c', '/hook/d']);
    for (let until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
      if ((await rows()).every((r) => r.state === 'delivered')) break;
    }
    expect((await rows()).map((r) => [r.state, r.lease_owner])).toEqual(Array.from({ length: 4 }, () => ['delivered', null]));

    // Again with a receiver that hangs: one attempt in flight, two deliveries buffered; then the worker stops.
    const hang = gate();
    receiver.reply = () => ({ status: 200, hold: hang.hold });
    await moveSystem(s, map.slug, key);
    await receiver.waitFor(5, 15_000, () => true);
    for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
      state = (await rows()).slice(4);
      if (state.filter((r) => r.lease_owner !== null).length === 3) break;
    }
    expect(state.filter((r) => r.lease_owner !== null)).toHaveLength(3);
    const sent = receiver.received[4]!.path.replace('/hook/', '');
    const ids: Record<string, string> = { a: a.id, b: b.id, c: c.id, d: d.id };
    await s.server.roles.get('worker')!.stop();
    // The buffered deliveries are free again at once (the attempt cut off by the stop keeps its lease or
    // is recorded as failed, either way pending); nothing else was sent.
    const after = (await rows()).slice(4);
    expect(after.map((r) => r.state)).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect(after.filter((r) => r.subscription_id !== ids[sent]).map((r) => r.lease_owner)).toEqual([null, null, null]);
    expect(receiver.received).toHaveLength(5);
    hang.open();
  }, 90_000);
});

describe('webhook bursts', () => {
  const w = webhookServer({
    roles: [apiRole, workerRole],
    env: { WEBHOOK_CONCURRENCY: '16', WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: '2', WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_RETRY_WAITS: '200ms,200ms,200ms' },
  });

  /** Most requests the receiver held at once among `got`, each from its arrival until its answer. */
  const mostAtOnce = (got: { at: number; answeredAt?: number }[]) =>
    Math.max(...got.map((r) => got.filter((o) => o.at <= r.at && r.at < (o.answeredAt ?? Infinity)).length));

  it("sends a subscription's burst at its earned slots and no more, and a failure sends the rest back to the queue", async () => {
    const { s, receiver } = w;
    const { map, key } = await makeMap(s.platform);
    await subscribe(s, map.id, key, receiver, `${receiver.url}/burst`);
    await toggleWebhooks(s, map.id, key);
    const db = dbOf(s.platform.orm);
    await moveSystem(s, map.slug, key);
    await receiver.waitFor(1, 15_000);

    // A success in a row: two slots. Eight events in quick succession; the answers are held until two
    // requests are in flight, and no third comes while they are.
    const held = gate();
    receiver.reply = () => ({ status: 200, hold: held.hold });
    for (let i = 0; i < 8; i++) await moveSystem(s, map.slug, key);
    await receiver.waitFor(3, 15_000, () => true);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(3);
    receiver.reply = () => ({ status: 200, delayMs: 50 });
    held.open();
    const burst = (await receiver.waitFor(9, 30_000)).slice(1);
    expect(burst).toHaveLength(8);
    expect(mostAtOnce(burst)).toBe(2);

    // The first answer of the next burst is a 500: the subscription is back to one slot, and the
    // deliveries waiting for it go back to the queue; every event still arrives.
    receiver.reply = ({ count }) => ({ status: count === 10 ? 500 : 200, delayMs: 100 });
    for (let i = 0; i < 6; i++) await moveSystem(s, map.slug, key);
    const delivered = new Set<string>();
    for (const until = Date.now() + 30_000; delivered.size < 15 && Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      for (const r of receiver.received) if (r.verified && r.status === 200) delivered.add(JSON.parse(r.body).id as string);
    }
    const events = (await db.all<{ event_id: string }>('select event_id from map_events where map_id = ? order by seq', [map.id])).map((r) => r.event_id);
    expect(events).toHaveLength(15);
    expect([...delivered].sort()).toEqual([...events].sort());
    expect(receiver.received.filter((r) => r.status === 500)).toHaveLength(1);
    for (let until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      if ((await db.one<{ n: number }>(`select count(*)::int as n from webhook_deliveries where map_id = ? and state <> 'delivered'`, [map.id]))!.n === 0)
        break;
    }
    expect(await db.all('select state, lease_owner, count(*)::int as n from webhook_deliveries where map_id = ? group by 1, 2', [map.id])).toEqual([
      { state: 'delivered', lease_owner: null, n: 15 },
    ]);
  }, 90_000);

  it('queues what a new subscription has no slot for, and forgets the queue of a map switched off after one lease finds none of it', async () => {
    const { s, receiver } = w;
    const { map, key } = await makeMap(s.platform);
    await subscribe(s, map.id, key, receiver, `${receiver.url}/off`);
    await toggleWebhooks(s, map.id, key);
    const queued = async () => Number(/^mapintel_webhook_worker_queued (\d+)$/m.exec(await (await fetch(`${s.opsUrl}/metrics`)).text())![1]);
    const mine = () => receiver.received.filter((r) => r.path === '/hook/off');
    // A new subscription has one slot: with its first answer held, the other events wait queued in the worker.
    const first = receiver.received.length + 1;
    const held = gate();
    receiver.reply = ({ count }) => ({ status: 200, hold: count === first ? held.hold : undefined });
    for (let i = 0; i < 40; i++) await moveSystem(s, map.slug, key);
    let n = 0;
    for (const until = Date.now() + 30_000; Date.now() < until && n < 30; await new Promise((r) => setTimeout(r, 50))) n = await queued();
    expect(n).toBeGreaterThanOrEqual(30);
    expect(mine()).toHaveLength(1);

    // Switched off while the first answer is held: its pending deliveries are dropped. When the slot frees,
    // the next lease finds none of the queued rows, and the worker forgets the rest at once.
    await toggleWebhooks(s, map.id, key, false);
    held.open();
    await receiver.waitFor(1, 15_000, (r) => r.path === '/hook/off' && r.status === 200);
    let left = n;
    for (const until = Date.now() + 15_000; Date.now() < until && left > 0; await new Promise((r) => setTimeout(r, 50))) left = await queued();
    expect(left).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(mine().length).toBeLessThanOrEqual(3);
  }, 90_000);
});

describe('webhook buffer leases', () => {
  // Leases last WEBHOOK_TIMEOUT_MS + 5 s = 15 s; a buffered delivery may wait 4 s (15 − 10 − 1) before it must be leased again.
  const w = webhookServer({
    roles: [apiRole, workerRole],
    env: { WEBHOOK_CONCURRENCY: '1', WEBHOOK_TIMEOUT_MS: '10000', WEBHOOK_RETRY_WAITS: '30s' },
  });

  it('sends a delivery that waited in the buffer past its lease margin under a fresh lease, once', async () => {
    const { s, receiver } = w;
    const { map, key } = await makeMap(s.platform);
    const subs: Record<string, string> = {};
    for (const name of ['a', 'b']) subs[`/hook/${name}`] = (await subscribe(s, map.id, key, receiver, `${receiver.url}/${name}`)).id;
    await toggleWebhooks(s, map.id, key);
    const db = dbOf(s.platform.orm);
    const leaseOf = async (subscriptionId: string) =>
      (
        await db.one<{ lease_until: string | null }>(
          `select (extract(epoch from lease_until) * 1000)::float8::text as lease_until from webhook_deliveries where subscription_id = ? and state = 'pending'`,
          [subscriptionId],
        )
      )?.lease_until;
    // The first request holds the one slot for 4.5 s after the second is leased into the buffer.
    const held = gate();
    const second = gate();
    receiver.reply = ({ count }) => ({ status: 200, hold: count === 1 ? held.hold : count === 2 ? second.hold : undefined });
    await moveSystem(s, map.slug, key);
    const [first] = await receiver.waitFor(1, 15_000, () => true);
    const buffered = first!.path === '/hook/a' ? subs['/hook/b']! : subs['/hook/a']!;
    let claimed: string | null | undefined;
    for (const until = Date.now() + 15_000; Date.now() < until && !claimed; await new Promise((r) => setTimeout(r, 20))) claimed = await leaseOf(buffered);
    expect(claimed).toBeTruthy();
    await new Promise((r) => setTimeout(r, 4_500));
    expect(receiver.received).toHaveLength(1);
    held.open();
    const [, next] = await receiver.waitFor(2, 15_000, () => true);
    expect(subs[next!.path]).toBe(buffered);
    // Leased again when it started (at least 4.5 s after its claim), not still on the lease of its claim.
    const renewed = await leaseOf(buffered);
    second.open();
    expect(Number(renewed) - Number(claimed)).toBeGreaterThanOrEqual(4_000);
    const done = await receiver.waitFor(2, 15_000);
    expect(done.map((r) => r.path).sort()).toEqual(['/hook/a', '/hook/b']);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(2);
  }, 90_000);
});
