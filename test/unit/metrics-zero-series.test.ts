/**
 * Labelled counters that a Grafana panel or an alert reads exist at 0 from the start: found on a real
 * node (make test-e2e), where the dashboard's "server closes by reason" and "reconcile errors" panels
 * had no data until the first close or error.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { operatorMetrics } from '../../src/operator/operator.metrics.js';
import { streamMetrics } from '../../src/stream/stream.metrics.js';

describe('zero series of labelled counters', () => {
  it('the stream role: closes by every reason and admissions by every result', async () => {
    const registry = new Registry();
    streamMetrics(registry, () => ({ held: 0, inRedis: 0 }) as never);
    const text = await registry.metrics();
    for (const reason of ['slow_consumer', 'resync_failed', 'shutdown', 'revoked']) {
      expect(text).toContain(`mapintel_stream_server_closes_total{reason="${reason}"} 0`);
    }
    for (const result of ['admitted', 'map_stream_limit', 'key_stream_limit', 'server_stream_limit', 'caps_recovering']) {
      expect(text).toContain(`mapintel_stream_admissions_total{result="${result}"} 0`);
    }
  });

  it('the operator: reconcile errors and reconciles by result for its controller', async () => {
    const registry = new Registry();
    operatorMetrics(registry);
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="webhooksubscription"} 0');
    for (const result of ['success', 'error', 'requeue_after']) {
      expect(text).toContain(`controller_runtime_reconcile_total{controller="webhooksubscription",result="${result}"} 0`);
    }
  });
});
