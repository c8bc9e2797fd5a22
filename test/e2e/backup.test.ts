/**
 * Back up and restore on the real node, the way docs/operations.md ("Back up and restore") says: a
 * pg_dump of the live release, more events after it, then the restore (every Deployment scaled to 0,
 * the database dropped and created, pg_restore, the release's event streams deleted from Redis, helm
 * upgrade back to the chart's replicas), and the API, the stream and webhooks working again. The
 * release gets a database and Redis prefix of its own and is uninstalled at the end.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { check, sleep } from './support/check.js';
import { DATABASE, IMAGE, NAMESPACE, REDIS_PREFIX, RELEASE, apply, helm, kubectl, until } from './support/cluster.js';
import { everyDeploymentAvailable, installOwn, mapWithWebhooks, removeLeftovers, sql, subscription, uninstallOwn, waitReady } from './support/own-release.js';
import { api, createNamespaceAndReceiver, receiverDeliveries, receiverReady } from './support/release.js';
import { type Held, connectStream, readFrames, release } from './support/streams.js';
import { startReader } from './support/traffic.js';

const DB = `${DATABASE}_backup`;
const SLUG = 'e2e-backup';
const MAP_KEY_SECRET = 'e2e-backup-map-key';
const HOOK_PATH = '/backup';
const SYSTEM = 30000142;
const dir = mkdtempSync(path.join(tmpdir(), 'mapintel-e2e-backup-'));
const held: Held[] = [];

afterAll(() => {
  release(held);
  rmSync(dir, { recursive: true, force: true });
  sql('postgres', `DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
});

const psql = (text: string) => sql(DB, text);
const eventIds = (mapId: string, afterSeq: number) =>
  psql(`SELECT event_id FROM map_events WHERE map_id = '${mapId}' AND seq > ${afterSeq} ORDER BY seq`).split('\n').filter(Boolean);
const maxSeq = (mapId: string) => Number(psql(`SELECT coalesce(max(seq), 0) FROM map_events WHERE map_id = '${mapId}'`));

/** `n` edits of the system's position through the api Service, each answered 200. */
async function edits(key: string, n: number, from: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await api('PATCH', `/api/maps/${SLUG}/systems/${SYSTEM}`, key, { position_x: from + i });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
  }
}

