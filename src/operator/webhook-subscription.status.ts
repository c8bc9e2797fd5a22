/**
 * Writes a WebhookSubscription's /status: by server-side apply (field manager mapintel-operator),
 * only when it changed, with the conditions merged by setStatusCondition (lastTransitionTime kept
 * unless a status flips), and a Kubernetes Event on each move of Ready or Degraded. It remembers what
 * it wrote: the informer's cache may still hold an older status when the next reconcile starts.
 */
import type { KubeClient } from './kube-client.js';
import type { EventRecorder } from './event-recorder.js';
import { findStatusCondition, setStatusCondition } from './webhook-subscription.conditions.js';
import { API_VERSION, KIND, resourcePath, type WebhookSubscriptionResource, type WebhookSubscriptionStatus } from './webhook-subscription.types.js';

export class StatusWriter {
  /**
   * namespace/name → the status this leader last wrote (the apiserver's answer). The cache may still
   * hold an older one when the next reconcile starts; transitions and Events are judged against this.
   */
  private readonly written = new Map<string, { uid: string; status: WebhookSubscriptionStatus }>();

  constructor(
    private readonly client: KubeClient,
    private readonly recorder: EventRecorder,
  ) {}

  /** The resource with the newest status known: the one written here when it is newer than the cache's. */
  latest(cr: WebhookSubscriptionResource): WebhookSubscriptionResource {
    const mine = this.written.get(keyOf(cr));
    return mine && mine.uid === cr.metadata.uid ? { ...cr, status: mine.status } : cr;
  }

  /** Forgets what was written (leadership starts again: another leader may have written since). */
  forgetAll(): void {
    this.written.clear();
  }

  forget(key: string): void {
    this.written.delete(key);
  }

  /**
   * Writes `next` unless the status already says it. Conditions of `next` are set into the previous
   * ones; conditions of types `next` does not name are dropped.
   */
  async write(obj: WebhookSubscriptionResource, next: WebhookSubscriptionStatus): Promise<void> {
    const key = keyOf(obj);
    const previous = this.latest(obj).status ?? {};
    if (next.conditions) {
      const merged = (previous.conditions ?? []).filter((c) => next.conditions!.some((n) => n.type === c.type)).map((c) => ({ ...c }));
      for (const c of next.conditions) setStatusCondition(merged, c);
      // In the order `next` gives them (kubectl shows them so).
      next.conditions = next.conditions.map((c) => findStatusCondition(merged, c.type)!);
    }
    if (sameStatus(previous, next)) return;
    const applied = await this.client.patch<WebhookSubscriptionResource>(
      `${resourcePath(obj.metadata.namespace!, obj.metadata.name)}/status`,
      { apiVersion: API_VERSION, kind: KIND, metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace }, status: canonical(next) },
      'apply',
    );
    this.transitions(obj, previous, next);
    // The next write (of this reconcile or the next) starts from what was written.
    obj.status = applied.status ?? next;
    this.written.set(key, { uid: obj.metadata.uid ?? '', status: obj.status });
  }

  /** Kubernetes Events when Ready or Degraded change: a Warning on each move to a new trouble. */
  private transitions(obj: WebhookSubscriptionResource, before: WebhookSubscriptionStatus, after: WebhookSubscriptionStatus): void {
    const ready = [findStatusCondition(before.conditions, 'Ready'), findStatusCondition(after.conditions, 'Ready')] as const;
    const degraded = [findStatusCondition(before.conditions, 'Degraded'), findStatusCondition(after.conditions, 'Degraded')] as const;
    // Ready after a refusal or a stop; the first Ready of a new resource says SubscriptionCreated already.
    if (ready[1]?.status === 'True' && ready[0]?.status === 'False') this.recorder.record(obj, 'Normal', 'Ready', ready[1].message);
    const trouble = degraded[1]?.status === 'True' ? degraded[1] : undefined;
    if (trouble && (degraded[0]?.status !== 'True' || degraded[0]?.reason !== trouble.reason))
      this.recorder.record(obj, 'Warning', trouble.reason, trouble.message);
    if (degraded[0]?.status === 'True' && degraded[1]?.status === 'False') this.recorder.record(obj, 'Normal', 'Recovered', degraded[1].message);
  }
}

const keyOf = (obj: WebhookSubscriptionResource): string => `${obj.metadata.namespace}/${obj.metadata.name}`;

function sameStatus(a: WebhookSubscriptionStatus, b: WebhookSubscriptionStatus): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined && v !== null)
        .sort(([x], [y]) => x.localeCompare(y))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}
