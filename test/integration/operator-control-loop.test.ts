/**
 * The operator's control loop against a scripted apiserver on loopback: a new leader reconciles
 * nothing before every cache has synced, a reconcile that outlives its deadline is cancelled and
 * retried, and the client keeps to its request rate, counting requests under client-go's names.
 * The platform side (subscriptions, map facts) is a fake given to the constructor: these tests are
 * about the loop, the cluster tier tests the reconciler against a real apiserver and database.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Registry } from 'prom-client';
import { KubeClient } from '../../src/operator/kube-client.js';
import { operatorMetrics, type OperatorMetrics } from '../../src/operator/operator.metrics.js';
import { EventRecorder } from '../../src/operator/event-recorder.js';
import { WebhookSubscriptionController } from '../../src/operator/webhook-subscription.controller.js';
import type { ManagedSubscriptions } from '../../src/operator/webhook-subscription.reconciler.js';
import type { MapFacts } from '../../src/operator/map-facts.js';
import { answer, FakeApiserver, openWatch, status, type RecordedRequest } from '../support/fake-apiserver.js';
import { eventually } from '../support/operator-harness.js';

const log = pino({ level: 'silent' });
const RESOURCES = '/apis/mapintel.io/v1alpha1/webhooksubscriptions';
const SECRETS = '/api/v1/secrets';
const resource = {
  apiVersion: 'mapintel.io/v1alpha1',
  kind: 'WebhookSubscription',
  metadata: { name: 'hook', namespace: 'team', uid: 'u-1', resourceVersion: '5', generation: 1 },
  spec: { map: 'm', url: 'https://example.com/hook', events: ['map.updated'] },
};
const listOf = (items: unknown[]) => ({ metadata: { resourceVersion: '10' }, items });

const subscriptions: ManagedSubscriptions = {
  planManaged: () => Promise.reject(new Error('not expected')),
  applyManaged: () => Promise.reject(new Error('not expected')),
  removeManaged: () => Promise.resolve(false),
  listManaged: () => Promise.resolve([]),
};
const facts: MapFacts = {
  checkMapKey: () => Promise.reject(new Error('not expected')),
  liveMapKeyIds: () => Promise.resolve(new Set()),
  webhooksEnabled: () => Promise.resolve(new Map()),
};

let fake: FakeApiserver;
let client: KubeClient;
let metrics: OperatorMetrics;
let registry: Registry;
let controller: WebhookSubscriptionController | undefined;

beforeEach(async () => {
  fake = await FakeApiserver.start();
  registry = new Registry();
  metrics = operatorMetrics(registry);
  client = new KubeClient(fake.kubeConfig(), {
    qps: 1000,
    burst: 1000,
    rest: { requests: metrics.restRequests, duration: metrics.restDuration, rateLimiterDuration: metrics.restRateLimiterDuration },
  });
});

afterEach(async () => {
  await controller?.stop();
  controller = undefined;
  client.close();
  await fake.stop();
});

function startController(opts: { reconcileTimeoutMs?: number } = {}): WebhookSubscriptionController {
  controller = new WebhookSubscriptionController(client, subscriptions, facts, new EventRecorder(client, 'test', log), metrics, log, {
    concurrency: 2,
    statusRefreshMs: 60_000,
    informer: { retryMinMs: 100, retryMaxMs: 500, random: () => 0 },
    ...opts,
  });
  controller.start();
  controller.startLeading();
  return controller;
}

const writes = (): RecordedRequest[] => fake.requests.filter((r) => r.method !== 'GET' && r.path.includes('/webhooksubscriptions/'));
const value = async (name: string, labels: Record<string, string>): Promise<number | undefined> =>
  (await registry.getSingleMetric(name)!.get()).values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;

describe('WebhookSubscriptionController control loop', () => {
  it('starts its workers only after every informer has synced', async () => {
    let secretsListable = false;
    fake.script = (req, res) => {
      if (req.query.get('watch') === 'true') return void openWatch(res);
      if (req.method === 'GET' && req.path === RESOURCES) return answer(res, 200, listOf([resource]));
      if (req.method === 'GET' && req.path === SECRETS) {
        return secretsListable ? answer(res, 200, listOf([])) : answer(res, 403, status(403, 'Forbidden', 'secrets is forbidden'));
      }
      // The reconcile: the finalizer, the status; everything else is absent.
      if (req.method === 'PATCH') return answer(res, 200, { ...resource, metadata: { ...resource.metadata, finalizers: ['mapintel.io/subscription'] } });
      answer(res, 404, status(404, 'NotFound'));
    };
    const c = startController();
    await eventually('the resources listed', () => c.resources.hasSynced);
    await eventually('two refused lists of Secrets', () => fake.seen('GET', SECRETS, { watch: false }).length >= 2);
    // Leading, the resource in the cache, the Secrets cache not synced: nothing reconciled.
    expect(c.waitingForSync).toBe(true);
    expect(writes()).toEqual([]);
    expect(c.failingForMs()).toBeGreaterThan(0);
    secretsListable = true;
    await eventually('the resource reconciled', () => writes().length > 0, 20_000);
    expect(writes()[0]!.body).toContain('mapintel.io/subscription');
    // Every write names the operator's field manager and asks for strict field validation.
    expect(writes()[0]!.query.get('fieldManager')).toBe('mapintel-operator');
    expect(writes()[0]!.query.get('fieldValidation')).toBe('Strict');
    expect(c.waitingForSync).toBe(false);
    expect(c.failingForMs()).toBe(0);
  });

  it('cancels a reconcile past its deadline, counts it as an error and a timeout, and retries it with backoff', async () => {
    const patches: RecordedRequest[] = [];
    fake.script = (req, res) => {
      if (req.query.get('watch') === 'true') return void openWatch(res);
      if (req.method === 'GET') return answer(res, 200, listOf(req.path === RESOURCES ? [resource] : []));
      // The apiserver never answers the reconcile's first write.
      if (req.method === 'PATCH') return void patches.push(req);
      answer(res, 404, status(404, 'NotFound'));
    };
    startController({ reconcileTimeoutMs: 300 });
    await eventually('the write retried after the deadline', () => patches.length >= 2, 20_000);
    // The first write's connection was closed by the client at the deadline, long before its 30 s timeout.
    await eventually('the first write abandoned', () => patches[0]!.abandoned);
    expect(patches[1]!.at - patches[0]!.at).toBeGreaterThanOrEqual(300);
    expect(await value('mapintel_operator_reconcile_timeouts_total', { controller: 'webhooksubscription' })).toBeGreaterThanOrEqual(1);
    expect(await value('controller_runtime_reconcile_errors_total', { controller: 'webhooksubscription' })).toBeGreaterThanOrEqual(1);
    expect(await value('controller_runtime_reconcile_total', { controller: 'webhooksubscription', result: 'error' })).toBeGreaterThanOrEqual(1);
    expect(await value('controller_runtime_reconcile_panics_total', { controller: 'webhooksubscription' })).toBe(0);
    // The watch restart series exist from the start, at 0 until a restart (the dashboard's panel has data).
    expect(await value('mapintel_operator_watch_restarts_total', { resource: 'secrets', reason: 'short' })).toBe(0);
    // A PATCH without an answer is counted by client-go's name as code "<error>".
    const host = new URL(fake.url).host;
    expect(await value('rest_client_requests_total', { code: '<error>', method: 'PATCH', host })).toBeGreaterThanOrEqual(1);
    expect(await value('rest_client_requests_total', { code: '200', method: 'GET', host })).toBeGreaterThanOrEqual(2);
  });
});

describe('KubeClient rate limit', () => {
  it('keeps to its requests per second after the burst, timing the waits in rest_client_rate_limiter_duration_seconds', async () => {
    fake.script = (_req, res) => answer(res, 200, { kind: 'Namespace', metadata: { name: 'x' } });
    const limited = new KubeClient(fake.kubeConfig(), {
      qps: 5,
      burst: 2,
      rest: { requests: metrics.restRequests, duration: metrics.restDuration, rateLimiterDuration: metrics.restRateLimiterDuration },
    });
    try {
      const started = Date.now();
      await Promise.all(Array.from({ length: 5 }, () => limited.get('/api/v1/namespaces/x')));
      // Two at once, then one every 200 ms: the fifth no sooner than 600 ms after the first.
      expect(Date.now() - started).toBeGreaterThanOrEqual(590);
      // At the server the first may arrive late (its TLS handshake); unlimited, all five arrive within milliseconds.
      const at = fake.requests.map((r) => r.at);
      expect(at[4]! - at[0]!).toBeGreaterThanOrEqual(400);
      const host = new URL(fake.url).host;
      expect(await value('rest_client_requests_total', { code: '200', method: 'GET', host })).toBe(5);
      // Each request waited for the limit once and was timed once, under client-go's labels.
      const text = await registry.metrics();
      expect(text).toContain(`rest_client_rate_limiter_duration_seconds_count{verb="GET",host="${host}"} 5`);
      expect(text).toContain(`rest_client_request_duration_seconds_count{verb="GET",host="${host}"} 5`);
    } finally {
      limited.close();
    }
  });
});
