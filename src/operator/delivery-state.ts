/**
 * The leader's poll of delivery state: the platform's view of each Kubernetes-managed subscription
 * (last delivery, failures, last error, disabled, the map's webhooks switched off, the map key
 * revoked) compared with its resource's status. A resource whose status would change is queued (the
 * reconcile writes it); a subscription whose resource is gone is removed. It serves the controller's
 * timer, not the reconcile: it only decides what to queue.
 */
import type { Logger } from '../common/log.js';
import type { InformerSet } from './informer.js';
import type { WorkQueue } from './work-queue.js';
import type { ManagedSubscriptions } from './webhook-subscription.reconciler.js';
import type { MapFacts } from './map-facts.js';
import { deliveryConditions } from './webhook-subscription.conditions.js';
import type { WebhookSubscriptionResource } from './webhook-subscription.types.js';

export interface DeliveryStateDeps {
  subscriptions: ManagedSubscriptions;
  facts: MapFacts;
  resources: InformerSet<WebhookSubscriptionResource>;
  queue: WorkQueue;
  log: Logger;
  /** Whether this operator watches the namespace (a subscription of another namespace is another operator's). */
  watches(namespace: string): boolean;
}

/**
 * Queues the resources whose delivery state (last delivery, failures, last error, disabled, the map's
 * webhooks switched off) differs from their status, or whose map key was revoked, and removes
 * subscriptions whose resource no longer exists.
 */
export async function refreshDeliveryState(deps: DeliveryStateDeps): Promise<void> {
  let subs;
  let enabled: Map<string, boolean>;
  let liveKeys: Set<string>;
  try {
    subs = await deps.subscriptions.listManaged('kubernetes:');
    enabled = await deps.facts.webhooksEnabled(subs.map((s) => s.mapId));
    const keyIds = deps.resources.list().flatMap((o) => (o.status?.mapKeyId ? [o.status.mapKeyId] : []));
    liveKeys = await deps.facts.liveMapKeyIds(keyIds);
  } catch (err) {
    deps.log.warn({ err: { message: (err as Error).message } }, 'could not read delivery state');
    return;
  }
  for (const sub of subs) {
    const key = sub.managedBy!.slice('kubernetes:'.length);
    const obj = deps.resources.get(key);
    if (!obj) {
      // Outside the watched namespaces: another operator's.
      if (!deps.watches(key.split('/')[0]!)) continue;
      // The resource went while no operator held its finalizer (or it was forced away).
      await deps.subscriptions.removeManaged(sub.managedBy!).catch(() => undefined);
      deps.log.info({ managedBy: sub.managedBy }, 'removed a subscription whose resource is gone');
      continue;
    }
    const s = obj.status ?? {};
    const ready = s.conditions?.find((c) => c.type === 'Ready');
    const degraded = s.conditions?.find((c) => c.type === 'Degraded');
    // Refused resources are rechecked by their own requeue.
    if (ready?.status === 'False' && ready.reason !== 'DisabledAfterFailures' && ready.reason !== 'MapWebhooksDisabled') continue;
    const [wantReady, wantDegraded] = deliveryConditions(obj, sub, enabled.get(sub.mapId) ?? false);
    if (
      s.subscriptionId !== sub.id ||
      (s.mapKeyId !== undefined && !liveKeys.has(s.mapKeyId)) ||
      (s.consecutiveFailures ?? 0) !== sub.consecutiveFailures ||
      !sameTime(s.lastDeliveryAt, sub.lastDeliveryAt) ||
      !sameTime(s.lastErrorAt, sub.lastErrorAt) ||
      ready?.reason !== wantReady.reason ||
      degraded?.reason !== wantDegraded.reason
    ) {
      deps.queue.add(key);
    }
  }
}

function sameTime(a: string | undefined, b: string | null): boolean {
  if (!a && !b) return true;
  if (!a || !b) return false;
  return Date.parse(a) === Date.parse(b) || a === b;
}
