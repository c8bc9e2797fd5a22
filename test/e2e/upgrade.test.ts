/**
 * Upgrading from the previous release and rolling back, on the real node (docs/upgrading.md, "How to
 * upgrade"). scripts/e2e/run.mjs builds the previous release's image and unpacks its tree (its chart)
 * from E2E_PREVIOUS_REF (a git ref, or `auto`, the default: the parent of the last commit that changed
 * a migration or the CRD); with `E2E_PREVIOUS_REF=none` the checks are skipped. The release gets a
 * database and Redis prefix of its own and is uninstalled at the end, so this file and
 * release.test.ts run in either order.
 */
import { afterAll, describe, expect } from 'vitest';
import { check, sleep } from './support/check.js';
import { DATABASE, IMAGE, NAMESPACE, RELEASE, apply, helm, kubectl, pods, until } from './support/cluster.js';
import {
  ROLES,
  everyDeploymentAvailable,
  imageParts,
  installOwn,
  mapWithWebhooks,
  removeLeftovers,
  sql,
  subscription as subscriptionOf,
  uninstallOwn,
  waitReady,
} from './support/own-release.js';
import { createNamespaceAndReceiver, receiverDeliveries, receiverReady } from './support/release.js';
import { startReader, startWriter } from './support/traffic.js';

const PREVIOUS_REF = process.env.E2E_PREVIOUS_REF ?? '';
const PREVIOUS_CHART = process.env.E2E_PREVIOUS_CHART ?? '';
const PREVIOUS_IMAGE = process.env.E2E_PREVIOUS_IMAGE ?? '';
const DB = `${DATABASE}_upgrade`;
const SLUG = 'e2e-upgrade';
const MAP_KEY_SECRET = 'e2e-upgrade-map-key';
const HOOK_PATH = '/upgrade';
const SYSTEM = 30000142;
let keys: string[] = [];
let mapId = '';
let upgraded = false;

const psql = (text: string) => sql(DB, text);
const subscription = (name: string, path: string) => subscriptionOf(SLUG, name, path, MAP_KEY_SECRET);

