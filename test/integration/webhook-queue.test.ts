/**
 * The durable delivery queue on the machine's PostgreSQL: leases bounded per subscription and in all,
 * never the same row to two workers, taken over when a lease expires, nothing for inactive
 * subscriptions or maps switched off; and the attempt log pruned after its retention.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';
import { dbOf, type Db } from '../../src/db/db.js';
import { DeliveryRepository, type PlannedDelivery } from '../../src/webhooks/delivery.repository.js';
import { NO_SETTINGS_VERSION } from '../../src/webhooks/subscription-cache.js';

let t: TestServer;
let db: Db;
const repo = new DeliveryRepository();

beforeAll(async () => {
  t = await startTestServer({ env: { SERVICE_WEBHOOKS_ENABLED: 'true', SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true' } });
  db = dbOf(t.platform.orm);
});
afterAll(() => t?.close());

let n = 0;
async function subscriptions(count: number, toggle = true) {
  const { map, key } = await makeMap(t.platform);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await t.fetch(`/api/maps/${map.id}/webhooks`, {
      method: 'POST',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:9/q${++n}`, events: ['*'] }),
    });
    ids.push(((await res.json()) as { data: { id: string } }).data.id);
  }
  if (toggle) {
    await t.fetch(`/api/maps/${map.id}/webhooks/toggle`, {
      method: 'PUT',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true }),
    });
  }
  return { mapId: map.id, key, ids };
}

function planned(mapId: string, subscriptionId: string, count: number): PlannedDelivery[] {
  return Array.from({ length: count }, (_, i) => ({
    subscriptionId,
    mapId,
    eventId: `01JQ${String(++n).padStart(8, '0')}${String(i).padStart(14, '0')}`,
    eventType: 'add_system',
    eventAtMs: Date.now(),
    body: '{}',
  }));
}

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

  it('records a batch of successes in one statement: delivered, logged, the subscription current; a lease taken over is left alone', async () => {
    const { mapId, ids } = await subscriptions(1);
    await db.run('update webhook_subscriptions set consecutive_failures = 3 where id = ?', [ids[0]]);
    const rows = planned(mapId, ids[0]!, 2);
    const { leased } = await repo.plan(db, rows, { owner: 'mine', leaseMs: 60_000, rows: new Set([0, 1]) });
    // The second lease expired and another worker took it over.
    await db.run(`update webhook_deliveries set lease_owner = 'theirs' where id = ?`, [leased[1]!.id]);
    const at = new Date();
    await repo.recordSuccesses(
      db,
      'mine',
      leased.map((d) => ({ id: d.id, state: 'delivered' as const, attempts: 1, nextAttemptAtMs: null, lastStatus: 200, lastError: null })),
      leased.map((d) => ({
        subscriptionId: d.subscription_id,
        eventId: d.event_id,
        eventType: d.event_type,
        attempt: 1,
        attemptedAt: at,
        result: { ok: true, status: 200, durationMs: 7, errorClass: null, error: null, gone: false },
        nextAttemptAt: null,
      })),
      [ids[0]!],
    );
    expect(
      await db.all('select event_id, state, attempts, last_status, lease_owner from webhook_deliveries where subscription_id = ? order by id', [ids[0]]),
    ).toEqual([
      { event_id: rows[0]!.eventId, state: 'delivered', attempts: 1, last_status: 200, lease_owner: null },
      { event_id: rows[1]!.eventId, state: 'pending', attempts: 1, last_status: null, lease_owner: 'theirs' },
    ]);
    expect(
      await db.all('select event_id, attempt, status, outcome, duration_ms from webhook_attempts where subscription_id = ? order by event_id', [ids[0]]),
    ).toEqual(rows.map((r) => ({ event_id: r.eventId, attempt: 1, status: 200, outcome: 'success', duration_ms: 7 })));
    const sub = await db.one<{ consecutive_failures: number; fresh: boolean }>(
      `select consecutive_failures, last_delivery_at > now() - interval '1 minute' as fresh from webhook_subscriptions where id = ?`,
      [ids[0]],
    );
    expect(sub).toEqual({ consecutive_failures: 0, fresh: true });
  });

  it('leases at most the per-subscription and total limits, never one row twice, and takes over expired leases', async () => {
    const { mapId, ids } = await subscriptions(3);
    for (const id of ids) await repo.plan(db, planned(mapId, id, 10));
    const mine = <R extends { subscription_id: string }>(rows: R[]) => rows.filter((r) => ids.includes(r.subscription_id));

    const a = mine(await repo.claim(db, 'worker-a', 60_000, 100, 2, new Map()));
    const perSub = (rows: { subscription_id: string }[]) => ids.map((id) => rows.filter((r) => r.subscription_id === id).length);
    expect(perSub(a)).toEqual([2, 2, 2]);
    // Subscription 0 has no slot left in worker b: it gets none of that one.
    const b = mine(await repo.claim(db, 'worker-b', 60_000, 100, 2, new Map([[ids[0]!, 0]])));
    expect(perSub(b)).toEqual([0, 2, 2]);
    expect(new Set([...a, ...b].map((r) => r.id)).size).toBe(a.length + b.length);
    const c = mine(await repo.claim(db, 'worker-c', 60_000, 3, 10, new Map()));
    expect(c.length).toBeLessThanOrEqual(3);
    expect(c.every((r) => ![...a, ...b].some((x) => x.id === r.id))).toBe(true);

    // A short lease that expires is taken over by another worker.
    const { mapId: m2, ids: s2 } = await subscriptions(1);
    await repo.plan(db, planned(m2, s2[0]!, 1));
    const short = (await repo.claim(db, 'worker-d', 200, 100, 10, new Map())).filter((r) => r.subscription_id === s2[0]);
    expect(short).toHaveLength(1);
    expect((await repo.claim(db, 'worker-e', 60_000, 100, 10, new Map())).filter((r) => r.subscription_id === s2[0])).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 300));
    const taken = (await repo.claim(db, 'worker-e', 60_000, 100, 10, new Map())).filter((r) => r.subscription_id === s2[0]);
    expect(taken.map((r) => r.id)).toEqual(short.map((r) => r.id));
    // The first worker's late outcome changes nothing: the row is no longer its own.
    await repo.finish(db, 'worker-d', [{ id: short[0]!.id, state: 'delivered', attempts: 1, nextAttemptAtMs: null, lastStatus: 200, lastError: null }]);
    const row = await db.one<{ state: string; lease_owner: string }>('select state, lease_owner from webhook_deliveries where id = ?', [short[0]!.id]);
    expect(row).toEqual({ state: 'pending', lease_owner: 'worker-e' });
  });

  it("reaches every subscription with due deliveries, however old and long another one's backlog is", async () => {
    const { mapId, ids } = await subscriptions(2);
    await repo.plan(db, planned(mapId, ids[0]!, 3000));
    await db.run(`update webhook_deliveries set next_attempt_at = now() - interval '1 hour' where subscription_id = ?`, [ids[0]]);
    await repo.plan(db, planned(mapId, ids[1]!, 1));
    const claimed = await repo.claim(db, 'w-backlog', 60_000, 10, 8, new Map());
    expect(claimed.filter((r) => r.subscription_id === ids[1]).length).toBe(1);
    expect(claimed.filter((r) => r.subscription_id === ids[0]).length).toBe(8);
  });

  it('leases nothing for an inactive subscription or a map switched off, whose retries are dropped', async () => {
    const off = await subscriptions(1, false);
    await repo.plan(db, planned(off.mapId, off.ids[0]!, 3));
    expect((await repo.claim(db, 'w', 60_000, 100, 10, new Map())).filter((r) => r.subscription_id === off.ids[0])).toHaveLength(0);

    const on = await subscriptions(1);
    await repo.plan(db, planned(on.mapId, on.ids[0]!, 3));
    await t.fetch(`/api/maps/${on.mapId}/webhooks/toggle`, {
      method: 'PUT',
      token: on.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: false }),
    });
    const states = await db.all<{ state: string }>('select state from webhook_deliveries where subscription_id = ?', [on.ids[0]]);
    expect(states.map((s) => s.state)).toEqual(['dropped', 'dropped', 'dropped']);
  });

  it('prunes finished deliveries in time proportional to the batch, however long the attempt log is', async () => {
    // 5,000 finished deliveries and 60,000 attempts logged for them. A reference from the attempt log to
    // the deliveries (on delete set null, unindexed) made every pruned delivery scan the whole log: ~20 s here.
    const { mapId, ids } = await subscriptions(1);
    await db.run(
      `insert into webhook_deliveries (subscription_id, map_id, event_id, event_type, event_at, body, state, attempts, finished_at)
       select ?, ?, 'P' || lpad(g::text, 6, '0'), 'add_system', now(), '{}', 'delivered', 1, now() - interval '2 hours'
       from generate_series(1, 5000) g`,
      [ids[0], mapId],
    );
    await db.run(
      `insert into webhook_attempts (subscription_id, event_id, event_type, attempt, attempted_at, duration_ms, status, outcome)
       select ?, 'P' || lpad((g % 5000 + 1)::text, 6, '0'), 'add_system', g / 5000 + 1, now() - interval '2 hours', 3, 200, 'success'
       from generate_series(0, 59999) g`,
      [ids[0]],
    );
    const started = performance.now();
    expect(await repo.prune(db, 7)).toBe(5000);
    // A fraction of a second on a quiet machine; a scan of the attempts per delivery would take minutes.
    expect(performance.now() - started).toBeLessThan(20_000);
    const left = await db.one<{ deliveries: number; attempts: number }>(
      `select (select count(*)::int from webhook_deliveries where subscription_id = ?) as deliveries,
              (select count(*)::int from webhook_attempts where subscription_id = ?) as attempts`,
      [ids[0], ids[0]],
    );
    expect(left).toEqual({ deliveries: 0, attempts: 60_000 });
  });

  it('prunes attempts and finished deliveries past the retention, keeps the rest', async () => {
    const { mapId, ids } = await subscriptions(1);
    await repo.plan(db, planned(mapId, ids[0]!, 2));
    const [oldDelivery, newDelivery] = await db.all<{ id: string }>('select id::text as id from webhook_deliveries where subscription_id = ? order by id', [
      ids[0],
    ]);
    await db.run(`update webhook_deliveries set state = 'delivered', finished_at = now() - interval '8 days' where id = ?`, [oldDelivery!.id]);
    const result = { ok: true, status: 200, durationMs: 5, errorClass: null, error: null, gone: false };
    await repo.logAttempts(db, [
      {
        subscriptionId: ids[0]!,
        eventId: 'E1',
        eventType: 'add_system',
        attempt: 1,
        attemptedAt: new Date(Date.now() - 8 * 86_400_000),
        result,
        nextAttemptAt: null,
      },
      {
        subscriptionId: ids[0]!,
        eventId: 'E2',
        eventType: 'add_system',
        attempt: 1,
        attemptedAt: new Date(),
        result,
        nextAttemptAt: null,
      },
    ]);
    expect(await repo.prune(db, 7)).toBeGreaterThanOrEqual(2);
    const attempts = await db.all<{ event_id: string }>('select event_id from webhook_attempts where subscription_id = ?', [ids[0]]);
    expect(attempts.map((a) => a.event_id)).toEqual(['E2']);
    const left = await db.all<{ id: string }>('select id::text as id from webhook_deliveries where subscription_id = ?', [ids[0]]);
    expect(left.map((r) => r.id)).toEqual([newDelivery!.id]);
  });
});
