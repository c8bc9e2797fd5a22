/**
 * Delivery workers sized by the operator on the real node (worker.autoscale.mode operator;
 * docs/kubernetes.md, "Delivery workers sized by the operator"): a release of its own with min 1, max 3,
 * 50 pending deliveries per worker and a 90 s cool-down checked every 2 s; a map with 5
 * WebhookSubscriptions to the in-cluster receiver. The receiver answers each delivery 3 s late and each
 * worker keeps 8 attempts per map in flight, so a burst of 53 new systems (265 deliveries, planned in one
 * batch) stays a backlog; a writer edits the map once a second all along. The worker Deployment goes
 * 1 → 3; once the three workers are Ready (or 60 s after the change, within the cool-down) the receiver
 * answers at once, the backlog drains, and after the cool-down the Deployment comes back to 1 while the
 * writer goes on. Checked: the replicas seen (1, 3, 1, nothing between), an Event and a metric step per
 * change, and every event of the map at every subscription's path of the receiver.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect } from 'vitest';
import { check, sleep } from './support/check.js';
import { DATABASE, FULLNAME, IMAGE, NAMESPACE, NODE_IP, REDIS_PREFIX, RELEASE, apply, helm, kubectlJson, pods, samples, until } from './support/cluster.js';
import { everyDeploymentAvailable, mapWithWebhooks, removeLeftovers, sql, subscription, uninstallOwn, waitReady } from './support/own-release.js';
import { api, createNamespaceAndReceiver, receiverDeliveries, receiverReady, releaseValues, setReceiverDelay, valuesFile } from './support/release.js';
import { startWriter } from './support/traffic.js';

const DB = `${DATABASE}_autoscale`;
const SLUG = 'e2e-autoscale';
const MAP_KEY_SECRET = 'e2e-autoscale-map-key';
const SYSTEM = 30000142;
const HOOKS = [1, 2, 3, 4, 5].map((i) => `/autoscale-${i}`);
const WORKER = `${FULLNAME}-worker`;
/** The chart's worker.autoscale values for the check (docs/kubernetes.md gives the defaults). */
const AUTOSCALE = {
  mode: 'operator',
  minReplicas: 1,
  maxReplicas: 3,
  pendingPerReplica: 50,
  subscriptionsPerReplica: 500,
  scaleDownCooldownSeconds: 90,
  intervalSeconds: 2,
};
/** The receiver's answer while the backlog builds, and after. */
const HOLD_MS = 3000;
const DRAIN_MS = 250;
/** The longest the check waits for three Ready workers before the receiver answers at once (within the cool-down). */
const READY_WAIT_MS = 60_000;

let installed = false;
let keys: string[] = [];
let mapId = '';

const psql = (text: string) => sql(DB, text);
const pending = () => Number(psql(`SELECT count(*) FROM webhook_deliveries WHERE state = 'pending'`));

