/**
 * Kubernetes Events about WebhookSubscription resources (core/v1, visible in `kubectl describe` and
 * `kubectl get events`). Recording never blocks or fails a reconcile: a refused Event is logged.
 */
import type { Logger } from '../log.js';
import type { KubeClient } from './kube-client.js';
import type { KubeObject } from './informer.js';
import type { OperatorMetrics } from './operator.metrics.js';
import { API_VERSION, KIND } from './webhook-subscription.types.js';

export const COMPONENT = 'mapintel-operator';

export class EventRecorder {
  constructor(
    private readonly client: KubeClient,
    private readonly identity: string,
    private readonly log: Logger,
    private readonly metrics?: OperatorMetrics,
  ) {}

  record(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const ns = obj.metadata.namespace ?? 'default';
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    this.metrics?.events.inc({ type, reason });
    this.client
      .create(`/api/v1/namespaces/${ns}/events`, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { generateName: `${obj.metadata.name}.`, namespace: ns },
        involvedObject: {
          apiVersion: API_VERSION,
          kind: KIND,
          name: obj.metadata.name,
          namespace: ns,
          uid: obj.metadata.uid,
          resourceVersion: obj.metadata.resourceVersion,
        },
        type,
        reason,
        message: message.slice(0, 1024),
        source: { component: COMPONENT },
        reportingComponent: COMPONENT,
        reportingInstance: this.identity,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      })
      .catch((err: Error) => this.log.warn({ reason, err: { message: err.message } }, 'could not record a Kubernetes Event'));
  }
}
