/**
 * The delivery worker's parts on their own, over the real PostgreSQL and event layer: the planner turns
 * events into deliveries (queued, or leased for the dispatcher) and moves the consumer's position; the
 * dispatcher starts attempts within each subscription's slots. (The whole worker is tested end to end
 * by the webhook-* tests.)
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { apiRole } from '../../src/api/api.role.js';
import { dbOf } from '../../src/db/db.js';
import { createLogger } from '../../src/common/log.js';
import { DeliveryRepository, type ClaimedDelivery, type PlannedDelivery } from '../../src/webhooks/delivery.repository.js';
import { DeliveryPlanner, type PlanningSink } from '../../src/webhooks/delivery-planner.js';
import { DeliveryDispatcher } from '../../src/webhooks/delivery-dispatcher.js';
import { webhookMetrics } from '../../src/webhooks/webhook.metrics.js';
import { makeMap } from '../support/factories.js';
import { gate } from '../support/receiver.js';
import { moveSystem } from '../support/sse.js';
import { waitFor } from '../support/wait.js';
import { subscribe, toggleWebhooks, webhookServer } from '../support/webhooks.js';

const log = createLogger('silent');
const metrics = () => webhookMetrics(new Registry(), { backlog: async () => ({ pending: 0, oldestAgeS: 0 }), subscriptionsByState: async () => [] });

/** A sink that leases the rows it is told to and records what planning hands it. */
class RecordingSink implements PlanningSink {
  leaseAll = false;
  readonly taken: ClaimedDelivery[] = [];
  readonly queued: { id: string; subscriptionId: string }[] = [];
  released = 0;
  reserveForPlanning(rows: readonly PlannedDelivery[]): Set<number> {
    return new Set(this.leaseAll ? rows.keys() : []);
  }
  releaseReservations(_rows: readonly PlannedDelivery[], lease: ReadonlySet<number>): void {
    this.released += lease.size;
  }
  take(leased: readonly ClaimedDelivery[]): void {
    this.taken.push(...leased);
  }
  queue(queued: readonly { id: string; subscriptionId: string }[]): void {
    this.queued.push(...queued);
  }
}

