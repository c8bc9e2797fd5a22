/**
 * The status of an applied WebhookSubscription: what the platform knows of its deliveries, said in
 * the `Ready` and `Degraded` conditions. `Ready=True` only while events can be delivered: a map whose
 * webhooks are switched off, or a subscription the workers disabled after repeated failures, is
 * `Ready=False`. Failing attempts (even before an event has used up its retries) are `Degraded=True`.
 * `Progressing` is True while a new generation, or a refusal that is checked again, is being worked
 * on, and False once settled (applied, or refused until the spec changes).
 *
 * The bookkeeping of a conditions list is in one place, as apimachinery's meta package has it:
 * findStatusCondition and setStatusCondition (lastTransitionTime kept unless the status flips).
 */
import type { WebhookSubscription } from '../webhooks/webhook.service.js';
import type { Condition, WebhookSubscriptionResource, WebhookSubscriptionStatus } from './webhook-subscription.types.js';

export const now3339 = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export function condition(obj: WebhookSubscriptionResource, type: Condition['type'], status: Condition['status'], reason: string, message: string): Condition {
  return { type, status, observedGeneration: obj.metadata.generation, lastTransitionTime: now3339(), reason, message };
}

/** The condition of this type, if any (apimachinery's meta.FindStatusCondition). */
export function findStatusCondition(conditions: readonly Condition[] | undefined, type: Condition['type']): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Sets `next` in `conditions` in place (apimachinery's meta.SetStatusCondition): appended when its type
 * is absent; otherwise reason, message and observedGeneration are replaced, and lastTransitionTime is
 * kept unless the status flips (then `next`'s). True when anything changed.
 */
export function setStatusCondition(conditions: Condition[], next: Condition): boolean {
  const existing = findStatusCondition(conditions, next.type);
  if (!existing) {
    conditions.push({ ...next, lastTransitionTime: next.lastTransitionTime || now3339() });
    return true;
  }
  let changed = false;
  if (existing.status !== next.status) {
    existing.status = next.status;
    existing.lastTransitionTime = next.lastTransitionTime || now3339();
    changed = true;
  }
  for (const field of ['reason', 'message', 'observedGeneration'] as const) {
    if (existing[field] !== next[field]) {
      Object.assign(existing, { [field]: next[field] });
      changed = true;
    }
  }
  return changed;
}

/** True when the condition of this type has status True (meta.IsStatusConditionTrue). */
export const isStatusConditionTrue = (conditions: readonly Condition[] | undefined, type: Condition['type']): boolean =>
  findStatusCondition(conditions, type)?.status === 'True';

/** How a map owner switches the map's webhooks on (docs/kubernetes.md, NOTES.txt say the same). */
export const switchOnHint = (mapId: string): string =>
  `the map owner switches them on with PUT /api/maps/${mapId}/webhooks/toggle {"enabled": true} (the owner's map key), or an admin with \`mapintel admin\``;

const ms = (t: string | null | undefined): number => (t ? Date.parse(t) : 0);

/** Delivery attempts failing now: an error after the last success and after the subscription was last switched on. */
export function attemptsFailing(sub: WebhookSubscription): boolean {
  return sub.consecutiveFailures > 0 || (!!sub.lastErrorAt && ms(sub.lastErrorAt) > Math.max(ms(sub.lastDeliveryAt), ms(sub.activeSince)));
}

/** Ready and Degraded of an applied subscription. */
export function deliveryConditions(obj: WebhookSubscriptionResource, sub: WebhookSubscription, mapWebhooksEnabled: boolean): [Condition, Condition] {
  const wanted = obj.spec.active ?? true;
  const applied = `Subscription ${sub.id} on map ${sub.mapId}`;
  if (!wanted) {
    return [
      condition(obj, 'Ready', 'True', 'Reconciled', `${applied} (inactive: spec.active is false)`),
      condition(obj, 'Degraded', 'False', 'Inactive', 'spec.active is false: nothing is delivered'),
    ];
  }
  if (!sub.active) {
    const message = `Deliveries were stopped after repeated failures: ${sub.lastError ?? 'unknown error'}; the workers probe the receiver for a day and resume when it answers, or edit the resource to resume`;
    return [condition(obj, 'Ready', 'False', 'DisabledAfterFailures', message), condition(obj, 'Degraded', 'True', 'DisabledAfterFailures', message)];
  }
  if (!mapWebhooksEnabled) {
    const message = `${applied}, but the map's webhooks are switched off: every event is passed over; ${switchOnHint(sub.mapId)}`;
    return [condition(obj, 'Ready', 'False', 'MapWebhooksDisabled', message), condition(obj, 'Degraded', 'True', 'MapWebhooksDisabled', message)];
  }
  const ready = condition(obj, 'Ready', 'True', 'Reconciled', applied);
  if (attemptsFailing(sub)) {
    const given = sub.consecutiveFailures > 0 ? `${sub.consecutiveFailures} consecutive events given up; ` : 'attempts are being retried; ';
    // At 50 % and at 90 % of the threshold the workers disable it at: a reason of its own each, so a
    // Warning Event says so (the workers' webhook_failing notices on the map's stream, the same levels).
    if (sub.warnedLevel >= 90) {
      const message = `Delivery is failing and the subscription is about to be disabled (${given}90 % of the threshold reached; last error: ${sub.lastError ?? 'unknown error'})`;
      return [ready, condition(obj, 'Degraded', 'True', 'DisablingSoon', message)];
    }
    if (sub.warnedLevel >= 50) {
      const message = `Delivery is failing and the subscription is halfway to being disabled (${given}50 % of the threshold reached; last error: ${sub.lastError ?? 'unknown error'})`;
      return [ready, condition(obj, 'Degraded', 'True', 'HalfwayToDisable', message)];
    }
    return [
      ready,
      condition(obj, 'Degraded', 'True', 'DeliveryFailing', `Delivery attempts are failing (${given}last error: ${sub.lastError ?? 'unknown error'})`),
    ];
  }
  return [
    ready,
    condition(
      obj,
      'Degraded',
      'False',
      'DeliveriesSucceeding',
      sub.lastDeliveryAt ? `Last delivery at ${rfc3339(sub.lastDeliveryAt)}` : 'No delivery yet, no failed attempt',
    ),
  ];
}

export function statusOf(
  obj: WebhookSubscriptionResource,
  sub: WebhookSubscription,
  secret: { name: string; version: string },
  mapKeyId: string,
  mapWebhooksEnabled: boolean,
): WebhookSubscriptionStatus {
  const status: WebhookSubscriptionStatus = {
    observedGeneration: obj.metadata.generation,
    subscriptionId: sub.id,
    mapId: sub.mapId,
    secretName: secret.name,
    secretVersion: secret.version,
    mapKeyId,
    consecutiveFailures: sub.consecutiveFailures,
    conditions: [
      ...deliveryConditions(obj, sub, mapWebhooksEnabled),
      condition(obj, 'Progressing', 'False', 'Reconciled', `Generation ${obj.metadata.generation ?? 0} applied`),
    ],
  };
  if (sub.lastDeliveryAt) status.lastDeliveryAt = rfc3339(sub.lastDeliveryAt);
  if (sub.lastErrorAt) status.lastErrorAt = rfc3339(sub.lastErrorAt);
  if (sub.lastError) status.lastError = sub.lastError.slice(0, 1024);
  return status;
}

export const rfc3339 = (t: string): string => (t.endsWith('Z') ? t : new Date(t).toISOString());
