/**
 * Metrics of the operator: the names controller-runtime and client-go use (so dashboards made for Go
 * operators work), plus mapintel's own.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export const CONTROLLER = 'webhooksubscription';

export type OperatorMetrics = ReturnType<typeof operatorMetrics>;

/** Where the work queue's in-flight timings come from when the gauges are scraped (set by the controller). */
export interface QueueProbe {
  current?: () => { unfinishedSeconds: number; longestSeconds: number };
}

/** client-go's latency buckets of the REST client (rest_client_request_duration_seconds). */
const REST_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];
/** client-go's work queue buckets: 10^-8 … 10^1 seconds (workqueue_queue/work_duration_seconds). */
const QUEUE_BUCKETS = Array.from({ length: 10 }, (_, i) => 10 ** (i - 8));

export function operatorMetrics(registry: Registry) {
  const registers = [registry];
  const queueProbe: QueueProbe = {};
  const m = {
    queueProbe,
    reconcileTotal: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'] as const,
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'] as const,
      registers,
    }),
    reconcileTime: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    activeWorkers: new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'] as const,
      registers,
    }),
    queueDepth: new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'] as const, registers }),
    queueAdds: new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'] as const, registers }),
    queueRetries: new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'] as const,
      registers,
    }),
    queueDuration: new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name'] as const,
      buckets: QUEUE_BUCKETS,
      registers,
    }),
    workDuration: new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name'] as const,
      buckets: QUEUE_BUCKETS,
      registers,
    }),
    unfinishedWork: new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads",
      labelNames: ['name'] as const,
      registers,
      collect() {
        this.set({ name: CONTROLLER }, queueProbe.current?.().unfinishedSeconds ?? 0);
      },
    }),
    longestRunning: new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running',
      labelNames: ['name'] as const,
      registers,
      collect() {
        this.set({ name: CONTROLLER }, queueProbe.current?.().longestSeconds ?? 0);
      },
    }),
    reconcilePanics: new Counter({
      name: 'controller_runtime_reconcile_panics_total',
      help: 'Total number of reconciliation panics per controller',
      labelNames: ['controller'] as const,
      registers,
    }),
    reconcileTimeouts: new Counter({
      name: 'mapintel_operator_reconcile_timeouts_total',
      help: 'Reconciles that ran past OPERATOR_RECONCILE_TIMEOUT_SECONDS (their apiserver calls cancelled, retried with backoff)',
      labelNames: ['controller'] as const,
      registers,
    }),
    watchRestarts: new Counter({
      name: 'mapintel_operator_watch_restarts_total',
      help: 'Watches (or lists) of the operator started again, by resource and reason: closed (server timeout), expired (410), idle (silent stream), broken (connection cut), short (ended within a second with no event), error_event, failed (list or watch refused or unreachable)',
      labelNames: ['resource', 'reason'] as const,
      registers,
    }),
    restRequests: new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'] as const,
      registers,
    }),
    restDuration: new Histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'Request latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'] as const,
      buckets: REST_BUCKETS,
      registers,
    }),
    restRateLimiterDuration: new Histogram({
      name: 'rest_client_rate_limiter_duration_seconds',
      help: 'Client side rate limiter latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'] as const,
      buckets: REST_BUCKETS,
      registers,
    }),
    workerDesiredReplicas: new Gauge({
      name: 'mapintel_operator_worker_desired_replicas',
      help: 'Delivery workers the operator wants (worker.autoscale.mode operator), from the backlog and the active subscriptions, within min and max',
      registers,
    }),
    workerScaleChanges: new Counter({
      name: 'mapintel_operator_worker_scale_changes_total',
      help: "Changes of the delivery worker Deployment's replicas made by the operator, by direction",
      labelNames: ['direction'] as const,
      registers,
    }),
    leader: new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      labelNames: ['name'] as const,
      registers,
    }),
    apiRequests: new Counter({
      name: 'mapintel_operator_apiserver_requests_total',
      help: 'Requests of the operator to the Kubernetes API by verb, resource and status code',
      labelNames: ['verb', 'resource', 'code'] as const,
      registers,
    }),
    responseBytes: new Counter({
      name: 'mapintel_operator_apiserver_response_bytes_total',
      help: 'Bytes of the Kubernetes API answers the operator read (lists, objects and watch streams), by resource',
      labelNames: ['resource'] as const,
      registers,
    }),
    cachedObjects: new Gauge({
      name: 'mapintel_operator_cached_objects',
      help: 'Objects in the operator caches, by resource',
      labelNames: ['resource'] as const,
      registers,
    }),
    resources: new Gauge({
      name: 'mapintel_operator_subscriptions',
      help: 'WebhookSubscription resources in the operator cache, by Ready condition',
      labelNames: ['ready'] as const,
      registers,
    }),
    events: new Counter({
      name: 'mapintel_operator_kubernetes_events_total',
      help: 'Kubernetes Events the operator recorded, by type and reason',
      labelNames: ['type', 'reason'] as const,
      registers,
    }),
  };
  // As controller-runtime does: the controller's reconcile series exist at 0 from the start, so a
  // dashboard panel or an alert over them has data before the first error.
  m.reconcileErrors.inc({ controller: CONTROLLER }, 0);
  m.reconcilePanics.inc({ controller: CONTROLLER }, 0);
  m.reconcileTimeouts.inc({ controller: CONTROLLER }, 0);
  for (const result of ['success', 'error', 'requeue_after']) m.reconcileTotal.inc({ controller: CONTROLLER, result }, 0);
  return m;
}