afterAll(async () => {
  await setReceiverDelay(0).catch(() => undefined);
  if (installed) await uninstallOwn(DB, MAP_KEY_SECRET).catch((err: unknown) => console.log(`uninstall after a failure: ${String(err)}`));
  sql('postgres', `DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
}, 600_000);

interface Point {
  at: number;
  spec: number;
  ready: number;
  pods: number;
  pending: number;
}

/** The worker Deployment's replicas (wanted, ready, pods) and the backlog, polled every second; a point per change. */
function startTimeline(t0: number) {
  const points: Point[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const d = await kubectlJson(['-n', NAMESPACE, 'get', 'deployment', WORKER]);
        const p: Point = {
          at: Date.now() - t0,
          spec: d.spec.replicas ?? 0,
          ready: d.status.readyReplicas ?? 0,
          pods: d.status.replicas ?? 0,
          pending: pending(),
        };
        const last = points.at(-1);
        if (!last || last.spec !== p.spec || last.ready !== p.ready || last.pods !== p.pods) points.push(p);
      } catch {
        /* the next poll */
      }
      await sleep(1000);
    }
  })();
  return {
    points,
    last: () => points.at(-1),
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/** A metric summed over the ready pods of a role (their ops port), by its labels string. */
async function summed(role: string, name: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const p of await pods(role)) {
    if (!p.ready || p.deleting) continue;
    const text = await (await fetch(`http://${p.ip}:8081/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    for (const s of samples(text, name)) out.set(s.labels, (out.get(s.labels) ?? 0) + s.value);
  }
  return out;
}

/** Attempts made by each worker pod so far (mapintel_webhook_deliveries_total). */
async function attemptsPerWorker(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const p of await pods('worker')) {
    if (!p.ready || p.deleting) continue;
    const text = await (await fetch(`http://${p.ip}:8081/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    out[p.name] = samples(text, 'mapintel_webhook_deliveries_total').reduce((n, s) => n + s.value, 0);
  }
  return out;
}

const scaleEvents = async () =>
  (
    await kubectlJson<{
      items: { reason: string; type: string; message: string; source?: { component?: string }; metadata: { creationTimestamp: string } }[];
    }>(['-n', NAMESPACE, 'get', 'events', '--field-selector', `involvedObject.kind=Deployment,involvedObject.name=${WORKER}`])
  ).items
    .filter((e) => e.reason === 'WorkersScaledUp' || e.reason === 'WorkersScaledDown')
    .sort((a, b) => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp));

describe('delivery workers sized by the operator (worker.autoscale.mode operator)', () => {
  check(
    'W1. installed with worker.autoscale.mode operator (min 1, max 3): one worker; 5 WebhookSubscriptions Ready; the operator wants 1',
    async () => {
      await createNamespaceAndReceiver();
      await receiverReady();
      // Ready is not yet reachable: the Service's rules may come a moment later.
      await until('the receiver reachable through its Service', 60_000, async () => {
        await setReceiverDelay(0);
        return true;
      });
      await removeLeftovers(MAP_KEY_SECRET);
      sql('postgres', `DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
      sql('postgres', `CREATE DATABASE ${DB}`);
      const values = valuesFile(
        releaseValues({
          database: { url: `postgres://postgres@${NODE_IP}:15432/${DB}` },
          redis: { url: `redis://${NODE_IP}:16379`, keyPrefix: `${REDIS_PREFIX}autoscale:` },
          worker: { autoscale: AUTOSCALE, extraEnv: [{ name: 'WEBHOOK_CONCURRENCY_PER_MAP', value: '8' }] },
        }),
      );
      try {
        installed = true;
        await helm(['install', RELEASE, 'charts/mapintel', '-n', NAMESPACE, '-f', values.file, '--wait', '--timeout', '8m']);
      } finally {
        values.remove();
      }
      await everyDeploymentAvailable(IMAGE);
      const d = await kubectlJson(['-n', NAMESPACE, 'get', 'deployment', WORKER]);
      expect(d.spec.replicas).toBe(1);
      ({ keys, mapId } = await mapWithWebhooks(SLUG, 2, SYSTEM, MAP_KEY_SECRET));
      for (const [i, path] of HOOKS.entries()) await apply(subscription(SLUG, `e2e-autoscale-${i + 1}`, path, MAP_KEY_SECRET));
      for (const i of HOOKS.keys()) await waitReady(`e2e-autoscale-${i + 1}`);
      await until(
        'the operator wants 1 worker',
        60_000,
        async () => Math.max(...(await summed('operator', 'mapintel_operator_worker_desired_replicas')).values()) === 1,
      );
      expect((await kubectlJson(['-n', NAMESPACE, 'get', 'deployment', WORKER])).spec.replicas).toBe(1);
    },
    900_000,
  );

  check(
    'W2. a backlog scales the workers 1 → 3, its drain and the cool-down 3 → 1, an Event and a metric step each; every event delivered to every subscription',
    async () => {
      expect(installed && mapId !== '', 'W1 installed the release').toBe(true);
      const seqBefore = Number(psql(`SELECT coalesce(max(seq), 0) FROM map_events WHERE map_id = '${mapId}'`));
      const t0 = Date.now();
      const timeline = startTimeline(t0);
      const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
      let writer: ReturnType<typeof startWriter> | undefined;
      let writes: Record<string, number> | undefined;
      let writeCount: number | undefined;
      try {
        await until('the first point of the timeline', 30_000, async () => timeline.last());
        expect(timeline.last()!.spec).toBe(1);
        await setReceiverDelay(HOLD_MS);
        // Every other system of the sample in one request: one transaction, its events planned together.
        const others = readFileSync('assets/eve-static-sample/sde/mapSolarSystems.csv', 'utf8')
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => Number(l.split(',')[0]))
          .filter((id) => id !== SYSTEM);
        const burst = await api('POST', `/api/maps/${SLUG}/systems`, keys[0]!, { systems: others.map((id) => ({ solar_system_id: id })) });
        expect(burst.status, JSON.stringify(burst.json).slice(0, 300)).toBe(201);
        const burstAt = Date.now() - t0;
        writer = startWriter(SLUG, keys[1]!, SYSTEM, 1000);

        await until('3 workers wanted', 120_000, async () => timeline.last()?.spec === 3, 500);
        const upAt = timeline.last()!.at;
        const allReady = await until('3 workers Ready', READY_WAIT_MS, async () => timeline.last()?.ready === 3, 500).then(
          () => true,
          () => false,
        );
        const readyAt = allReady ? timeline.last()!.at : undefined;
        const attemptsHeld = await attemptsPerWorker();
        await setReceiverDelay(DRAIN_MS);
        const openAt = Date.now() - t0;
        const drainedAt = (await until('the backlog drained', 120_000, async () => pending() <= AUTOSCALE.pendingPerReplica && Date.now(), 500)) - t0;

        await until('1 worker wanted', (AUTOSCALE.scaleDownCooldownSeconds + 120) * 1000, async () => timeline.last()?.spec === 1, 500);
        const downAt = timeline.last()!.at;
        // Until the removed pods have ended (a terminating pod is not among the Deployment's replicas).
        const oneAt = (await until('1 worker pod left', 120_000, async () => (await pods('worker')).length === 1 && Date.now(), 500)) - t0;
        // The writer goes on through the removal of two workers, then a little longer.
        await sleep(5000);
        await writer.stop();
        writes = Object.fromEntries(writer.statuses);
        writeCount = writer.requests;
        writer = undefined;
        await sleep(2000);
        await timeline.stop();

        console.log(
          [
            `worker autoscale timeline (s from the start; burst of ${others.length} systems x ${HOOKS.length} subscriptions at ${s(burstAt)}):`,
            ...timeline.points.map((p) => `  ${s(p.at).padStart(8)}  wanted ${p.spec}, pods ${p.pods}, ready ${p.ready}; ${p.pending} pending`),
            `  to 3 wanted: ${s(upAt - burstAt)} after the burst; 3 Ready: ${readyAt === undefined ? `not within ${s(READY_WAIT_MS)}` : `${s(readyAt - upAt)} later`}`,
            `  attempts per worker while the receiver answered ${HOLD_MS} ms late: ${JSON.stringify(attemptsHeld)}`,
            `  receiver at once at ${s(openAt)}; drained to ${AUTOSCALE.pendingPerReplica} pending ${s(drainedAt - openAt)} later`,
            `  to 1 wanted: ${s(downAt - upAt)} after the scale-up (cool-down ${AUTOSCALE.scaleDownCooldownSeconds} s); one pod left ${s(oneAt - downAt)} later`,
          ].join('\n'),
        );

        // The replicas wanted went 1 → 3 → 1, nothing between; three pods were Ready; down not before the cool-down.
        const wanted = timeline.points.map((p) => p.spec).filter((v, i, a) => i === 0 || a[i - 1] !== v);
        expect(wanted).toEqual([1, 3, 1]);
        expect(Math.max(...timeline.points.map((p) => p.ready))).toBe(3);
        // The points are seen up to a poll late: the change itself came at least the cool-down after the scale-up.
        expect(downAt - upAt).toBeGreaterThanOrEqual((AUTOSCALE.scaleDownCooldownSeconds - 3) * 1000);

        // An Event per change, with the figures, from the operator.
        const events = await scaleEvents();
        expect(events.map((e) => [e.type, e.reason])).toEqual([
          ['Normal', 'WorkersScaledUp'],
          ['Normal', 'WorkersScaledDown'],
        ]);
        expect(events.map((e) => e.source?.component)).toEqual(['mapintel-operator', 'mapintel-operator']);
        const up = /^Scaled delivery workers from 1 to 3: (\d+) deliveries pending, 5 active subscriptions$/.exec(events[0]!.message);
        expect(up, events[0]!.message).not.toBeNull();
        expect(Number(up![1])).toBeGreaterThan(2 * AUTOSCALE.pendingPerReplica);
        const down = /^Scaled delivery workers from 3 to 1: (\d+) deliveries pending, 5 active subscriptions$/.exec(events[1]!.message);
        expect(down, events[1]!.message).not.toBeNull();
        expect(Number(down![1])).toBeLessThanOrEqual(AUTOSCALE.pendingPerReplica);

        // A metric step per change (the leader's counter; the standby has none), and 1 wanted now.
        const changes = await summed('operator', 'mapintel_operator_worker_scale_changes_total');
        expect(Object.fromEntries(changes)).toEqual({ '{direction="up"}': 1, '{direction="down"}': 1 });
        expect(Math.max(...(await summed('operator', 'mapintel_operator_worker_desired_replicas')).values())).toBe(1);
      } finally {
        await writer?.stop();
        await timeline.stop();
        await setReceiverDelay(0).catch(() => undefined);
      }

      // Every event of the map since the start, at every subscription's path (at least once each).
      const written = psql(`SELECT event_id FROM map_events WHERE map_id = '${mapId}' AND seq > ${seqBefore} ORDER BY seq`).split('\n').filter(Boolean);
      expect(written.length).toBeGreaterThan(60);
      const byPath = async () => {
        const m = new Map<string, Set<string>>(HOOKS.map((h) => [h, new Set<string>()]));
        for (const d of await receiverDeliveries()) m.get(d.path)?.add((JSON.parse(d.body) as { id: string }).id);
        return m;
      };
      const missing = (m: Map<string, Set<string>>) => HOOKS.flatMap((h) => written.filter((id) => !m.get(h)!.has(id)).map((id) => `${h} ${id}`));
      const delivered = await until('every event at every path', 180_000, async () => {
        const m = await byPath();
        return missing(m).length === 0 && m;
      }).catch(async (err: unknown) => {
        const left = missing(await byPath());
        console.log(`missing ${left.length} of ${written.length * HOOKS.length}: ${left.slice(0, 20).join(', ')}`);
        console.log(psql(`SELECT state, count(*) FROM webhook_deliveries GROUP BY state`));
        throw err;
      });
      expect(missing(delivered)).toEqual([]);
      // Every edit of the writer answered.
      expect(writes).toEqual({ '200': writeCount });
      console.log(
        `${written.length} events, each delivered to ${HOOKS.length} paths; ${psql(`SELECT count(*) FROM webhook_deliveries WHERE state = 'pending'`)} pending`,
      );
    },
    900_000,
  );

  check('W3. uninstalled: the resources, the release and what it leaves gone', async () => {
    expect(installed).toBe(true);
    await uninstallOwn(DB, MAP_KEY_SECRET);
    installed = false;
  });
});
