/** The Degraded condition of a Kubernetes-managed subscription as its failures near the disable threshold. */
import { describe, expect, it } from 'vitest';
import { deliveryConditions } from '../../src/operator/webhook-subscription.conditions.js';
import type { WebhookSubscriptionResource } from '../../src/operator/webhook-subscription.types.js';
import type { WebhookSubscription } from '../../src/webhooks/webhook.presenters.js';

const obj = {
  apiVersion: 'mapintel.io/v1alpha1',
  kind: 'WebhookSubscription',
  metadata: { name: 'alerts', namespace: 'team-a', generation: 3 },
  spec: { map: 'demo', url: 'https://hooks.example.com/a', events: ['*'] },
} as unknown as WebhookSubscriptionResource;

const sub = (over: Partial<WebhookSubscription>): WebhookSubscription => ({
  id: '00000000-0000-4000-8000-000000000001',
  mapId: '00000000-0000-4000-8000-000000000002',
  url: 'https://hooks.example.com/a',
  events: ['*'],
  active: true,
  lastDeliveryAt: null,
  lastError: 'receiver answered 503',
  lastErrorAt: '2026-11-28T10:00:00.000000Z',
  consecutiveFailures: 0,
  managedBy: 'kubernetes:team-a/alerts',
  insertedAt: '2026-11-28T09:00:00.000000Z',
  updatedAt: '2026-11-28T09:00:00.000000Z',
  activeSince: '2026-11-28T09:00:00.000Z',
  warnedLevel: 0,
  ...over,
});

describe('deliveryConditions near the disable threshold', () => {
  it('is DeliveryFailing below 50 % of the threshold, HalfwayToDisable from 50 %, DisablingSoon from 90 % (a reason of its own each, so a Warning Event)', () => {
    const degraded = (s: WebhookSubscription) => deliveryConditions(obj, s, true)[1];
    expect(degraded(sub({ consecutiveFailures: 4, warnedLevel: 0 }))).toMatchObject({ status: 'True', reason: 'DeliveryFailing' });
    const halfway = degraded(sub({ consecutiveFailures: 5, warnedLevel: 50 }));
    expect(halfway).toMatchObject({ type: 'Degraded', status: 'True', reason: 'HalfwayToDisable' });
    expect(halfway.message).toBe(
      'Delivery is failing and the subscription is halfway to being disabled (5 consecutive events given up; 50 % of the threshold reached; last error: receiver answered 503)',
    );
    const soon = degraded(sub({ consecutiveFailures: 9, warnedLevel: 90 }));
    expect(soon).toMatchObject({ type: 'Degraded', status: 'True', reason: 'DisablingSoon', observedGeneration: 3 });
    expect(soon.message).toBe(
      'Delivery is failing and the subscription is about to be disabled (9 consecutive events given up; 90 % of the threshold reached; last error: receiver answered 503)',
    );
    expect(degraded(sub({ active: false, consecutiveFailures: 10, warnedLevel: 90 })).reason).toBe('DisabledAfterFailures');
  });
});
