/**
 * Metric names follow Prometheus's conventions: one `mapintel_` prefix, `_total` on counters and only on
 * counters. Read from /metrics of a process running the api, stream and worker roles with every feature
 * on, so each role's metrics are registered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import { startTestServer, type TestServer } from '../support/app.js';
import { apiRole } from '../../src/api/api.role.js';
import { streamRole } from '../../src/stream/stream.role.js';
import { workerRole } from '../../src/worker/worker.role.js';
import { operatorMetrics } from '../../src/operator/operator.metrics.js';

/** `name → type` from the `# TYPE` lines of a Prometheus text exposition. */
function typesOf(text: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(m[1]!, m[2]!);
  return types;
}

/** The names that break the conventions, each with why. */
function misnamed(types: Map<string, string>, prefixExempt: (name: string) => boolean = () => false): string[] {
  const wrong: string[] = [];
  for (const [name, type] of types) {
    if (name.includes('process_process')) wrong.push(`${name}: doubled prefix`);
    if (!name.startsWith('mapintel_') && !prefixExempt(name)) wrong.push(`${name}: not prefixed mapintel_`);
    if (type === 'counter' && !name.endsWith('_total')) wrong.push(`${name}: a counter without _total`);
    if ((type === 'gauge' || type === 'histogram') && name.endsWith('_total')) wrong.push(`${name}: a ${type} ending in _total`);
  }
  return wrong;
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({
    roles: [apiRole, streamRole, workerRole],
    // The public port serves /metrics too only when asked (it is the ops port's by default).
    env: { SERVICE_SSE_ENABLED: 'true', SERVICE_WEBHOOKS_ENABLED: 'true', SERVICE_METRICS_PUBLIC: 'true' },
  });
});
afterAll(async () => {
  await t?.close();
});

describe('GET /metrics', () => {
  it('names every metric mapintel_…, counters with _total, gauges and histograms without it, process metrics with one prefix', async () => {
    for (const url of [`${t.opsUrl}/metrics`, `${t.url}/metrics`]) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      const types = typesOf(await res.text());
      // The roles' own metrics and prom-client's process and Node.js metrics are all there.
      for (const name of [
        'mapintel_http_requests_total',
        'mapintel_stream_clients',
        'mapintel_webhook_deliveries_total',
        'mapintel_process_cpu_seconds_total',
        'mapintel_process_resident_memory_bytes',
        'mapintel_nodejs_heap_size_total_bytes',
        'mapintel_nodejs_eventloop_lag_p99_seconds',
      ]) {
        expect(types.has(name), name).toBe(true);
      }
      expect(types.get('mapintel_process_cpu_seconds_total')).toBe('counter');
      expect(misnamed(types)).toEqual([]);
    }
  });

  it('names the operator metrics the same way, apart from the controller-runtime and client-go names dashboards expect', async () => {
    const registry = new Registry();
    operatorMetrics(registry);
    const types = typesOf(await registry.metrics());
    expect(types.size).toBeGreaterThan(0);
    expect(misnamed(types, (name) => /^(controller_runtime|workqueue|leader_election|rest_client)_/.test(name))).toEqual([]);
  });

  it('has every metric the Grafana dashboard of the chart queries', async () => {
    const registry = new Registry();
    operatorMetrics(registry);
    const exposed = new Set([...typesOf(await (await fetch(`${t.opsUrl}/metrics`)).text()).keys(), ...typesOf(await registry.metrics()).keys()]);
    const dashboard = readFileSync('charts/mapintel/files/dashboard.json', 'utf8');
    const queried = new Set(
      [...dashboard.matchAll(/\b(?:mapintel|controller_runtime|workqueue|leader_election|rest_client)_[a-z0-9_]+/g)].map((m) =>
        m[0].replace(/_(bucket|sum|count)$/, ''),
      ),
    );
    expect(queried.size).toBeGreaterThan(10);
    expect([...queried].filter((name) => !exposed.has(name))).toEqual([]);
  });
});
