/**
 * The Helm chart and the k8s/ manifests against a real kube-apiserver: lint, templates with default
 * and full values, a server-side dry-run of every rendered object, the values schema, helm install,
 * and the rendered manifests staying in step with the chart.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kubeUnavailable, TestCluster } from '../support/kube.js';

const CHART = path.resolve('charts/mapintel');
const FULL = path.join(CHART, 'ci/full-values.yaml');
/** The size of docs/scaling.md's worked example. */
const LARGE = path.join(CHART, 'values-large.yaml');
// `helm template` knows no cluster: the full render names the optional APIs it uses as served.
const FULL_ARGS = ['-f', FULL, '--api-versions', 'monitoring.coreos.com/v1', '--api-versions', 'custom.metrics.k8s.io/v1beta1'];
const unavailable = kubeUnavailable();

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  [k: string]: unknown;
}

const parse = (text: string): Obj[] =>
  parseAllDocuments(text)
    .map((d) => d.toJSON() as Obj | null)
    .filter((o): o is Obj => o !== null);

// Only a ServiceMonitor's and a PrometheusRule's group and kind matter to the dry-run; the Prometheus
// Operator is not installed here.
const standIn = (kind: string, plural: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${plural}.monitoring.coreos.com }
spec:
  group: monitoring.coreos.com
  names: { kind: ${kind}, plural: ${plural}, listKind: ${kind}List, singular: ${kind.toLowerCase()} }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`;
const SERVICE_MONITOR_CRD = `${standIn('ServiceMonitor', 'servicemonitors')}---\n${standIn('PrometheusRule', 'prometheusrules')}`;

describe.skipIf(unavailable)('Helm chart charts/mapintel', () => {
  let cluster: TestCluster;
  let defaults: Obj[];
  let full: Obj[];

  beforeAll(async () => {
    cluster = await TestCluster.start();
    cluster.kubectl(['apply', '--server-side', '-f', path.join(CHART, 'crds')]);
    cluster.kubectl(['apply', '--server-side', '-f', '-'], SERVICE_MONITOR_CRD);
    cluster.kubectl([
      'wait',
      '--for=condition=Established',
      '--timeout=30s',
      'crd/webhooksubscriptions.mapintel.io',
      'crd/servicemonitors.monitoring.coreos.com',
      'crd/prometheusrules.monitoring.coreos.com',
    ]);
    // The release's objects; the `helm test` hook's are checked in chart-conventions.test.ts.
    defaults = parse(cluster.helm(['template', 'rel', CHART, '--namespace', 'chart-defaults', '--skip-tests']));
    full = parse(cluster.helm(['template', 'rel', CHART, '--namespace', 'chart-full', ...FULL_ARGS]));
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('passes helm lint --strict with default and with full values', () => {
    expect(cluster.helm(['lint', '--strict', CHART])).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    expect(cluster.helm(['lint', '--strict', CHART, '-f', FULL])).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('renders a Deployment per role, each hardened, probed on the ops port and running its role', () => {
    const deployments = defaults.filter((o) => o.kind === 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(['rel-mapintel-api', 'rel-mapintel-operator', 'rel-mapintel-stream', 'rel-mapintel-worker']);
    for (const d of deployments) {
      const role = d.metadata.name.replace('rel-mapintel-', '');
      const pod = (d.spec as { template: { spec: Record<string, any> } }).template.spec;
      const c = pod.containers[0];
      expect(c.args).toEqual(['serve', '--roles', role]);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(c.securityContext).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'ops' });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'ops' });
      expect(c.ports.find((p: { name: string }) => p.name === 'ops').containerPort).toBe(8081);
      expect(c.resources.requests.memory).toMatch(/Mi$/);
      expect(pod.automountServiceAccountToken).toBe(role === 'operator');
      const env = Object.fromEntries(c.env.map((e: { name: string; value?: string; valueFrom?: unknown }) => [e.name, e.value ?? e.valueFrom]));
      expect(env.DATABASE_URL).toEqual({ secretKeyRef: { name: 'rel-mapintel-env', key: 'DATABASE_URL' } });
      expect(env.REDIS_URL).toEqual({ secretKeyRef: { name: 'rel-mapintel-env', key: 'REDIS_URL' } });
      if (role === 'operator') expect(env.OPERATOR_LEASE_NAME).toBe('rel-mapintel-operator');
    }
  });

  it('grants the operator no wildcard and only what it uses, one ServiceAccount per role', () => {
    const roles = defaults.filter((o) => (o.kind === 'ClusterRole' || o.kind === 'Role') && o.metadata.name.includes('-operator'));
    expect(roles).toHaveLength(2);
    const rules = roles.flatMap((r) => r.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]);
    for (const r of rules) for (const v of [...r.apiGroups, ...r.resources, ...r.verbs]) expect(v).not.toContain('*');
    const resources = rules.flatMap((r) => r.resources).sort();
    expect(resources).toEqual(['events', 'leases', 'secrets', 'webhooksubscriptions', 'webhooksubscriptions/finalizers', 'webhooksubscriptions/status']);
    const accounts = defaults.filter((o) => o.kind === 'ServiceAccount').map((o) => o.metadata.name);
    expect(accounts.sort()).toEqual(['rel-mapintel-api', 'rel-mapintel-operator', 'rel-mapintel-stream', 'rel-mapintel-worker']);
    for (const d of defaults.filter((o) => o.kind === 'Deployment')) {
      expect((d.spec as any).template.spec.serviceAccountName).toBe(d.metadata.name);
    }
    const bound = defaults
      .filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding')
      .flatMap((b) => (b.subjects as { name: string }[]).map((s) => s.name));
    expect(new Set(bound)).toEqual(new Set(['rel-mapintel-operator']));
    // WebhookSubscriptions aggregated into edit/admin and view (a resource must hold a map key to subscribe).
    const aggregated = defaults.filter((o) => o.kind === 'ClusterRole' && o.metadata.labels?.['rbac.authorization.k8s.io/aggregate-to-edit'] === 'true');
    expect(aggregated.flatMap((r) => (r.rules as { resources: string[] }[]).flatMap((x) => x.resources))).toEqual(['webhooksubscriptions']);
  });

  it('namespaced mode: a Role per watched namespace instead of the ClusterRole, and the operator told which', () => {
    const objs = parse(cluster.helm(['template', 'rel', CHART, '--namespace', 'ops', '--set', 'operator.watchNamespaces={team-a,team-b}']));
    expect(objs.filter((o) => o.kind === 'ClusterRoleBinding')).toEqual([]);
    expect(objs.filter((o) => o.kind === 'ClusterRole' && o.metadata.name === 'rel-mapintel-operator')).toEqual([]);
    const roles = objs.filter((o) => o.kind === 'Role' && o.metadata.name === 'rel-mapintel-operator');
    expect(roles.map((r) => r.metadata.namespace).sort()).toEqual(['team-a', 'team-b']);
    const op = objs.find((o) => o.kind === 'Deployment' && o.metadata.name === 'rel-mapintel-operator')!;
    const env = (op.spec as any).template.spec.containers[0].env as { name: string; value?: string }[];
    expect(env.find((e) => e.name === 'OPERATOR_WATCH_NAMESPACES')?.value).toBe('team-a,team-b');
  });

  it('runs migrations as a pre-install/pre-upgrade hook Job', () => {
    const job = defaults.find((o) => o.kind === 'Job' && o.metadata.name === 'rel-mapintel-migrate')!;
    expect(job.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    // helm uninstall: a pre-delete hook releases the finalizers, with the operator's ServiceAccount.
    const release = defaults.find((o) => o.kind === 'Job' && o.metadata.name === 'rel-mapintel-release-finalizers')!;
    expect(release.metadata.annotations?.['helm.sh/hook']).toBe('pre-delete');
    expect((release.spec as any).template.spec.serviceAccountName).toBe('rel-mapintel-operator');
    expect((release.spec as any).template.spec.containers[0].args).toEqual(['release-finalizers']);
    expect((job.spec as any).template.spec.containers[0].args).toEqual(['migrate']);
    // Deleted 15 minutes after it ends, so plain manifests applied later with a new image create it again.
    expect((job.spec as any).ttlSecondsAfterFinished).toBe(900);
  });

  it('with full values: HPAs for api, stream and worker, SSE settings on the stream Ingress, a ServiceMonitor, the chart-made Secret and existing ones', () => {
    expect(
      full
        .filter((o) => o.kind === 'HorizontalPodAutoscaler')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['mi-api', 'mi-stream', 'mi-worker']);
    const stream = full.find((o) => o.kind === 'Ingress' && o.metadata.name === 'mi-stream')!;
    expect(stream.metadata.annotations).toMatchObject({
      'nginx.ingress.kubernetes.io/proxy-buffering': 'off',
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '7200',
      'cert-manager.io/cluster-issuer': 'letsencrypt',
    });
    expect((stream.spec as any).rules[0].http.paths[0].path).toBe('/api/maps/[^/]+/events/stream');
    expect(full.find((o) => o.kind === 'ServiceMonitor')!.metadata.labels).toMatchObject({ release: 'prometheus' });
    const secret = full.find((o) => o.kind === 'Secret')!;
    expect(Object.keys(secret.stringData as object).sort()).toEqual(['DATABASE_URL', 'SERVICE_ADMIN_TOKEN', 'SERVICE_ENCRYPTION_KEY']);
    const api = full.find((o) => o.kind === 'Deployment' && o.metadata.name === 'mi-api')!;
    const env = (api.spec as any).template.spec.containers[0].env as { name: string; valueFrom?: any; value?: string }[];
    expect(env.find((e) => e.name === 'REDIS_URL')!.valueFrom).toEqual({ secretKeyRef: { name: 'redis-credentials', key: 'url' } });
    expect(env.find((e) => e.name === 'STREAM_MAX_PER_MAP')!.value).toBe('100');
    expect((api.spec as any).replicas).toBeUndefined();
  });

  it('ships a Grafana dashboard with panels for the metrics of every role', () => {
    const cm = defaults.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'rel-mapintel-dashboard')!;
    expect(cm.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    const dashboard = JSON.parse((cm.data as Record<string, string>)['mapintel.json']!) as {
      panels: { title: string; type: string; targets?: { expr: string }[] }[];
    };
    const exprs = dashboard.panels
      .flatMap((p) => p.targets ?? [])
      .map((t) => t.expr)
      .join('\n');
    for (const metric of [
      'mapintel_http_requests_total',
      'mapintel_stream_clients',
      'mapintel_webhook_deliveries_total',
      'mapintel_webhook_worker_in_flight',
      'mapintel_webhook_worker_queued',
      'controller_runtime_reconcile_total',
      'workqueue_depth',
      'leader_election_master_status',
    ]) {
      expect(exprs).toContain(metric);
    }
    expect(dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title)).toEqual([
      'API',
      'Events',
      'Stream',
      'Webhook workers',
      'Operator',
      'Processes',
    ]);
  });

  it('rejects a misspelled key through values.schema.json', () => {
    expect(() => cluster.helm(['template', 'rel', CHART, '--set', 'api.replcias=3'])).toThrow(/additional properties 'replcias' not allowed/);
    expect(() => cluster.helm(['template', 'rel', CHART, '--set', 'ingres.enabled=true'])).toThrow(/additional properties 'ingres' not allowed/);
  });

  it('refuses half the connection settings with a readable message', () => {
    expect(() => cluster.helm(['template', 'rel', CHART, '--set', 'database.url=postgres://db/x'])).toThrow(/redis.url or redis.existingSecret is required/);
  });

  it('requires the trusted proxies with the Ingress, and renders them into every mapintel container', () => {
    expect(() => cluster.helm(['template', 'rel', CHART, '--set', 'ingress.enabled=true'])).toThrow(/ingress.trustedProxies is required with ingress.enabled/);
    expect(() => cluster.helm(['template', 'rel', CHART, '--set', 'ingress.enabled=true', '--set', 'ingress.trustedProxies={not a cidr}'])).toThrow(
      /does not match pattern/,
    );
    const envOf = (objs: Obj[]) =>
      objs
        .filter((o) => o.kind === 'Deployment')
        .map(
          (o) =>
            [
              o.metadata.name,
              ((o.spec as any).template.spec.containers[0].env as { name: string; value?: string }[]).filter((e) => e.name === 'SERVICE_TRUSTED_PROXIES'),
            ] as const,
        );
    for (const [name, env] of envOf(full)) expect(env, name).toEqual([{ name: 'SERVICE_TRUSTED_PROXIES', value: '10.244.0.0/16,10.96.0.0/12' }]);
    // Set through env instead: that value, once.
    const viaEnv = parse(cluster.helm(['template', 'rel', CHART, '--set', 'ingress.enabled=true', '--set', 'env.SERVICE_TRUSTED_PROXIES=10.0.0.0/8']));
    for (const [name, env] of envOf(viaEnv)) expect(env, name).toEqual([{ name: 'SERVICE_TRUSTED_PROXIES', value: '10.0.0.0/8' }]);
    // Without the Ingress nothing is set (a LoadBalancer Service hands the pods the clients' own addresses).
    for (const [name, env] of envOf(defaults)) expect(env, name).toEqual([]);
  });

  it('every rendered object passes a server-side dry-run, with default and with full values', () => {
    for (const [ns, values] of [
      ['chart-defaults', []],
      ['chart-full', FULL_ARGS],
    ] as const) {
      cluster.kubectl(['create', 'namespace', ns]);
      const rendered = cluster.helm(['template', 'rel', CHART, '--namespace', ns, ...values]);
      const out = cluster.kubectl(['apply', '--dry-run=server', '-n', ns, '-f', '-'], rendered);
      const count = parse(rendered).length;
      expect(out.trim().split('\n')).toHaveLength(count);
      expect(out).toMatch(/deployment.apps\/\S+-operator created \(server dry run\)/);
    }
  });

  it('values-large.yaml (docs/scaling.md): lints, renders the sizing (Redis Cluster, partitions, HPA bounds) on every role, and passes a server-side dry-run', () => {
    expect(cluster.helm(['lint', '--strict', CHART, '-f', LARGE])).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    const ns = 'chart-large';
    const rendered = cluster.helm(['template', 'rel', CHART, '--namespace', ns, '-f', LARGE, '--api-versions', 'custom.metrics.k8s.io/v1beta1']);
    const objects = parse(rendered);
    const hpas = new Map(
      objects.filter((o) => o.kind === 'HorizontalPodAutoscaler').map((o) => [o.metadata.name, o.spec as { minReplicas: number; maxReplicas: number }]),
    );
    expect([hpas.get('rel-mapintel-stream')?.minReplicas, hpas.get('rel-mapintel-stream')?.maxReplicas]).toEqual([21, 40]);
    expect([hpas.get('rel-mapintel-worker')?.minReplicas, hpas.get('rel-mapintel-worker')?.maxReplicas]).toEqual([17, 24]);
    expect([hpas.get('rel-mapintel-api')?.minReplicas, hpas.get('rel-mapintel-api')?.maxReplicas]).toEqual([6, 16]);
    type Container = { name: string; env?: { name: string; value?: string }[] };
    for (const d of objects.filter((o) => o.kind === 'Deployment')) {
      const containers = (d.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers;
      const env = new Map((containers[0]!.env ?? []).map((e) => [e.name, e.value]));
      expect([env.get('REDIS_CLUSTER'), env.get('EVENTS_PARTITIONS'), env.get('EVENTS_RELAY_PARTITIONS')], d.metadata.name).toEqual(['true', '64', '12']);
    }
    cluster.kubectl(['create', 'namespace', ns]);
    const out = cluster.kubectl(['apply', '--dry-run=server', '-n', ns, '-f', '-'], rendered);
    expect(out.trim().split('\n')).toHaveLength(objects.length);
  });

  it('installs with helm into a fresh namespace', () => {
    cluster.kubectl(['create', 'namespace', 'helm-install']);
    // Without URLs in the values the Secret the pods read comes first (an install without it is refused).
    cluster.kubectl(['-n', 'helm-install', 'create', 'secret', 'generic', 'mi-mapintel-env', '--from-literal=DATABASE_URL=postgres://db/x']);
    // Hooks (the migrations Job) need a running Pod: no kubelet here.
    const out = cluster.helm(['install', 'mi', CHART, '--namespace', 'helm-install', '--no-hooks', '--wait=false']);
    expect(out).toMatch(/STATUS: deployed/);
    expect(out).toMatch(/create secret generic mi-mapintel-env/);
    const names = cluster
      .kubectl(['get', 'deployments,services,pdb,serviceaccounts,roles,rolebindings,configmaps', '-n', 'helm-install', '-o', 'name'])
      .split('\n');
    for (const n of [
      'deployment.apps/mi-mapintel-api',
      'deployment.apps/mi-mapintel-operator',
      'service/mi-mapintel-stream',
      'role.rbac.authorization.k8s.io/mi-mapintel-operator-leader-election',
      'configmap/mi-mapintel-dashboard',
    ]) {
      expect(names).toContain(n);
    }
    expect(cluster.kubectl(['get', 'clusterrole', 'mi-mapintel-operator', '-o', 'name']).trim()).toBe(
      'clusterrole.rbac.authorization.k8s.io/mi-mapintel-operator',
    );
    expect(JSON.parse(cluster.helm(['list', '-n', 'helm-install', '-o', 'json']))[0]).toMatchObject({
      name: 'mi',
      status: 'deployed',
      chart: 'mapintel-0.1.0',
    });
  });
});

describe.skipIf(unavailable)('k8s/ manifests', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await TestCluster.start();
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('k8s/base/mapintel.yaml is what the chart renders (run `make k8s` after changing the chart)', () => {
    const rendered = execFileSync(process.execPath, ['scripts/render-k8s.mjs', '--stdout'], { encoding: 'utf8' });
    expect(readFileSync('k8s/base/mapintel.yaml', 'utf8')).toBe(rendered);
    // No uninstall hook in plain manifests: it would run (and release every finalizer) at each apply.
    expect(rendered).not.toContain('release-finalizers');
  });

  it('the dev overlay has single-replica PostgreSQL and Redis and passes a server-side dry-run', () => {
    const objects = parse(cluster.kubectl(['kustomize', 'k8s/dev']));
    const pg = objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'postgresql')!;
    const redis = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'redis')!;
    expect((pg.spec as any).replicas).toBe(1);
    expect((redis.spec as any).replicas).toBe(1);
    expect(objects.find((o) => o.kind === 'CustomResourceDefinition')!.metadata.name).toBe('webhooksubscriptions.mapintel.io');
    cluster.kubectl(['apply', '--server-side', '-f', 'k8s/base/namespace.yaml']);
    cluster.kubectl(['apply', '--server-side', '-f', 'charts/mapintel/crds']);
    const out = cluster.kubectl(['apply', '--dry-run=server', '-k', 'k8s/dev']);
    expect(out.trim().split('\n')).toHaveLength(objects.length);
    expect(out).toMatch(/statefulset.apps\/postgresql (created|configured) \(server dry run\)/);
  });
});
