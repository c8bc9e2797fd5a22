/**
 * Kubernetes Events about WebhookSubscription resources (core/v1, visible in `kubectl describe` and
 * `kubectl get events`). Recording never blocks or fails a reconcile: a refused Event is logged.
 * A repeat of an Event (same object, type, reason and message) within the hour is counted on the
 * Event already made (`count`, `lastTimestamp`), as client-go's recorder does, instead of making another.
 */
import type { Logger } from '../common/log.js';
import { isNotFound, type KubeClient } from './kube-client.js';
import type { KubeObject } from './informer.js';
import type { OperatorMetrics } from './operator.metrics.js';
import { API_VERSION, KIND } from './webhook-subscription.types.js';

export const COMPONENT = 'mapintel-operator';
/** Repeats within this long are counted on one Event (the apiserver keeps Events for an hour by default). */
const AGGREGATE_MS = 60 * 60_000;
/** Events remembered for counting; the oldest are forgotten first. */
const REMEMBERED = 4096;

interface Recorded {
  name: string;
  count: number;
  at: number;
  /** The write in flight: a repeat waits for it. */
  pending: Promise<void>;
}

export class EventRecorder {
  private readonly recorded = new Map<string, Recorded>();

  constructor(
    private readonly client: KubeClient,
    private readonly identity: string,
    private readonly log: Logger,
    private readonly metrics?: OperatorMetrics,
  ) {}

  record(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const ns = obj.metadata.namespace ?? 'default';
    const text = message.slice(0, 1024);
    this.metrics?.events.inc({ type, reason });
    const key = `${ns}\n${obj.metadata.name}\n${obj.metadata.uid ?? ''}\n${type}\n${reason}\n${text}`;
    const seen = this.recorded.get(key);
    if (seen && Date.now() - seen.at < AGGREGATE_MS) {
      seen.at = Date.now();
      seen.pending = seen.pending.then(() => this.repeat(obj, ns, type, reason, text, seen));
      return;
    }
    this.recorded.delete(key);
    const entry: Recorded = { name: '', count: 1, at: Date.now(), pending: Promise.resolve() };
    entry.pending = this.create(obj, ns, type, reason, text, entry);
    this.recorded.set(key, entry);
    if (this.recorded.size > REMEMBERED) this.recorded.delete(this.recorded.keys().next().value!);
  }

  private async repeat(obj: KubeObject, ns: string, type: string, reason: string, message: string, entry: Recorded): Promise<void> {
    if (!entry.name) return this.create(obj, ns, type, reason, message, entry);
    entry.count++;
    try {
      await this.client.patch(`/api/v1/namespaces/${ns}/events/${entry.name}`, { count: entry.count, lastTimestamp: now() });
    } catch (err) {
      if (isNotFound(err)) {
        entry.count = 1;
        return this.create(obj, ns, type, reason, message, entry);
      }
      this.log.warn({ reason, err: { message: (err as Error).message } }, 'could not record a Kubernetes Event');
    }
  }

  private async create(obj: KubeObject, ns: string, type: string, reason: string, message: string, entry: Recorded): Promise<void> {
    const at = now();
    try {
      const made = await this.client.create<{ metadata: { name: string } }>(`/api/v1/namespaces/${ns}/events`, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { generateName: `${obj.metadata.name}.`, namespace: ns },
        involvedObject: {
          // A WebhookSubscription unless the object says otherwise (the worker Deployment the operator scales).
          apiVersion: obj.apiVersion ?? API_VERSION,
          kind: obj.kind ?? KIND,
          name: obj.metadata.name,
          namespace: ns,
          uid: obj.metadata.uid,
          resourceVersion: obj.metadata.resourceVersion,
        },
        type,
        reason,
        message,
        source: { component: COMPONENT },
        reportingComponent: COMPONENT,
        reportingInstance: this.identity,
        firstTimestamp: at,
        lastTimestamp: at,
        count: entry.count,
      });
      entry.name = made.metadata.name;
    } catch (err) {
      this.log.warn({ reason, err: { message: (err as Error).message } }, 'could not record a Kubernetes Event');
    }
  }

  /** Waits for the Events being written (tests, shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.recorded.values()].map((r) => r.pending));
  }
}

const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
