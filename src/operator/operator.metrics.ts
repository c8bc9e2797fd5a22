/**
 * Metrics of the operator: the names controller-runtime and client-go use (so dashboards made for Go
 * operators work), plus mapintel's own.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export const CONTROLLER = 'webhooksubscription';

export type OperatorMetrics = ReturnType<typeof operatorMetrics>;

export function operatorMetrics(registry: Registry) {
  const registers = [registry];
  const m = {
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
  for (const result of ['success', 'error', 'requeue_after']) m.reconcileTotal.inc({ controller: CONTROLLER, result }, 0);
  return m;
}
