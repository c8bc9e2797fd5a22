/**
 * Kill retention: KillsService.prune deletes kills older than KILLS_RETENTION_DAYS (by kill_time) in batches,
 * and the relay's hourly prune runs it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { makeMap } from '../support/factories.js';
import { EventRelay } from '../../src/events/relay.js';
import { MemoryEventPublisher, MemoryEventStore } from '../../src/events/transport/memory.js';
import { createLogger } from '../../src/common/log.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ env: { EVENTS_RELAY_ENABLED: 'false' } });
});
afterAll(async () => t?.close());

function sqlOf(server: TestServer) {
  return <T>(query: string, params: unknown[] = []) => server.platform.orm.em.fork().getConnection().execute<T[]>(query, params);
}

/** `count` kills in Jita, `ageMs(i)` old, killmail ids from `firstId` (bulk, no events). */
async function bulkKills(server: TestServer, mapId: string, firstId: number, count: number, ageMs: (i: number) => number): Promise<void> {
  const ages = Array.from({ length: count }, (_, i) => ageMs(i) / 1000);
  await sqlOf(server)(
    `insert into map_kills (map_id, killmail_id, kill_time, solar_system_id, attacker_count, npc, total_value, zkb)
     select ?, ? + i, now() - make_interval(secs => a), 30000142, 1, false, 1, '{"hash":"h"}'::jsonb
     from unnest(string_to_array(?, ',')::double precision[]) with ordinality as x(a, i)`,
    [mapId, firstId - 1, ages.join(',')],
  );
}

async function killmailIds(server: TestServer, mapIds: string[]): Promise<[string, number][]> {
  const rows = await sqlOf(server)<{ map_id: string; killmail_id: string }>(
    `select map_id, killmail_id::text from map_kills where map_id in (${mapIds.map(() => '?').join(', ')})`,
    mapIds,
  );
  return rows.map((r): [string, number] => [r.map_id, Number(r.killmail_id)]).sort();
}

describe('KillsService.prune', () => {
  it('deletes kills older than the retention window in batches, on every map, and keeps the rest', async () => {
    const a = (await makeMap(t.platform)).map.id as string;
    const b = (await makeMap(t.platform)).map.id as string;
    await bulkKills(t, a, 2_000_001, 25, (i) => 31 * DAY + i * 60_000);
    await bulkKills(t, b, 2_000_001, 5, () => 400 * DAY);
    await bulkKills(t, a, 3_000_001, 3, () => 29 * DAY);
    await bulkKills(t, b, 3_000_001, 2, () => HOUR);
    // 30 kills past 30 days in batches of 7: five statements, the last one short.
    expect(await t.platform.kills.prune(30, 7)).toBe(30);
    expect(await t.platform.kills.prune(30, 7)).toBe(0);
    expect(await killmailIds(t, [a, b])).toEqual(
      [
        [a, 3_000_001],
        [a, 3_000_002],
        [a, 3_000_003],
        [b, 3_000_001],
        [b, 3_000_002],
      ].sort(),
    );
  });
});

describe('relay prune', () => {
  it('deletes kills older than KILLS_RETENTION_DAYS on its first pass and keeps newer ones', async () => {
    const mapId = (await makeMap(t.platform)).map.id as string;
    await bulkKills(t, mapId, 4_000_001, 3, () => 3 * DAY);
    await bulkKills(t, mapId, 5_000_001, 1, () => DAY);
    // A relay prunes on its first pass (then hourly), when it holds partition 0 of its schema.
    const relay = new EventRelay({
      databaseUrl: t.platform.databaseUrl,
      schema: t.config.databaseSchema,
      publisher: new MemoryEventPublisher(new MemoryEventStore(100)),
      log: createLogger('silent'),
      partitions: 1,
      batchSize: 100,
      pollIntervalMs: 50,
      retentionMs: 7 * DAY,
      pruneIntervalMs: 3_600_000,
      housekeeping: () => t.platform.kills.prune(2, 5000),
    });
    relay.start();
    try {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await killmailIds(t, [mapId])).length > 1) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await relay.stop();
    }
    expect(await killmailIds(t, [mapId])).toEqual([[mapId, 5_000_001]]);
  });
});
