/**
 * What the operator's cluster tests share: a control plane with the CRD, the API over the machine's
 * PostgreSQL and Redis with a map (webhooks on or off) and its key, operators started as processes
 * (`mapintel serve --roles operator`), and kubectl helpers for WebhookSubscriptions and their Events.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { TestCluster } from './kube.js';
import { startCli, type CliProcess } from './cli-process.js';
import { startTestServer, TEST_ENCRYPTION_KEY, type TestServer } from './app.js';
import { importFixture, makeMap } from './factories.js';
import { freePort } from './redis-server.js';
import { apiRole } from '../../src/api/api.role.js';
import { TEST_DATABASE_URL } from './db.js';

export const CHART = path.resolve('charts/mapintel');

export interface Cr {
  metadata: {
    name: string;
    namespace: string;
    finalizers?: string[];
    generation: number;
    uid: string;
    resourceVersion: string;
    deletionTimestamp?: string;
    managedFields?: { manager: string; operation: string; subresource?: string; fieldsV1?: Record<string, unknown> }[];
  };
  spec: Record<string, unknown>;
  status?: {
    observedGeneration?: number;
    subscriptionId?: string;
    mapId?: string;
    mapKeyId?: string;
    secretName?: string;
    lastDeliveryAt?: string;
    consecutiveFailures?: number;
    lastError?: string;
    conditions?: { type: string; status: string; reason: string; message: string; observedGeneration?: number }[];
  };
}

export async function eventually<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const condition = (cr: Cr | undefined, type: string) => cr?.status?.conditions?.find((c) => c.type === type);

export interface KubeEvent {
  reason: string;
  type: string;
  count: number;
  message: string;
  source: { component: string };
}

export class OperatorHarness {
  readonly processes: CliProcess[] = [];
  api!: TestServer;
  mapId = '';
  mapSlug = '';
  mapKey = '';
  mapKeyId = '';
  ownerEveId = '';

  private constructor(readonly cluster: TestCluster) {}

  static async start(
    opts: { controllerManager?: boolean; webhooksOn?: boolean; apiEnv?: Record<string, string>; admissionPlugins?: string[] } = {},
  ): Promise<OperatorHarness> {
    const h = new OperatorHarness(await TestCluster.start({ controllerManager: opts.controllerManager ?? false, admissionPlugins: opts.admissionPlugins }));
    h.kubectl(['apply', '--server-side', '-f', path.join(CHART, 'crds')]);
    h.kubectl(['wait', '--for=condition=Established', '--timeout=30s', 'crd/webhooksubscriptions.mapintel.io']);
    h.api = await startTestServer({
      roles: [apiRole],
      redis: true,
      env: { SERVICE_WEBHOOKS_ENABLED: 'true', SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true', ...opts.apiEnv },
    });
    await importFixture(h.api.platform);
    const made = await makeMap(h.api.platform);
    h.mapId = made.map.id;
    h.mapSlug = made.map.slug;
    h.mapKey = made.key;
    h.ownerEveId = made.ownerEveId;
    h.mapKeyId = (await h.api.platform.admin.listKeys(made.map.id))[0]!.id;
    if (opts.webhooksOn ?? true) await h.toggle(made.map.id, made.key, true);
    return h;
  }

  async toggle(mapId: string, key: string, enabled: boolean): Promise<void> {
    const res = await this.api.fetch(`/api/maps/${mapId}/webhooks/toggle`, {
      method: 'PUT',
      token: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled }),
    });
    if (res.status !== 200) throw new Error(`toggle: ${res.status}`);
  }

  kubectl(args: string[], input?: string): string {
    return this.cluster.kubectl(args, input);
  }

  getCr(ns: string, name: string): Cr | undefined {
    try {
      return JSON.parse(this.kubectl(['get', 'webhooksubscriptions.mapintel.io', name, '-n', ns, '-o', 'json'])) as Cr;
    } catch (err) {
      if (/NotFound/.test((err as Error).message)) return undefined;
      throw err;
    }
  }

  apply(ns: string, name: string, spec: Record<string, unknown>): void {
    this.kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({ apiVersion: 'mapintel.io/v1alpha1', kind: 'WebhookSubscription', metadata: { name, namespace: ns }, spec }),
    );
  }

  /** Creates or replaces a Secret with one data key. */
  secret(ns: string, name: string, key: string, value: string): void {
    this.kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, stringData: { [key]: value } }));
  }

  exists(kind: string, ns: string, name: string): boolean {
    try {
      this.kubectl(['get', kind, name, '-n', ns]);
      return true;
    } catch (err) {
      if (/NotFound/.test((err as Error).message)) return false;
      throw err;
    }
  }

  waitReason(ns: string, name: string, reason: string, status?: string, timeoutMs?: number): Promise<Cr> {
    return eventually(
      `${ns}/${name} Ready ${reason}`,
      () => {
        const cr = this.getCr(ns, name);
        const c = condition(cr, 'Ready');
        return c?.reason === reason && (status === undefined || c.status === status) ? cr : undefined;
      },
      timeoutMs,
    );
  }

  events(ns: string, name: string): KubeEvent[] {
    return (
      JSON.parse(this.kubectl(['get', 'events', '-n', ns, '--field-selector', `involvedObject.name=${name}`, '-o', 'json'])) as { items: KubeEvent[] }
    ).items.filter((e) => e.source.component === 'mapintel-operator');
  }

  env(kubeconfig: string, extra: Record<string, string> = {}): Record<string, string> {
    return {
      KUBECONFIG: kubeconfig,
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: this.api.config.databaseSchema,
      DATABASE_POOL_MAX: '4',
      SERVICE_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true',
      PORT: '0',
      OPS_HOST: '127.0.0.1',
      OPERATOR_NAMESPACE: 'default',
      OPERATOR_LEASE_NAME: 'mapintel-operator-test',
      OPERATOR_LEASE_DURATION_SECONDS: '4',
      OPERATOR_STATUS_REFRESH_MS: '300',
      SERVICE_SHUTDOWN_TIMEOUT_MS: '3000',
      LOG_LEVEL: process.env.OPERATOR_LOG_LEVEL ?? 'info',
      ...extra,
    };
  }

  async startOperator(
    identity: string,
    kubeconfig = this.cluster.kubeconfigFile,
    extra: Record<string, string> = {},
  ): Promise<{ p: CliProcess; port: number }> {
    const port = await freePort();
    const p = startCli(['serve', '--roles', 'operator'], this.env(kubeconfig, { OPS_PORT: String(port), OPERATOR_IDENTITY: identity, ...extra }));
    this.processes.push(p);
    return { p, port };
  }

  async metrics(port: number): Promise<string> {
    return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  }

  async leads(port: number, lease = 'mapintel-operator-test'): Promise<boolean> {
    return new RegExp(`leader_election_master_status\\{name="${lease}"\\} 1`).test(await this.metrics(port));
  }

  async stop(): Promise<void> {
    for (const p of this.processes) await p.stop().catch(() => undefined);
    // DUMP_OPERATOR_LOGS=<folder>: every operator's output, to read after a failure.
    if (process.env.DUMP_OPERATOR_LOGS)
      this.processes.forEach((p, i) => writeFileSync(path.join(process.env.DUMP_OPERATOR_LOGS!, `operator-${i}.log`), p.output()));
    await this.api?.close();
    await this.cluster.stop();
  }
}

/** A counter's or gauge's value by its labels (0 when absent). */
export function metricValue(text: string, name: string, labels: Record<string, string>): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const m = /^[^{]+\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const got = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) total += Number(m[2]);
  }
  return total;
}
