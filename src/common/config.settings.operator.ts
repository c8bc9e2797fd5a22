/**
 * The operator's settings (its apiserver client, work queue, leader election and the worker sizing), in
 * the order docs/configuration.md lists them; SETTINGS (config.settings.ts) takes them in at their place.
 */
import type { Setting } from './setting.js';

export const OPERATOR_SETTINGS: readonly Setting[] = [
  {
    name: 'KUBECONFIG',
    meaning: 'Operator: kubeconfig file of the cluster to reconcile; when unset, the in-cluster ServiceAccount (or ~/.kube/config outside a cluster)',
    default: '',
    unit: 'path',
  },
  {
    name: 'OPERATOR_NAMESPACE',
    meaning: 'Operator: namespace of its leader-election Lease (the chart sets the release namespace)',
    default: 'default',
    unit: 'name',
  },
  { name: 'OPERATOR_LEASE_NAME', meaning: 'Operator: name of the leader-election Lease', default: 'mapintel-operator', unit: 'name' },
  {
    name: 'OPERATOR_LEASE_DURATION_SECONDS',
    meaning: 'Operator: a leader that stops renewing loses the Lease after this long; the leader renews every fifth of it',
    default: '15',
    unit: 'seconds',
  },
  {
    name: 'OPERATOR_IDENTITY',
    meaning: 'Operator: holder identity in the Lease (the chart sets the pod name); host name and process id when unset',
    default: '',
    unit: 'string',
  },
  { name: 'OPERATOR_CONCURRENCY', meaning: 'Operator: resources reconciled at once', default: '4', unit: 'reconciles' },
  {
    name: 'OPERATOR_STATUS_REFRESH_MS',
    meaning: 'Operator: how often delivery state (last delivery, failures, last error) is compared with the resources’ status',
    default: '5000',
    unit: 'milliseconds',
  },
  {
    name: 'OPERATOR_WATCH_NAMESPACES',
    meaning:
      'Operator: comma-separated namespaces whose WebhookSubscriptions (and Secrets) it watches, with a Role in each (the chart’s operator.watchNamespaces); empty: every namespace, with a ClusterRole',
    default: '',
    unit: 'list',
  },
  {
    name: 'OPERATOR_QUEUE_QPS',
    meaning: 'Operator: retries of failed reconciles per second over all resources (the work queue’s shared token bucket, beside each resource’s own backoff)',
    default: '10',
    unit: 'retries/second',
  },
  { name: 'OPERATOR_QUEUE_BURST', meaning: 'Operator: retries the work queue’s shared token bucket lets through at once', default: '100', unit: 'retries' },
  {
    name: 'OPERATOR_KUBE_API_QPS',
    meaning: 'Operator: requests per second to the Kubernetes API (client-side limit, watches included)',
    default: '300',
    unit: 'requests/second',
  },
  {
    name: 'OPERATOR_KUBE_API_BURST',
    meaning: 'Operator: requests to the Kubernetes API let through at once above OPERATOR_KUBE_API_QPS',
    default: '600',
    unit: 'requests',
  },
  {
    name: 'OPERATOR_RECONCILE_TIMEOUT_SECONDS',
    meaning: 'Operator: a reconcile running longer fails, its Kubernetes API calls cancelled, and is retried with backoff',
    default: '60',
    unit: 'seconds',
  },
  {
    name: 'OPERATOR_WATCH_FAILURE_UNREADY_SECONDS',
    meaning: 'Operator: /readyz answers 503 once a cache (WebhookSubscriptions or Secrets) has gone this long without an established list or watch',
    default: '120',
    unit: 'seconds',
  },
  {
    name: 'OPERATOR_WORKER_AUTOSCALE',
    meaning:
      'Operator: the leader sizes the delivery worker Deployment (OPERATOR_WORKER_DEPLOYMENT in OPERATOR_NAMESPACE) from the pending deliveries and the active subscriptions (the chart’s worker.autoscale.mode: operator)',
    default: 'false',
    unit: 'boolean',
  },
  { name: 'OPERATOR_WORKER_DEPLOYMENT', meaning: 'Operator: name of the delivery worker Deployment it sizes', default: 'mapintel-worker', unit: 'name' },
  { name: 'OPERATOR_WORKER_MIN_REPLICAS', meaning: 'Operator: fewest delivery workers it scales to', default: '1', unit: 'replicas' },
  { name: 'OPERATOR_WORKER_MAX_REPLICAS', meaning: 'Operator: most delivery workers it scales to', default: '10', unit: 'replicas' },
  {
    name: 'OPERATOR_WORKER_PENDING_PER_REPLICA',
    meaning: 'Operator: pending deliveries one worker is meant to carry (workers wanted: pending ÷ this, rounded up)',
    default: '1000',
    unit: 'deliveries',
  },
  {
    name: 'OPERATOR_WORKER_SUBSCRIPTIONS_PER_REPLICA',
    meaning: 'Operator: active subscriptions one worker is meant to carry (workers wanted: active ÷ this, rounded up; the larger of the two counts)',
    default: '500',
    unit: 'subscriptions',
  },
  {
    name: 'OPERATOR_WORKER_SCALE_DOWN_COOLDOWN_SECONDS',
    meaning: 'Operator: time since its last change of the worker replicas before it scales them down (up is at once)',
    default: '300',
    unit: 'seconds',
  },
  {
    name: 'OPERATOR_WORKER_AUTOSCALE_INTERVAL_SECONDS',
    meaning: 'Operator: how often it looks at the load to size the workers',
    default: '15',
    unit: 'seconds',
  },
];
