/**
 * How many delivery workers the operator asks for: the larger of backlog ÷ per-worker backlog and
 * active subscriptions ÷ per-worker subscriptions, rounded up, within min and max.
 */
import { describe, expect, it } from 'vitest';
import { desiredWorkers } from '../../src/operator/worker-autoscaler.js';

const bounds = { minReplicas: 1, maxReplicas: 5, pendingPerReplica: 100, subscriptionsPerReplica: 50 };

describe('desiredWorkers', () => {
  it('asks for min when there is nothing to do', () => {
    expect(desiredWorkers({ pending: 0, active: 0 }, bounds)).toBe(1);
    expect(desiredWorkers({ pending: 0, active: 0 }, { ...bounds, minReplicas: 0 })).toBe(0);
  });

  it('rounds the backlog up per worker', () => {
    expect(desiredWorkers({ pending: 101, active: 0 }, bounds)).toBe(2);
    expect(desiredWorkers({ pending: 300, active: 0 }, bounds)).toBe(3);
  });

  it('takes the larger of backlog and subscriptions', () => {
    expect(desiredWorkers({ pending: 150, active: 180 }, bounds)).toBe(4);
  });

  it('never asks for more than max', () => {
    expect(desiredWorkers({ pending: 1_000_000, active: 0 }, bounds)).toBe(5);
  });
});