describe('delivery worker parts', () => {
  const w = webhookServer({ roles: [apiRole] });

  it('the planner queues one delivery per event and subscription, leases what the sink reserves, and moves the position past both', async () => {
    const { s, receiver } = w;
    const db = dbOf(s.platform.orm);
    const consumer = await s.server.core.events.consumer('test-planner');
    const { map, key } = await makeMap(s.platform);
    const sub = await subscribe(s, map.id, key, receiver, `${receiver.url}/planner`);
    await toggleWebhooks(s, map.id, key);
    const sink = new RecordingSink();
    let running = true;
    const planner = new DeliveryPlanner(
      { db, consumer, deliveries: new DeliveryRepository(), metrics: metrics(), log, owner: 'test-owner', leaseMs: 60_000, running: () => running },
      sink,
    );
    const loop = planner.loop();

    await moveSystem(s, map.slug, key);
    await waitFor(() => sink.queued.length === 1, 15_000);
    expect(sink.queued[0]).toEqual({ id: expect.any(String), subscriptionId: sub.id });
    expect(sink.taken).toHaveLength(0);

    sink.leaseAll = true;
    await moveSystem(s, map.slug, key, 31000001);
    await waitFor(() => sink.taken.length === 1, 15_000);
    const leased = sink.taken[0]!;
    expect(leased).toMatchObject({ subscription_id: sub.id, map_id: map.id, attempts: 1, url: `${receiver.url}/planner` });
    expect(JSON.parse(leased.body)).toMatchObject({ id: leased.event_id, map_id: map.id });
    expect(sink.released).toBe(1);

    const rows = await db.all<{ id: string; owner: string | null; event_id: string }>(
      'select id::text as id, lease_owner as owner, event_id from webhook_deliveries where subscription_id = ? order by event_id',
      [sub.id],
    );
    expect(rows.map((r) => [r.id, r.owner])).toEqual([
      [sink.queued[0]!.id, null],
      [leased.id, 'test-owner'],
    ]);

    running = false;
    await consumer.close();
    await loop;
    await planner.positionsMoved();
    const position = await db.one<{ last_event_id: string }>('select last_event_id from event_consumer_positions where consumer = ? and map_id = ?', [
      'test-planner',
      map.id,
    ]);
    expect(position?.last_event_id).toBe(leased.event_id);
  }, 60_000);

  it("the planner numbers a map's events in event order while the batch before is still being planned", async () => {
    const { s, receiver } = w;
    const db = dbOf(s.platform.orm);
    const consumer = await s.server.core.events.consumer('test-planner-order');
    const { map, key } = await makeMap(s.platform);
    const sub = await subscribe(s, map.id, key, receiver, `${receiver.url}/order`);
    await toggleWebhooks(s, map.id, key);
    // The first planning insert reaches PostgreSQL late (a busy connection): the next batch, of the same
    // map, is read meanwhile.
    class LateFirst extends DeliveryRepository {
      calls = 0;
      override async plan(...args: Parameters<DeliveryRepository['plan']>) {
        if (this.calls++ === 0) await new Promise((r) => setTimeout(r, 1_500));
        return super.plan(...args);
      }
    }
    const deliveries = new LateFirst();
    const sink = new RecordingSink();
    let running = true;
    const planner = new DeliveryPlanner(
      { db, consumer, deliveries, metrics: metrics(), log, owner: 'test-owner', leaseMs: 60_000, running: () => running },
      sink,
    );
    const loop = planner.loop();
    try {
      await moveSystem(s, map.slug, key);
      await waitFor(() => deliveries.calls === 1, 15_000);
      await moveSystem(s, map.slug, key, 31000001);
      await waitFor(() => sink.queued.length === 2, 15_000);
      const rows = await db.all<{ sequence: number }>('select sequence::int as sequence from webhook_deliveries where subscription_id = ? order by event_id', [
        sub.id,
      ]);
      expect(rows.map((r) => r.sequence)).toEqual([1, 2]);
    } finally {
      running = false;
      await consumer.close();
      await loop;
    }
  }, 60_000);

  it('the dispatcher starts one attempt at a time for a new subscription, and more as its attempts succeed, never past its limit', async () => {
    const { s, receiver } = w;
    const db = dbOf(s.platform.orm);
    const consumer = await s.server.core.events.consumer('test-dispatcher');
    const { map, key } = await makeMap(s.platform);
    const sub = await subscribe(s, map.id, key, receiver, `${receiver.url}/dispatcher`);
    await toggleWebhooks(s, map.id, key);
    const deliveries = new DeliveryRepository();
    let running = true;
    const started: ClaimedDelivery[] = [];
    let inFlight = 0;
    let peak = 0;
    let release = gate();
    const dispatcher = new DeliveryDispatcher({
      db,
      deliveries,
      metrics: metrics(),
      log,
      owner: 'test-dispatcher',
      concurrency: 16,
      perSubscription: 3,
      perMap: 16,
      leaseMs: 60_000,
      attemptTimeoutMs: 5_000,
      pollMs: 200,
      running: () => running,
      attempt: async (d) => {
        // Other tests' subscriptions (rows a claim finds) are delivered at once; this one's are held.
        if (d.subscription_id === sub.id) {
          started.push(d);
          peak = Math.max(peak, ++inFlight);
          await release.hold;
          inFlight--;
        }
        dispatcher.slots.succeeded(d.subscription_id, Date.now());
        await deliveries.finish(db, 'test-dispatcher', [
          { id: d.id, state: 'delivered', attempts: 1, nextAttemptAtMs: null, lastStatus: 200, lastError: null },
        ]);
      },
    });
    const planner = new DeliveryPlanner(
      { db, consumer, deliveries, metrics: metrics(), log, owner: 'test-dispatcher', leaseMs: 60_000, running: () => running },
      dispatcher,
    );
    const loops = [planner.loop(), dispatcher.loop()];
    try {
      for (let i = 0; i < 8; i++) await moveSystem(s, map.slug, key);
      await waitFor(() => started.length === 1, 15_000);
      // Held for a moment with seven more due: a subscription without a success has one slot.
      await new Promise((r) => setTimeout(r, 500));
      expect(started).toHaveLength(1);
      expect(peak).toBe(1);
      // One slot held, the attempt's: without a success the subscription may lease nothing to wait behind it.
      expect(dispatcher.slots.heldBy(sub.id)).toBe(1);

      // Each success earns one more slot, up to perSubscription (3).
      for (let round = 0; round < 6 && started.length < 8; round++) {
        const before = started.length;
        const open = release;
        release = gate();
        open.open();
        await waitFor(() => started.length > before || started.length === 8, 15_000);
        await new Promise((r) => setTimeout(r, 200));
      }
      release.open();
      expect(peak).toBeGreaterThan(1);
      expect(peak).toBeLessThanOrEqual(3);
      expect(started.map((d) => d.event_id).sort()).toEqual([...new Set(started.map((d) => d.event_id))].sort());
      expect(started).toHaveLength(8);
    } finally {
      release.open();
      running = false;
      await consumer.close();
      dispatcher.wake();
      await dispatcher.releaseReady();
      await Promise.allSettled([...dispatcher.attempts]);
      await Promise.all(loops);
      await planner.positionsMoved();
    }
  }, 90_000);
});
