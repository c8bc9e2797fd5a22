/**
 * How many delivery workers the operator asks for: the larger of backlog ÷ per-worker backlog and
 * active subscriptions ÷ per-worker subscriptions, rounded up, within min and max.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/log.js';
import type { EventRecorder } from '../../src/operator/event-recorder.js';
import type { KubeClient } from '../../src/operator/kube-client.js';
import { operatorMetrics } from '../../src/operator/operator.metrics.js';
import { desiredWorkers, WorkerAutoscaler } from '../../src/operator/worker-autoscaler.js';

const bounds = { minReplicas: 1, maxReplicas: 5, pendingPerReplica: 100, subscriptionsPerReplica: 50 };

describe('desiredWorkers', () => {
  it('asks for min when there is nothing to do', () => {
    expect(desiredWorkers({ pending: 0, active: 0 }, bounds)).toBe(1);
    expect(desiredWorkers({ pending: 0, active: 0 }, { ...bounds, minReplicas: 0 })).toBe(0);
  });

  it('rounds the backlog up per worker', () => {
    expect(desiredWorkers({ pending: 101, active: 0 }, bounds)).toBe(2);
    expect(desiredWorkers({ pending: 300, active: 0 }, bounds)).toBe(3);
  });

  it('takes the larger of backlog and subscriptions', () => {
    expect(desiredWorkers({ pending: 150, active: 180 }, bounds)).toBe(4);
  });

  it('never asks for more than max', () => {
    expect(desiredWorkers({ pending: 1_000_000, active: 0 }, bounds)).toBe(5);
  });
});

/** An autoscaler on a Deployment of `replicas` with nothing to do, its clock in the test's hands. */
function scaler(replicas: number) {
  const clock = { now: 1_000_000 };
  const scale = { replicas };
  const patches: number[] = [];
  const client = {
    get: async () => ({ metadata: { name: 'w', namespace: 'ns' }, spec: { replicas: scale.replicas } }),
    patch: async (_path: string, body: { spec: { replicas: number } }) => {
      patches.push(body.spec.replicas);
      scale.replicas = body.spec.replicas;
      return {};
    },
  } as unknown as KubeClient;
  const load = { pendingDeliveries: async () => 0, activeSubscriptions: async () => 0 };
  const recorder = { record: () => undefined } as unknown as EventRecorder;
  const a = new WorkerAutoscaler(client, load, recorder, operatorMetrics(new Registry()), createLogger('silent'), {
    namespace: 'ns',
    deployment: 'w',
    minReplicas: 1,
    maxReplicas: 5,
    pendingPerReplica: 100,
    subscriptionsPerReplica: 50,
    scaleDownCooldownMs: 60_000,
    intervalMs: 3_600_000,
    now: () => clock.now,
  });
  return { a, clock, patches, load };
}

describe('WorkerAutoscaler', () => {
  it('on taking the lead, scales down only a cool-down later: it cannot know when the last leader changed the replicas', async () => {
    const { a, clock, patches } = scaler(3);
    a.start();
    await a.stop();
    expect(await a.step()).toBe(3);
    clock.now += 59_000;
    expect(await a.step()).toBe(3);
    expect(patches).toEqual([]);
    clock.now += 1_000;
    expect(await a.step()).toBe(1);
    expect(patches).toEqual([1]);
  });

  it('on taking the lead, scales up at once', async () => {
    const { a, patches, load } = scaler(1);
    load.pendingDeliveries = async () => 250;
    a.start();
    await a.stop();
    expect(await a.step()).toBe(3);
    expect(patches).toEqual([3]);
  });
});