afterAll(() => {
  sql('postgres', `DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
});

/**
 * A writer, 3 stream readers (resuming with Last-Event-ID) and the receiver around `change`: returns
 * what was written, read and delivered, and how the writes were answered.
 */
async function underLoad(change: () => Promise<void>) {
  const lastBefore = psql(`SELECT coalesce(max(event_id), '') FROM map_events WHERE map_id = '${mapId}'`);
  const seqBefore = Number(psql(`SELECT coalesce(max(seq), 0) FROM map_events WHERE map_id = '${mapId}'`));
  const oldPods = new Set((await Promise.all(ROLES.map((r) => pods(r)))).flat().map((p) => p.name));
  const writer = startWriter(SLUG, keys[0]!, SYSTEM);
  const readers = [keys[1]!, keys[2]!, keys[3]!].map((k) => startReader(SLUG, k, lastBefore));
  try {
    await sleep(3000);
    await change();
    await until('every old pod gone', 180_000, async () => (await Promise.all(ROLES.map((r) => pods(r)))).flat().every((p) => !oldPods.has(p.name)));
    await sleep(3000);
  } finally {
    await writer.stop();
  }
  const written = psql(`SELECT event_id FROM map_events WHERE map_id = '${mapId}' AND seq > ${seqBefore} ORDER BY seq`).split('\n').filter(Boolean);
  try {
    await until('every reader has every event', 120_000, async () => readers.every((r) => r.ids.length >= written.length));
  } catch (err) {
    for (const [i, r] of readers.entries()) {
      const got = new Set(r.ids);
      const missing = written.map((id, at) => [at, id] as const).filter(([, id]) => !got.has(id));
      console.log(
        `reader ${i}: ${r.ids.length}/${written.length} events, ${r.connects} connects ${JSON.stringify(Object.fromEntries(r.statuses))}; missing at ${JSON.stringify(missing.slice(0, 20))}`,
      );
    }
    throw err;
  } finally {
    for (const r of readers) await r.stop();
  }
  const delivered = await until('the receiver has every event', 180_000, async () => {
    const ids = new Set((await receiverDeliveries()).filter((d) => d.path === HOOK_PATH).map((d) => (JSON.parse(d.body) as { id: string }).id));
    return written.every((id) => ids.has(id)) && ids;
  });
  console.log(
    `${writer.requests} writes ${JSON.stringify(Object.fromEntries(writer.statuses))}, ${written.length} events; readers reconnected ${readers.map((r) => r.connects - 1).join(', ')} times`,
  );
  return { written, readers, delivered, writer };
}

if (!PREVIOUS_CHART) console.log('upgrade.test.ts: skipped, no previous release (E2E_PREVIOUS_REF=none, or the file was run outside make test-e2e)');

describe.skipIf(!PREVIOUS_CHART)(`upgrade from the previous release (${PREVIOUS_REF.slice(0, 12)}) and roll back`, () => {
  check(
    'U1. the previous release installed, then helm upgrade to the head (its CRD applied first) under a writer, 3 stream readers and the receiver: nothing lost, every write answered, every resource Ready',
    async () => {
      await createNamespaceAndReceiver();
      await receiverReady();
      await removeLeftovers(MAP_KEY_SECRET);
      // The cluster may hold the head's CRD from another file: the previous release's goes first, as a user of it has it.
      await kubectl(['apply', '--server-side', '--force-conflicts', '-f', `${PREVIOUS_CHART}/crds/`]);
      await installOwn(PREVIOUS_CHART, PREVIOUS_IMAGE, DB, 'upgrade');
      ({ keys, mapId } = await mapWithWebhooks(SLUG, 4, SYSTEM, MAP_KEY_SECRET));
      await apply(subscription('e2e-upgrade-1', HOOK_PATH));
      await waitReady('e2e-upgrade-1');
      const migrationsBefore = Number(psql('SELECT count(*) FROM mikro_orm_migrations'));

      const head = imageParts(IMAGE);
      const { written, readers, delivered, writer } = await underLoad(async () => {
        // docs/upgrading.md, "How to upgrade": the new CRD first, then helm upgrade --reset-then-reuse-values plus the new image.
        await kubectl(['apply', '--server-side', '--force-conflicts', '-f', 'charts/mapintel/crds/']);
        await helm([
          'upgrade',
          RELEASE,
          'charts/mapintel',
          '-n',
          NAMESPACE,
          '--reset-then-reuse-values',
          '--set',
          `image.repository=${head.repository}`,
          '--set',
          `image.tag=${head.tag}`,
          '--wait',
          '--timeout',
          '8m',
        ]);
        upgraded = true;
      });
      expect(written.length).toBeGreaterThan(10);
      for (const r of readers) expect(r.ids).toEqual(written);
      expect(written.filter((id) => !delivered.has(id))).toEqual([]);
      // docs/upgrading.md promises no failed request during an upgrade within the expand/contract rule.
      expect(Object.fromEntries(writer.statuses)).toEqual({ '200': writer.requests });
      // The head's migrations ran (the pre-upgrade hook), and everything is Ready on the head's image.
      expect(Number(psql('SELECT count(*) FROM mikro_orm_migrations'))).toBeGreaterThan(migrationsBefore);
      await everyDeploymentAvailable(IMAGE);
      await waitReady('e2e-upgrade-1');
      await apply(subscription('e2e-upgrade-2', '/upgrade-2'));
      await waitReady('e2e-upgrade-2');
    },
    900_000,
  );

  check(
    'U2. helm rollback to the previous release under the same traffic: the old pods serve on the migrated database, nothing lost, every write answered, every resource Ready',
    async () => {
      expect(upgraded, 'U1 upgraded the release').toBe(true);
      const { written, readers, delivered, writer } = await underLoad(async () => {
        await helm(['rollback', RELEASE, '1', '-n', NAMESPACE, '--wait', '--timeout', '8m']);
      });
      expect(written.length).toBeGreaterThan(10);
      for (const r of readers) expect(r.ids).toEqual(written);
      expect(written.filter((id) => !delivered.has(id))).toEqual([]);
      expect(Object.fromEntries(writer.statuses)).toEqual({ '200': writer.requests });
      await everyDeploymentAvailable(PREVIOUS_IMAGE);
      for (const name of ['e2e-upgrade-1', 'e2e-upgrade-2']) await waitReady(name);
      // The old operator still reconciles a new resource under the head's CRD.
      await apply(subscription('e2e-upgrade-3', '/upgrade-3'));
      await waitReady('e2e-upgrade-3');
      // Gone again, with what the resources named: the namespace is as before for the other files.
      await uninstallOwn(DB, MAP_KEY_SECRET);
    },
    900_000,
  );
});
