/**
 * Delivery workers sized by the operator (OPERATOR_WORKER_AUTOSCALE, the chart's worker.autoscale.mode
 * operator) on a real apiserver: a backlog of pending deliveries scales the worker Deployment's scale
 * subresource up at once, within max; once it is gone the workers come down to min after the
 * cool-down; each change is an Event on the Deployment and a step of the metrics. No pods run here
 * (no controller-manager, no node): what is checked is what the operator writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeUnavailable } from '../support/kube.js';
import { eventually, metricValue, OperatorHarness } from '../support/operator-harness.js';
import { planned, subscriptions } from '../support/webhook-queue.js';
import { dbOf } from '../../src/db/db.js';
import { DeliveryRepository } from '../../src/webhooks/delivery.repository.js';

const unavailable = kubeUnavailable(['etcd', 'kube-apiserver', 'kubectl']);

describe.skipIf(unavailable)('operator: delivery workers sized from the backlog', () => {
  let h: OperatorHarness;
  let port: number;
  const replicas = () => Number(h.kubectl(['get', 'deployment', 'workers', '-n', 'default', '-o', 'jsonpath={.spec.replicas}']));
  const scaleEvents = () =>
    (
      JSON.parse(
        h.kubectl(['get', 'events', '-n', 'default', '--field-selector', 'involvedObject.kind=Deployment,involvedObject.name=workers', '-o', 'json']),
      ) as {
        items: { reason: string; message: string; type: string }[];
      }
    ).items;

  beforeAll(async () => {
    h = await OperatorHarness.start();
    h.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'workers', namespace: 'default' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'workers' } },
          template: { metadata: { labels: { app: 'workers' } }, spec: { containers: [{ name: 'worker', image: 'mapintel:test' }] } },
        },
      }),
    );
    ({ port } = await h.startOperator('operator-scaler', h.cluster.kubeconfigFile, {
      OPERATOR_WORKER_AUTOSCALE: 'true',
      OPERATOR_WORKER_DEPLOYMENT: 'workers',
      OPERATOR_WORKER_MIN_REPLICAS: '1',
      OPERATOR_WORKER_MAX_REPLICAS: '3',
      OPERATOR_WORKER_PENDING_PER_REPLICA: '10',
      OPERATOR_WORKER_SUBSCRIPTIONS_PER_REPLICA: '1000',
      OPERATOR_WORKER_SCALE_DOWN_COOLDOWN_SECONDS: '3',
      OPERATOR_WORKER_AUTOSCALE_INTERVAL_SECONDS: '1',
    }));
  }, 180_000);

  afterAll(async () => {
    await h?.stop();
  }, 60_000);

  it('scales 1 → 3 under a backlog (bounded by max) and back to 1 after the cool-down, with an Event and a metric each time', async () => {
    await eventually('the operator leads', () => h.leads(port));
    expect(replicas()).toBe(1);
    const db = dbOf(h.api.platform.orm);
    const { mapId, ids } = await subscriptions(h.api, 1);
    // 45 pending deliveries: 5 workers wanted at 10 each, 3 allowed.
    await new DeliveryRepository().plan(db, planned(mapId, ids[0]!, 45));
    await eventually('three workers', () => replicas() === 3, 30_000);
    const upAt = Date.now();
    const up = await eventually('the scale-up Event', () => scaleEvents().find((e) => e.reason === 'WorkersScaledUp'));
    expect(up).toMatchObject({ type: 'Normal', message: 'Scaled delivery workers from 1 to 3: 45 deliveries pending, 1 active subscriptions' });
    expect(metricValue(await h.metrics(port), 'mapintel_operator_worker_scale_changes_total', { direction: 'up' })).toBe(1);
    expect(await h.metrics(port)).toMatch(/^mapintel_operator_worker_desired_replicas 3$/m);

    // The backlog delivered: down to min, not before the cool-down since the last change.
    await db.run(`update webhook_deliveries set state = 'delivered', finished_at = now() where state = 'pending'`);
    await eventually('one worker', () => replicas() === 1, 30_000);
    expect(Date.now() - upAt).toBeGreaterThanOrEqual(2_500);
    const down = await eventually('the scale-down Event', () => scaleEvents().find((e) => e.reason === 'WorkersScaledDown'));
    expect(down.message).toBe('Scaled delivery workers from 3 to 1: 0 deliveries pending, 1 active subscriptions');
    expect(metricValue(await h.metrics(port), 'mapintel_operator_worker_scale_changes_total', { direction: 'down' })).toBe(1);
  });

  it('raises a count set by hand below min back to min at once', async () => {
    h.kubectl(['scale', 'deployment', 'workers', '-n', 'default', '--replicas=0']);
    await eventually('back to min', () => replicas() === 1, 30_000);
  });
});
