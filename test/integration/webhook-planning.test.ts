/**
 * Planning survives a failed statement: while another session holds a lock on the delivery queue, the
 * worker's planning insert runs into its lock timeout; the same events are planned again once the lock
 * goes, and an event planned after them cannot move the consumer's position past them. Batches are
 * planned two at a time: one stuck behind a lock does not hold up the next, whose deliveries go out,
 * but the consumer's position waits for both.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { makeMap } from '../support/factories.js';
import { moveSystem } from '../support/sse.js';
import { apiRole } from '../../src/api/api.role.js';
import { dbOf } from '../../src/db/db.js';
import { subscribe, toggleWebhooks, webhookServer } from '../support/webhooks.js';
import { WEBHOOK_CONSUMER, workerRole } from '../../src/worker/worker.role.js';

describe('webhook planning after a failed insert', () => {
  const w = webhookServer({
    roles: [apiRole, workerRole],
    env: { DATABASE_LOCK_TIMEOUT_MS: '300' },
  });

  const lockerClient = () =>
    new pg.Client({ connectionString: w.s.config.databaseSessionUrl ?? w.s.config.databaseUrl, options: `-c search_path=${w.s.config.databaseSchema},public` });

  it('plans the events of a failed insert again; none is skipped', async () => {
    const { s, receiver } = w;
    const { map, key } = await makeMap(s.platform);
    await subscribe(s, map.id, key, receiver, `${receiver.url}/p`);
    await toggleWebhooks(s, map.id, key);

    // Another session locks the queue against inserts for 2.5 s: planning fails on its lock timeout.
    const locker = lockerClient();
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table webhook_deliveries in share mode');
      await moveSystem(s, map.slug, key);
      await new Promise((r) => setTimeout(r, 1_200));
      await moveSystem(s, map.slug, key, 31000001);
      await new Promise((r) => setTimeout(r, 1_300));
      expect(receiver.received).toHaveLength(0);
      await locker.query('commit');
    } finally {
      await locker.end();
    }

    const log = ((await (await s.fetch(`/api/maps/${map.id}/events?limit=100`, { token: key })).json()) as { data: { id: string }[] }).data;
    const got = await receiver.waitFor(log.length, 10_000);
    expect(got.map((r) => r.headers['x-service-event-id']).sort()).toEqual(log.map((e) => e.id).sort());
  }, 30_000);

  it('sends the deliveries of a batch planned after a stuck one, and moves the position past neither until both are planned', async () => {
    const { s, receiver } = w;
    const { map, key } = await makeMap(s.platform);
    // Two subscriptions of one map, one event type each: the first event goes only to `a`, the second only to `b`.
    const a = await subscribe(s, map.id, key, receiver, `${receiver.url}/pipeline-a`, ['add_system']);
    await subscribe(s, map.id, key, receiver, `${receiver.url}/pipeline-b`, ['system_metadata_changed']);
    await toggleWebhooks(s, map.id, key);
    const db = dbOf(s.platform.orm);
    const position = async () =>
      (
        await db.one<{ last_event_id: string }>('select last_event_id from event_consumer_positions where consumer = ? and map_id = ?', [
          WEBHOOK_CONSUMER,
          map.id,
        ])
      )?.last_event_id ?? null;
    const ofPath = (p: string) => (x: { path: string; verified: boolean; status: number }) => x.path.endsWith(p) && x.verified && x.status < 300;

    // Another session holds `a`'s row: inserting a delivery of `a` waits for its key-share lock (and
    // runs into the lock timeout, again and again), while deliveries of `b` insert freely.
    const locker = lockerClient();
    await locker.connect();
    let events: { id: string; type: string }[];
    try {
      await locker.query('begin');
      await locker.query('select 1 from webhook_subscriptions where id = $1 for update', [a.id]);
      // The relay gives events their ids a moment after the writes commit; the worker reads them then.
      const eventsOf = async (n: number) => {
        let got: { id: string; type: string }[] = [];
        for (const until = Date.now() + 5_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
          got = ((await (await s.fetch(`/api/maps/${map.id}/events?limit=100`, { token: key })).json()) as { data: { id: string; type: string }[] }).data;
          if (got.length >= n) break;
        }
        return got;
      };
      await moveSystem(s, map.slug, key); // add_system → a (stuck)
      expect(await eventsOf(1)).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 300)); // its batch is being planned (and stuck) by now
      await moveSystem(s, map.slug, key); // system_metadata_changed → b
      events = await eventsOf(2);
      expect(events.map((e) => e.type)).toEqual(['add_system', 'system_metadata_changed']);

      // `b` gets its event while `a`'s insert is stuck behind the lock…
      const gotB = await receiver.waitFor(1, 20_000, ofPath('/pipeline-b'));
      expect(gotB[0]!.headers['x-service-event-id']).toBe(events[1]!.id);
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.received.filter((x) => x.path.endsWith('/pipeline-a'))).toHaveLength(0);
      // …but the map's position has not moved past the stuck event: a restart now would plan both again.
      const stuck = await position();
      expect(stuck === null || stuck < events[0]!.id).toBe(true);
      await locker.query('commit');
    } finally {
      await locker.end();
    }

    const gotA = await receiver.waitFor(1, 10_000, ofPath('/pipeline-a'));
    expect(gotA[0]!.headers['x-service-event-id']).toBe(events[0]!.id);
    let moved: string | null = null;
    for (const until = Date.now() + 5_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      moved = await position();
      if (moved === events[1]!.id) break;
    }
    expect(moved).toBe(events[1]!.id);
    expect(receiver.received.filter((x) => x.path.endsWith('/pipeline-b'))).toHaveLength(1);
  }, 30_000);
});
