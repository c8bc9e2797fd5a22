/**
 * The webhook worker moves its consumer's position at most every 100 ms, with every batch planned
 * meanwhile in one move: events written one request at a time (a planning batch each) are all delivered,
 * the position ends at the newest of them, and no two moves come closer together than the interval.
 * The worker runs as in production (the worker role over the real event layer, PostgreSQL and Redis);
 * only its consumer is wrapped to record when `commit` is called and with what.
 */
import { describe, expect, it } from 'vitest';
import { makeMap } from '../support/factories.js';
import { killBody } from '../support/map-edit.js';
import { subscribe, toggleWebhooks, webhookServer } from '../support/webhooks.js';
import { apiRole } from '../../src/api/api.role.js';
import { dbOf } from '../../src/db/db.js';
import type { Core } from '../../src/core/core.js';
import type { Role } from '../../src/core/role.js';
import type { EventConsumer } from '../../src/events/transport/types.js';
import { WEBHOOK_CONSUMER, workerRole, type WorkerHandle } from '../../src/worker/worker.role.js';

/** Each call of the worker's consumer's commit: when (ms, this process's clock) and the ids it carried. */
const commits: { at: number; ids: string[] }[] = [];

/** The worker role, its consumer wrapped to record commits (everything else as in production). */
const recordingWorkerRole: Role<WorkerHandle> = {
  ...workerRole,
  async start(core: Core) {
    const events = Object.create(core.events) as Core['events'];
    events.consumer = async (name: string): Promise<EventConsumer> => {
      const inner = await core.events.consumer(name);
      return {
        next: (max, waitMs) => inner.next(max, waitMs),
        commit: async (batch) => {
          commits.push({ at: performance.now(), ids: batch.map((e) => e.id) });
          await inner.commit(batch);
        },
        close: () => inner.close(),
      };
    };
    return workerRole.start({ ...core, events });
  },
};

describe('the webhook consumer position', () => {
  const w = webhookServer({ redis: true, roles: [apiRole, recordingWorkerRole] });

  it('moves at most every 100 ms, past every event planned meanwhile, and ends at the newest', async () => {
    const { s, receiver } = w;
    const { map, key } = await makeMap(s.platform);
    await subscribe(s, map.id, key, receiver, `${receiver.url}/position`, ['map_kill']);
    await toggleWebhooks(s, map.id, key);
    commits.length = 0;

    // 30 kills, one request each, two at a time: each is its own commit, relay pass and planning batch.
    let next = 0;
    await Promise.all(
      Array.from({ length: 2 }, async () => {
        while (next < 30) {
          const res = await s.fetch(`/api/maps/${map.id}/kills`, {
            method: 'POST',
            token: key,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(killBody(31000005, 140_000_000 + next++, { kill_time: new Date().toISOString() })),
          });
          expect(res.status).toBe(200);
        }
      }),
    );
    const got = await receiver.waitFor(30, 30_000);
    const delivered = got.map((r) => r.headers['x-service-event-id'] as string);
    expect(new Set(delivered).size).toBe(30);

    // The position reaches the newest event.
    const newest = [...delivered].sort().at(-1)!;
    const db = dbOf(s.platform.orm);
    const position = async () =>
      (
        await db.one<{ last_event_id: string }>('select last_event_id from event_consumer_positions where consumer = ? and map_id = ?', [
          WEBHOOK_CONSUMER,
          map.id,
        ])
      )?.last_event_id;
    const deadline = Date.now() + 20_000;
    while ((await position()) !== newest && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await position()).toBe(newest);

    // Every delivered event was in a move, and the moves were at least the interval apart.
    const moved = new Set(commits.flatMap((c) => c.ids));
    for (const id of delivered) expect(moved.has(id), id).toBe(true);
    // How many moves 30 events make depends on the machine's speed; the interval between them does not.
    expect(commits.length).toBeGreaterThan(0);
    const gaps = commits.slice(1).map((c, i) => c.at - commits[i]!.at);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(95);
  }, 60_000);
});
