/**
 * The durable delivery queue on the machine's PostgreSQL: planning (each event and subscription once,
 * only at the matched settings version), leasing the planned and queued rows, the bodies stored, the
 * attempt counted with its lease, and leases given back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../support/app.js';
import { planned, startQueueServer, subscriptions as subscriptionsOf } from '../support/webhook-queue.js';
import { dbOf, type Db } from '../../src/db/db.js';
import { DeliveryRepository } from '../../src/webhooks/delivery.repository.js';
import { NO_SETTINGS_VERSION } from '../../src/webhooks/subscription-cache.js';

let t: TestServer;
let db: Db;
const repo = new DeliveryRepository();

beforeAll(async () => {
  t = await startQueueServer();
  db = dbOf(t.platform.orm);
});
afterAll(() => t?.close());

const subscriptions = (count: number, toggle = true) => subscriptionsOf(t, count, toggle);

describe('webhook delivery queue', () => {
  it('plans each event and subscription once', async () => {
    const { mapId, ids } = await subscriptions(1);
    const rows = planned(mapId, ids[0]!, 5);
    expect((await repo.plan(db, rows)).added).toBe(5);
    expect((await repo.plan(db, rows)).added).toBe(0);
  });

  it('inserts only while every map is at the settings version the rows were matched against, and names the maps that moved', async () => {
    const a = await subscriptions(1);
    const b = await subscriptions(1);
    const none = await subscriptions(0, false);
    const version = async (mapId: string) =>
      (await db.one<{ v: string }>('select version::text as v from webhook_map_state where map_id = ?', [mapId]))?.v ?? NO_SETTINGS_VERSION;
    const [va, vb] = [await version(a.mapId), await version(b.mapId)];
    expect(va).toMatch(/^[1-9]\d*$/);
    expect(await version(none.mapId)).toBe(NO_SETTINGS_VERSION);
    const rows = [...planned(a.mapId, a.ids[0]!, 2), ...planned(b.mapId, b.ids[0]!, 2)];
    const count = async () =>
      Number((await db.one<{ n: string }>('select count(*)::text as n from webhook_deliveries where map_id in (?, ?)', [a.mapId, b.mapId]))!.n);

    // The batch planned with a's and b's versions as given, b's as `bVersion`.
    const planAt = (bVersion: string) =>
      repo.plan(
        db,
        rows,
        undefined,
        new Map([
          [a.mapId, va],
          [b.mapId, bVersion],
          [none.mapId, NO_SETTINGS_VERSION],
        ]),
      );

    // b's settings moved (a stale version): nothing of the batch is inserted, and b is named.
    const stale = await planAt(String(Number(vb) - 1));
    expect(stale).toEqual({ added: 0, leased: [], queued: [], stale: [b.mapId] });
    expect(await count()).toBe(0);
    // A map without settings claimed to have some is stale too, even with no rows to insert.
    expect((await repo.plan(db, [], undefined, new Map([[none.mapId, '3']]))).stale).toEqual([none.mapId]);

    // Current versions: the rows go in.
    const fresh = await planAt(vb);
    expect(fresh).toMatchObject({ added: 4, leased: [], stale: [] });
    expect(fresh.queued).toHaveLength(4);
    expect(await count()).toBe(4);

    // A change to b's subscriptions bumps its version: the versions read before it are stale now.
    await t.fetch(`/api/maps/${b.mapId}/webhooks/${b.ids[0]}`, {
      method: 'PUT',
      token: b.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ active: false }),
    });
    expect(await version(b.mapId)).not.toBe(vb);
    const after = await repo.plan(db, planned(b.mapId, b.ids[0]!, 1), undefined, new Map([[b.mapId, vb]]));
    expect(after).toEqual({ added: 0, leased: [], queued: [], stale: [b.mapId] });
  });

  it('leases the flagged rows as they are planned: they come back ready to send, and no claim hands them out again', async () => {
    const { mapId, ids } = await subscriptions(1);
    const rows = planned(mapId, ids[0]!, 4);
    const first = await repo.plan(db, rows, { owner: 'planner', leaseMs: 60_000, rows: new Set([0, 2]) });
    expect(first.added).toBe(4);
    expect(first.leased.map((d) => [d.event_id, d.attempts, d.body, d.url])).toEqual([
      [rows[0]!.eventId, 1, '{}', expect.stringMatching(/^http:\/\/127\.0\.0\.1:9\/q\d+$/)],
      [rows[2]!.eventId, 1, '{}', expect.stringMatching(/^http:\/\/127\.0\.0\.1:9\/q\d+$/)],
    ]);
    expect(first.leased.every((d) => /^v1\./.test(d.secret_encrypted) && d.subscription_id === ids[0] && d.map_id === mapId)).toBe(true);
    // The rows not leased come back as queued: their ids, in insertion order.
    const ids13 = await db.all<{ id: string }>('select id::text from webhook_deliveries where event_id in (?, ?) order by id', [
      rows[1]!.eventId,
      rows[3]!.eventId,
    ]);
    expect(first.queued).toEqual(ids13.map((r) => ({ id: r.id, subscriptionId: ids[0] })));
    const claimed = (await repo.claim(db, 'other', 60_000, 100, 8, new Map())).filter((r) => r.subscription_id === ids[0]);
    expect(claimed.map((d) => d.event_id).sort()).toEqual([rows[1]!.eventId, rows[3]!.eventId].sort());
    // Planned again (a replay): nothing new, nothing leased.
    expect(await repo.plan(db, rows, { owner: 'planner', leaseMs: 60_000, rows: new Set([0, 1, 2, 3]) })).toEqual({
      added: 0,
      leased: [],
      queued: [],
      stale: [],
    });
  });

  it('leases queued rows by id while they are due and free: not one another worker holds, has finished, or a switched-off map has', async () => {
    const { mapId, key, ids } = await subscriptions(2);
    const rows = [...planned(mapId, ids[0]!, 4), ...planned(mapId, ids[1]!, 2)];
    const { queued } = await repo.plan(db, rows);
    expect(queued.map((q) => q.subscriptionId)).toEqual([ids[0], ids[0], ids[0], ids[0], ids[1], ids[1]]);
    const q = queued.map((r) => r.id);
    // Row 0 is leased by another worker's claim, row 1 finished, row 2 waits for a retry.
    const other = (await repo.claim(db, 'other', 60_000, 1, 1, new Map([[ids[1]!, 0]]))).filter((r) => r.subscription_id === ids[0]);
    expect(other.map((r) => r.id)).toEqual([q[0]]);
    await db.run(`update webhook_deliveries set state = 'delivered', finished_at = now() where id = ?`, [q[1]]);
    await db.run(`update webhook_deliveries set next_attempt_at = now() + interval '1 minute' where id = ?`, [q[2]]);

    const leased = await repo.leaseIds(db, 'me', 60_000, [q[5]!, q[3]!, q[2]!, q[1]!, q[0]!, q[4]!]);
    expect(leased.map((d) => d.id)).toEqual([q[3], q[4], q[5]]);
    expect(leased[0]).toEqual({
      id: q[3],
      subscription_id: ids[0],
      map_id: mapId,
      event_id: rows[3]!.eventId,
      event_type: 'add_system',
      event_at_ms: expect.any(Number),
      body: '{}',
      attempts: 1,
      // The fourth row planned for its subscription.
      sequence: 4,
      recovered: false,
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:9\/q\d+$/),
      secret_encrypted: expect.stringMatching(/^v1\./),
    });
    const owners = await db.all<{ lease_owner: string | null }>('select lease_owner from webhook_deliveries where id = any(?::bigint[]) order by id', [
      `{${q.join(',')}}`,
    ]);
    expect(owners.map((o) => o.lease_owner)).toEqual(['other', null, null, 'me', 'me', 'me']);
    // Leased already: not again, by anyone.
    expect(await repo.leaseIds(db, 'third', 60_000, q)).toEqual([]);

    // A map switched off: its queued rows are dropped, none leased.
    const more = await repo.plan(db, planned(mapId, ids[0]!, 2));
    await t.fetch(`/api/maps/${mapId}/webhooks/toggle`, {
      method: 'PUT',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: false }),
    });
    expect(
      await repo.leaseIds(
        db,
        'me',
        60_000,
        more.queued.map((r) => r.id),
      ),
    ).toEqual([]);
  });

  it("stores each subscription its event's own body, in the order given, when events share subscriptions", async () => {
    const { mapId, ids } = await subscriptions(3);
    const events = planned(mapId, ids[0]!, 4).map((r, i) => ({ ...r, body: JSON.stringify({ n: i, text: `it's "quoted" \\ ✓ ${'y'.repeat(i * 1000)}` }) }));
    // Every event to every subscription, sub-major: (s0, e0..e3), (s1, e0..e3), (s2, e0..e3).
    const rows = ids.flatMap((sub) => events.map((e) => ({ ...e, subscriptionId: sub })));
    const result = await repo.plan(db, rows, { owner: 'planner', leaseMs: 60_000, rows: new Set([1, 6, 11]) });
    expect(result.added).toBe(12);
    expect(result.leased.map((d) => [d.subscription_id, d.event_id, d.body])).toEqual(
      [1, 6, 11].map((i) => [rows[i]!.subscriptionId, rows[i]!.eventId, rows[i]!.body]),
    );
    const stored = await db.all<{ subscription_id: string; event_id: string; body: string; leased: boolean }>(
      `select subscription_id::text, event_id, body, lease_owner is not null as leased from webhook_deliveries where map_id = ? order by id`,
      [mapId],
    );
    expect(stored).toEqual(rows.map((r, i) => ({ subscription_id: r.subscriptionId, event_id: r.eventId, body: r.body, leased: [1, 6, 11].includes(i) })));
  });

  it('counts an attempt in the statement that leases it: a delivery taken over after its worker died carries the next number', async () => {
    const { mapId, ids } = await subscriptions(1);
    const [row] = planned(mapId, ids[0]!, 1);
    const { queued } = await repo.plan(db, [row!]);
    const attemptsOf = async () => (await db.one<{ attempts: number }>('select attempts from webhook_deliveries where id = ?', [queued[0]!.id]))!.attempts;
    expect(await attemptsOf()).toBe(0);
    const mine = <D extends { subscription_id: string }>(d: D[]) => d.filter((x) => x.subscription_id === ids[0]);
    // A worker leases it (attempt 1 is persisted before any byte is sent), then dies: its lease runs out.
    expect(mine(await repo.claim(db, 'dead', 60_000, 10, 8, new Map())).map((d) => d.attempts)).toEqual([1]);
    expect(await attemptsOf()).toBe(1);
    await db.run(`update webhook_deliveries set lease_until = now() - interval '1 second' where id = ?`, [queued[0]!.id]);
    // The next worker's attempt is the second, by claim or by lease by id alike.
    expect(mine(await repo.claim(db, 'alive', 60_000, 10, 8, new Map())).map((d) => d.attempts)).toEqual([2]);
    await db.run(`update webhook_deliveries set lease_until = now() - interval '1 second' where id = ?`, [queued[0]!.id]);
    expect((await repo.leaseIds(db, 'third', 60_000, [queued[0]!.id])).map((d) => d.attempts)).toEqual([3]);
    // Given back unsent (a worker stopping): the lease's count is taken back, the next lease is the third again.
    await repo.release(db, 'third', [queued[0]!.id]);
    expect(await attemptsOf()).toBe(2);
    expect(mine(await repo.claim(db, 'fourth', 60_000, 10, 8, new Map())).map((d) => d.attempts)).toEqual([3]);
    // A row leased as it is planned is attempt 1 already.
    const [fresh] = planned(mapId, ids[0]!, 1);
    expect((await repo.plan(db, [fresh!], { owner: 'planner', leaseMs: 60_000, rows: new Set([0]) })).leased.map((d) => d.attempts)).toEqual([1]);
  });

  it('gives back only its own pending leases when a worker releases them', async () => {
    const { mapId, ids } = await subscriptions(1);
    const rows = planned(mapId, ids[0]!, 3);
    const { leased } = await repo.plan(db, rows, { owner: 'mine', leaseMs: 60_000, rows: new Set([0, 1]) });
    const other = (await repo.claim(db, 'theirs', 60_000, 10, 8, new Map())).filter((d) => d.subscription_id === ids[0]);
    expect(other.map((d) => d.event_id)).toEqual([rows[2]!.eventId]);
    await repo.finish(db, 'mine', [{ id: leased[1]!.id, state: 'delivered', attempts: 1, nextAttemptAtMs: null, lastStatus: 200, lastError: null }]);
    await repo.release(
      db,
      'mine',
      [...leased, ...other].map((d) => d.id),
    );
    const state = await db.all<{ event_id: string; state: string; lease_owner: string | null }>(
      'select event_id, state, lease_owner from webhook_deliveries where subscription_id = ? order by id',
      [ids[0]],
    );
    expect(state).toEqual([
      { event_id: rows[0]!.eventId, state: 'pending', lease_owner: null },
      { event_id: rows[1]!.eventId, state: 'delivered', lease_owner: null },
      { event_id: rows[2]!.eventId, state: 'pending', lease_owner: 'theirs' },
    ]);
    // Released, the row is due for the next claim at once.
    expect((await repo.claim(db, 'next', 60_000, 10, 8, new Map())).filter((d) => d.subscription_id === ids[0]).map((d) => d.event_id)).toEqual([
      rows[0]!.eventId,
    ]);
  });
});
