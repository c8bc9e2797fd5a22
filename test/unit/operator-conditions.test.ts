/**
 * The condition bookkeeping of WebhookSubscription status, as apimachinery's meta package does it:
 * a condition's lastTransitionTime moves only when its status flips.
 */
import { describe, expect, it } from 'vitest';
import { findStatusCondition, isStatusConditionTrue, setStatusCondition } from '../../src/operator/webhook-subscription.conditions.js';
import type { Condition } from '../../src/operator/webhook-subscription.types.js';

const c = (type: Condition['type'], status: Condition['status'], reason: string, at: string, observedGeneration = 1): Condition => ({
  type,
  status,
  reason,
  message: `${reason} message`,
  lastTransitionTime: at,
  observedGeneration,
});

describe('setStatusCondition / findStatusCondition', () => {
  it('appends a condition of a new type and says it changed', () => {
    const list: Condition[] = [c('Ready', 'True', 'Reconciled', '2026-01-01T00:00:00Z')];
    expect(setStatusCondition(list, c('Progressing', 'False', 'Reconciled', '2026-01-02T00:00:00Z'))).toBe(true);
    expect(list.map((x) => x.type)).toEqual(['Ready', 'Progressing']);
    expect(findStatusCondition(list, 'Progressing')?.lastTransitionTime).toBe('2026-01-02T00:00:00Z');
  });

  it('keeps lastTransitionTime when only reason, message or observedGeneration change', () => {
    const list: Condition[] = [c('Degraded', 'True', 'DeliveryFailing', '2026-01-01T00:00:00Z')];
    expect(setStatusCondition(list, c('Degraded', 'True', 'MapWebhooksDisabled', '2026-03-01T00:00:00Z', 2))).toBe(true);
    expect(list[0]).toEqual({ ...c('Degraded', 'True', 'MapWebhooksDisabled', '2026-01-01T00:00:00Z', 2) });
  });

  it('moves lastTransitionTime when the status flips', () => {
    const list: Condition[] = [c('Ready', 'False', 'MapNotFound', '2026-01-01T00:00:00Z')];
    setStatusCondition(list, c('Ready', 'True', 'Reconciled', '2026-03-01T00:00:00Z'));
    expect(list[0]!.lastTransitionTime).toBe('2026-03-01T00:00:00Z');
    expect(isStatusConditionTrue(list, 'Ready')).toBe(true);
  });

  it('says nothing changed when the condition is the same but for its time', () => {
    const list: Condition[] = [c('Ready', 'True', 'Reconciled', '2026-01-01T00:00:00Z')];
    expect(setStatusCondition(list, c('Ready', 'True', 'Reconciled', '2026-05-01T00:00:00Z'))).toBe(false);
    expect(list[0]!.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    expect(findStatusCondition(list, 'Degraded')).toBeUndefined();
    expect(isStatusConditionTrue(list, 'Degraded')).toBe(false);
  });
});