/** How many deliveries of each event id the receiver got on the check's path. */
async function deliveredCounts(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const d of await receiverDeliveries()) {
    if (d.path !== HOOK_PATH) continue;
    const id = (JSON.parse(d.body) as { id: string }).id;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

async function allDelivered(ids: string[]): Promise<Map<string, number>> {
  return until(`the receiver has ${ids.length} events`, 180_000, async () => {
    const c = await deliveredCounts();
    return ids.every((id) => c.has(id)) && c;
  });
}

describe('back up and restore', () => {
  check(
    'B1. pg_dump of a live release, events after it, the documented restore: the API serves the backup, new event ids follow it, a resume from before the backup gets the exact events, one from a lost event a reset, webhooks deliver again',
    async () => {
      await createNamespaceAndReceiver();
      await receiverReady();
      await removeLeftovers(MAP_KEY_SECRET);
      await installOwn('charts/mapintel', IMAGE, DB, 'backup');
      const { keys, mapId } = await mapWithWebhooks(SLUG, 3, SYSTEM, MAP_KEY_SECRET);
      await apply(subscription(SLUG, 'e2e-backup-1', HOOK_PATH, MAP_KEY_SECRET));
      await waitReady('e2e-backup-1');

      // Before the backup: 5 edits, delivered.
      const seq0 = maxSeq(mapId);
      await edits(keys[0]!, 5, 1);
      const before = eventIds(mapId, seq0);
      expect(before).toHaveLength(5);
      await allDelivered(before);

      // The backup, online (docs/operations.md: pg_dump --format=custom --no-owner).
      const dump = path.join(dir, 'mapintel.dump');
      execFileSync('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, `postgres://postgres@127.0.0.1:5432/${DB}`]);
      const lastInBackup = before.at(-1)!;
      const seqAtBackup = maxSeq(mapId);

      // After it: 3 more edits, delivered, which the restore loses.
      await edits(keys[0]!, 3, 101);
      const lost = eventIds(mapId, seqAtBackup);
      expect(lost).toHaveLength(3);
      await allDelivered(lost);

      // The restore, as documented.
      await kubectl(['-n', NAMESPACE, 'scale', 'deploy', '-l', `app.kubernetes.io/instance=${RELEASE}`, '--replicas=0']);
      await until(
        'every pod of the release gone',
        180_000,
        async () => (await kubectl(['-n', NAMESPACE, 'get', 'pods', '-l', `app.kubernetes.io/instance=${RELEASE}`, '-o', 'name'])).trim() === '',
      );
      execFileSync('dropdb', ['-h', '127.0.0.1', '-U', 'postgres', '--force', DB]);
      execFileSync('createdb', ['-h', '127.0.0.1', '-U', 'postgres', DB]);
      execFileSync('pg_restore', ['--no-owner', '-h', '127.0.0.1', '-U', 'postgres', `--dbname=${DB}`, dump]);
      execFileSync('bash', [
        '-c',
        `redis-cli -h 127.0.0.1 --scan --pattern '${REDIS_PREFIX}backup:{?:*}:events' | xargs -r redis-cli -h 127.0.0.1 unlink >/dev/null`,
      ]);
      await helm(['upgrade', RELEASE, 'charts/mapintel', '-n', NAMESPACE, '--reset-then-reuse-values', '--wait', '--timeout', '8m']);
      await everyDeploymentAvailable(IMAGE);

      // The API serves the data as of the backup: the 5th edit's position, not the lost ones'.
      const read = await api('GET', `/api/maps/${SLUG}/systems`, keys[0]!);
      expect(read.status).toBe(200);
      const system = (read.json.data.systems as { solar_system_id: number; position_x: number }[]).find((s) => s.solar_system_id === SYSTEM);
      expect(system?.position_x).toBe(5);
      expect(eventIds(mapId, seq0)).toEqual(before);

      // A resume from before the backup gets exactly the events after it, then the new ones.
      const reader = startReader(SLUG, keys[1]!, before[1]!);
      // A resume from an event the restore lost gets a reset (unknown_event_id).
      const fromLost: Held[] = [];
      expect(await connectStream(SLUG, keys[2]!, fromLost, { 'last-event-id': lost[1]! })).toEqual({ status: 200 });
      held.push(...fromLost);
      const frames = await readFrames(fromLost[0]!, (f) => f.some((x) => x.event === 'reset'), 20_000);
      const reset = frames.find((f) => f.event === 'reset');
      expect(reset, JSON.stringify(frames)).toBeDefined();
      expect(JSON.parse(reset!.data)).toMatchObject({ reason: 'unknown_event_id' });
      release(held);

      try {
        await sleep(1000);
        await edits(keys[0]!, 3, 201);
        const after = eventIds(mapId, seqAtBackup);
        expect(after).toHaveLength(3);
        // New ids continue after the last one in the backup (ids are time-ordered).
        for (const id of after) expect(id > lastInBackup, `${id} > ${lastInBackup}`).toBe(true);
        await until('the resumed reader has the events after its id', 60_000, async () => reader.ids.length >= 6);
        expect(reader.ids).toEqual([...before.slice(2), ...after]);
        // Webhooks: the new events delivered; the lost ones never again; the ones in the backup at most once more.
        const counts = await allDelivered(after);
        expect(after.map((id) => counts.get(id))).toEqual([1, 1, 1]);
        expect(lost.map((id) => counts.get(id))).toEqual([1, 1, 1]);
        for (const id of before) expect(counts.get(id)).toBeLessThanOrEqual(2);
      } finally {
        await reader.stop();
      }
      await uninstallOwn(DB, MAP_KEY_SECRET);
    },
    900_000,
  );
});
