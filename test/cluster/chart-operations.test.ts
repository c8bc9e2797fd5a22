/**
 * The chart's scaling, disruption and safety settings against a real kube-apiserver: HPA behaviour and
 * the stream's open-connections metric, the preStop sleep, PDBs only where they cannot block a drain,
 * the ServiceMonitor guarded by the API it needs, the NetworkPolicy, and values refused at render time
 * (encryption key format, env keys that duplicate the chart's own settings). docs/kubernetes.md,
 * "Scaling and disruption" and "Network policy".
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kubeUnavailable, TestCluster } from '../support/kube.js';

const CHART = path.resolve('charts/mapintel');
const unavailable = kubeUnavailable();
const KEY = 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=';

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: any;
}

const parse = (text: string): Obj[] =>
  parseAllDocuments(text)
    .map((d) => d.toJSON() as Obj | null)
    .filter((o): o is Obj => o !== null);

const SERVICE_MONITOR_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: servicemonitors.monitoring.coreos.com }
spec:
  group: monitoring.coreos.com
  names: { kind: ServiceMonitor, plural: servicemonitors, listKind: ServiceMonitorList, singular: servicemonitor }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`;

// Not the custom metrics API (no aggregated server runs here), only its group and version in discovery.
const CUSTOM_METRICS_STAND_IN = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: standins.custom.metrics.k8s.io
  annotations: { api-approved.kubernetes.io: "unapproved, test stand-in" }
spec:
  group: custom.metrics.k8s.io
  names: { kind: StandIn, plural: standins, listKind: StandInList, singular: standin }
  scope: Namespaced
  versions:
    - name: v1beta1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`;

describe.skipIf(unavailable)('Helm chart: scaling, disruption, network policy, refused values', () => {
  let cluster: TestCluster;
  let namespaces = 0;

  const template = (...args: string[]): Obj[] => parse(cluster.helm(['template', 'rel', CHART, ...args]));
  const podOf = (objs: Obj[], role: string) => objs.find((o) => o.kind === 'Deployment' && o.metadata.name === `rel-mapintel-${role}`)!.spec.template.spec;
  /** Every object of a render through the apiserver's validation (server-side dry-run) in a fresh namespace. */
  /** The `<release>-mapintel-env` Secret an install without URLs in the values needs beforehand. */
  const envSecret = (ns: string, release: string): void => {
    cluster.kubectl(['-n', ns, 'create', 'secret', 'generic', `${release}-mapintel-env`, '--from-literal=DATABASE_URL=postgres://db/x']);
  };
  const dryRun = (...args: string[]): void => {
    const ns = `ops-${++namespaces}`;
    cluster.kubectl(['create', 'namespace', ns]);
    const rendered = cluster.helm(['template', 'rel', CHART, '--namespace', ns, ...args]);
    const out = cluster.kubectl(['apply', '--dry-run=server', '-n', ns, '-f', '-'], rendered);
    expect(out.trim().split('\n')).toHaveLength(parse(rendered).length);
  };

  beforeAll(async () => {
    cluster = await TestCluster.start();
    cluster.kubectl(['apply', '--server-side', '-f', path.join(CHART, 'crds')]);
    cluster.kubectl(['wait', '--for=condition=Established', '--timeout=30s', 'crd/webhooksubscriptions.mapintel.io']);
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it('gives every HPA a scale-down stabilisation, the stream a slower one, configurable through values', () => {
    const on = ['--set', 'api.autoscaling.enabled=true', '--set', 'stream.autoscaling.enabled=true', '--set', 'worker.autoscaling.enabled=true'];
    const hpas = Object.fromEntries(
      template(...on)
        .filter((o) => o.kind === 'HorizontalPodAutoscaler')
        .map((o) => [o.metadata.name, o.spec]),
    );
    expect(Object.keys(hpas).sort()).toEqual(['rel-mapintel-api', 'rel-mapintel-stream', 'rel-mapintel-worker']);
    for (const role of ['api', 'worker']) {
      expect(hpas[`rel-mapintel-${role}`].behavior).toEqual({
        scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }] },
      });
    }
    expect(hpas['rel-mapintel-stream'].behavior).toEqual({
      scaleDown: { stabilizationWindowSeconds: 600, policies: [{ type: 'Pods', value: 1, periodSeconds: 120 }] },
    });
    const changed = template(
      ...on,
      '--set',
      'stream.autoscaling.behavior.scaleDown.stabilizationWindowSeconds=900',
      '--set-json',
      'api.autoscaling.behavior={"scaleUp":{"stabilizationWindowSeconds":30}}',
    );
    const hpa = (name: string) => changed.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === name)!.spec;
    expect(hpa('rel-mapintel-stream').behavior.scaleDown.stabilizationWindowSeconds).toBe(900);
    expect(hpa('rel-mapintel-api').behavior.scaleUp).toEqual({ stabilizationWindowSeconds: 30 });
    dryRun(...on);
  });

  it('scales the stream on open connections when the custom metrics API is served or a value says so, else on CPU with a note', () => {
    // The gauge the Pods metric names is the stream role's own.
    expect(readFileSync('src/stream/stream.metrics.ts', 'utf8')).toContain("name: 'mapintel_stream_clients'");
    const on = ['--set', 'stream.autoscaling.enabled=true'];
    const metrics = (...args: string[]) =>
      template(...on, ...args).find((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === 'rel-mapintel-stream')!.spec.metrics;
    const cpu = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } };
    const connections = (n: string) => ({
      type: 'Pods',
      pods: { metric: { name: 'mapintel_stream_clients' }, target: { type: 'AverageValue', averageValue: n } },
    });

    expect(metrics()).toEqual([cpu]);
    expect(metrics('--api-versions', 'custom.metrics.k8s.io/v1beta1')).toEqual([connections('5000'), cpu]);
    expect(metrics('--set', 'stream.autoscaling.openConnections.enabled=true', '--set', 'stream.autoscaling.openConnections.averageValue=800')).toEqual([
      connections('800'),
      cpu,
    ]);
    expect(metrics('--api-versions', 'custom.metrics.k8s.io/v1beta1', '--set', 'stream.autoscaling.openConnections.enabled=false')).toEqual([cpu]);
    expect(() => cluster.helm(['template', 'rel', CHART, '--set', 'api.autoscaling.openConnections.enabled=true'])).toThrow(
      /api.autoscaling.openConnections: only the stream role scales on open connections/,
    );

    dryRun(...on, '--api-versions', 'custom.metrics.k8s.io/v1beta1');

    // Installed: helm reads the served APIs from the apiserver. A stand-in CRD puts the group and version
    // of prometheus-adapter's APIService into discovery.
    cluster.kubectl(['create', 'namespace', 'autoscaled']);
    envSecret('autoscaled', 'as');
    const args = ['--namespace', 'autoscaled', '--no-hooks', '--wait=false', ...on];
    const served = () =>
      (
        JSON.parse(cluster.kubectl(['get', 'hpa', 'as-mapintel-stream', '-n', 'autoscaled', '-o', 'json'])) as { spec: { metrics: { type: string }[] } }
      ).spec.metrics.map((m) => m.type);
    const installed = cluster.helm(['install', 'as', CHART, ...args]);
    expect(installed).toMatch(/The stream HPA scales on CPU only: this cluster does not serve custom.metrics.k8s.io\/v1beta1/);
    expect(served()).toEqual(['Resource']);
    cluster.kubectl(['apply', '--server-side', '-f', '-'], CUSTOM_METRICS_STAND_IN);
    cluster.kubectl(['wait', '--for=condition=Established', '--timeout=30s', 'crd/standins.custom.metrics.k8s.io']);
    expect(cluster.helm(['upgrade', 'as', CHART, ...args])).not.toMatch(/CPU only/);
    expect(served()).toEqual(['Pods', 'Resource']);
  });

  it('sleeps in preStop on api and stream pods, within a grace period that covers the sleep and the drain', () => {
    const objs = template();
    for (const role of ['api', 'stream']) {
      expect(podOf(objs, role).containers[0].lifecycle).toEqual({ preStop: { sleep: { seconds: 5 } } });
    }
    expect(podOf(objs, 'stream').terminationGracePeriodSeconds).toBe(30);
    for (const role of ['worker', 'operator']) expect(podOf(objs, role).containers[0].lifecycle).toBeUndefined();
    expect(podOf(template('--set', 'stream.preStopSleepSeconds=12'), 'stream').containers[0].lifecycle.preStop.sleep.seconds).toBe(12);

    expect(() => cluster.helm(['template', 'rel', CHART, '--set', 'stream.terminationGracePeriodSeconds=15'])).toThrow(
      /stream.terminationGracePeriodSeconds \(15\) must exceed stream.preStopSleepSeconds \(5\) plus SERVICE_SHUTDOWN_DELAY_MS and SERVICE_SHUTDOWN_TIMEOUT_MS \(15 s\)/,
    );
    expect(() =>
      cluster.helm(['template', 'rel', CHART, '--set-string', 'env.SERVICE_SHUTDOWN_TIMEOUT_MS=30000', '--set', 'stream.terminationGracePeriodSeconds=60']),
    ).toThrow(/api.terminationGracePeriodSeconds \(30\) must exceed/);
    // 21 s covers the 5 s sleep, the 5 s the pod serves on (SERVICE_SHUTDOWN_DELAY_MS) and the 10 s shutdown.
    expect(podOf(template('--set', 'stream.terminationGracePeriodSeconds=21'), 'stream').terminationGracePeriodSeconds).toBe(21);
    // The apiserver (1.36) takes the sleep action without a shell in the image.
    dryRun();
  });

  it('renders no PDB for a role that runs one replica, so node drains are not blocked', () => {
    const pdbs = (...args: string[]) =>
      template(...args)
        .filter((o) => o.kind === 'PodDisruptionBudget')
        .map((o) => o.metadata.name)
        .sort();
    expect(pdbs()).toEqual(['rel-mapintel-api', 'rel-mapintel-operator', 'rel-mapintel-stream', 'rel-mapintel-worker']);
    expect(pdbs('--set', 'api.replicas=1', '--set', 'operator.replicas=1')).toEqual(['rel-mapintel-stream', 'rel-mapintel-worker']);
    // With an HPA, its minimum counts.
    expect(pdbs('--set', 'stream.autoscaling.enabled=true', '--set', 'stream.autoscaling.minReplicas=1')).not.toContain('rel-mapintel-stream');
    expect(pdbs('--set', 'worker.replicas=1', '--set', 'worker.autoscaling.enabled=true', '--set', 'worker.autoscaling.minReplicas=3')).toContain(
      'rel-mapintel-worker',
    );

    cluster.kubectl(['create', 'namespace', 'single']);
    envSecret('single', 'single');
    const one = ['api', 'stream', 'worker', 'operator'].flatMap((r) => ['--set', `${r}.replicas=1`]);
    cluster.helm(['install', 'single', CHART, '--namespace', 'single', '--no-hooks', '--wait=false', ...one]);
    expect(cluster.kubectl(['get', 'pdb', '-n', 'single', '-o', 'name']).trim()).toBe('');
    expect(cluster.kubectl(['get', 'deployments', '-n', 'single', '-o', 'name']).trim().split('\n')).toHaveLength(4);
  });

  it('makes the ServiceMonitor only where the Prometheus Operator API is served, and says so otherwise', () => {
    cluster.kubectl(['create', 'namespace', 'monitored']);
    envSecret('monitored', 'mon');
    const args = ['--namespace', 'monitored', '--no-hooks', '--wait=false', '--set', 'serviceMonitor.enabled=true'];
    const out = cluster.helm(['install', 'mon', CHART, ...args]);
    expect(out).toMatch(/STATUS: deployed/);
    expect(out).toMatch(/serviceMonitor.enabled is true but this cluster does not serve monitoring.coreos.com\/v1/);
    expect(cluster.kubectl(['api-resources', '--api-group', 'monitoring.coreos.com', '-o', 'name']).trim()).toBe('');

    cluster.kubectl(['apply', '--server-side', '-f', '-'], SERVICE_MONITOR_CRD);
    cluster.kubectl(['wait', '--for=condition=Established', '--timeout=30s', 'crd/servicemonitors.monitoring.coreos.com']);
    const upgraded = cluster.helm(['upgrade', 'mon', CHART, ...args]);
    expect(upgraded).not.toMatch(/does not serve monitoring.coreos.com/);
    expect(cluster.kubectl(['get', 'servicemonitors', '-n', 'monitored', '-o', 'name']).trim()).toBe('servicemonitor.monitoring.coreos.com/mon-mapintel');
  });

  it('ships a NetworkPolicy per role and for migrations, off by default', () => {
    expect(template().filter((o) => o.kind === 'NetworkPolicy')).toEqual([]);
    const publicFrom = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }];
    const args = ['--set', 'networkPolicy.enabled=true', '--set-json', `networkPolicy.publicFrom=${JSON.stringify(publicFrom)}`];
    const policies = Object.fromEntries(
      template(...args)
        .filter((o) => o.kind === 'NetworkPolicy')
        .map((o) => [o.metadata.name.replace('rel-mapintel-', ''), o.spec]),
    );
    expect(Object.keys(policies).sort()).toEqual(['api', 'migrate', 'operator', 'stream', 'worker']);
    const monitoring = {
      ports: [{ port: 'ops', protocol: 'TCP' }],
      from: [
        { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['monitoring'] }] } },
        // `helm test`'s pod (tests.enabled, the default) calls /readyz.
        { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'mapintel', 'app.kubernetes.io/instance': 'rel', 'app.kubernetes.io/component': 'test' } } },
      ],
    };
    const egressPorts = (role: string) =>
      policies[role].egress.map((r: { ports: { port: number; protocol: string }[] }) => r.ports.map((p) => `${p.port}/${p.protocol}`).join(','));
    const dns = '53/TCP,53/UDP';
    for (const [role, spec] of Object.entries(policies)) {
      expect(spec.podSelector.matchLabels['app.kubernetes.io/component']).toBe(role);
      expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
    }
    for (const role of ['api', 'stream'])
      expect(policies[role].ingress).toEqual([{ ports: [{ port: 'http', protocol: 'TCP' }], from: publicFrom }, monitoring]);
    for (const role of ['worker', 'operator']) expect(policies[role].ingress).toEqual([monitoring]);
    expect(policies.migrate.ingress).toEqual([]);
    expect(egressPorts('api')).toEqual([dns, '5432/TCP', '6379/TCP', '443/TCP,80/TCP']);
    expect(egressPorts('stream')).toEqual([dns, '5432/TCP', '6379/TCP']);
    expect(egressPorts('worker')).toEqual([dns, '5432/TCP', '6379/TCP', '443/TCP,80/TCP']);
    expect(egressPorts('operator')).toEqual([dns, '5432/TCP', '6379/TCP', '443/TCP,6443/TCP']);
    expect(egressPorts('migrate')).toEqual([dns, '5432/TCP']);
    for (const rule of policies.api.egress) expect(rule.to).toBeUndefined();

    // Without a publicFrom the public port is open to all; destinations narrow egress.
    const narrowed = template(
      '--set',
      'networkPolicy.enabled=true',
      '--set-json',
      'networkPolicy.egress.postgresql={"ports":[5433],"to":[{"ipBlock":{"cidr":"10.1.0.0/16"}}]}',
    ).find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'rel-mapintel-stream')!.spec;
    expect(narrowed.ingress[0]).toEqual({ ports: [{ port: 'http', protocol: 'TCP' }] });
    expect(narrowed.egress[1]).toEqual({ ports: [{ port: 5433, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '10.1.0.0/16' } }] });
    dryRun(...args);
  });

  it('refuses an encryption key that is not 32 bytes of base64, as the service does, without echoing it', () => {
    const render = (key: string) => () =>
      cluster.helm([
        'template',
        'rel',
        CHART,
        '--set',
        'database.url=postgres://db/x',
        '--set',
        'redis.url=redis://r',
        '--set',
        `secrets.encryptionKey=${key}`,
      ]);
    // The samples agree with the service's check (src/common/config.ts): Buffer.from(key, 'base64').length === 32.
    const good = [KEY, KEY.slice(0, -1), 'abcdefghijklmnopqrstuvwxyz-_ABCDEFGHIJKLMNO'];
    const bad = ['short-key-value', `${KEY.slice(0, -1)}x`, `${KEY.slice(0, -2)}*=`, `${KEY.slice(0, -5)}=AAAA`, 'A'.repeat(64)];
    for (const k of good) {
      expect(Buffer.from(k, 'base64')).toHaveLength(32);
      expect(render(k)).not.toThrow();
    }
    for (const k of bad) {
      expect(Buffer.from(k, 'base64').length === 32 && /^[A-Za-z0-9+/_-]+=?$/.test(k)).toBe(false);
      let message = '';
      try {
        render(k)();
      } catch (e) {
        // What helm printed, not the command line the error message repeats.
        message = (e as Error).message.split(/failed \(\d+\):\n/)[1] ?? '';
      }
      expect(message).toMatch(/\/secrets\/encryptionKey/);
      expect(message).not.toContain(k);
    }
  });

  it('refuses env and extraEnv keys that duplicate a setting of the chart, naming the value to use', () => {
    const refuse = (args: string[], message: RegExp) => expect(() => cluster.helm(['template', 'rel', CHART, ...args])).toThrow(message);
    refuse(
      ['--set', 'env.DATABASE_URL=postgres://db/x'],
      /env.DATABASE_URL duplicates a setting of the chart: set database.url or database.existingSecret instead/,
    );
    refuse(['--set', 'env.REDIS_URL=redis://r'], /env.REDIS_URL duplicates a setting of the chart: set redis.url or redis.existingSecret instead/);
    refuse(['--set', 'env.SERVICE_ENCRYPTION_KEY=x'], /set secrets.encryptionKey or secrets.existingSecret instead/);
    refuse(['--set', 'env.LOG_LEVEL=debug'], /env.LOG_LEVEL duplicates a setting of the chart: set logLevel instead/);
    refuse(
      ['--set-json', 'worker.extraEnv=[{"name":"DATABASE_POOL_MAX","value":"50"}]'],
      /worker.extraEnv DATABASE_POOL_MAX duplicates a setting of the chart: set database.poolMax instead/,
    );
    refuse(['--set', 'env.NODE_OPTIONS=--max-old-space-size=512'], /set <role>.nodeOptions instead/);
    const env = podOf(template('--set-string', 'env.STREAM_MAX_PER_MAP=100'), 'api').containers[0].env as { name: string; value?: string }[];
    expect(env.find((e) => e.name === 'STREAM_MAX_PER_MAP')!.value).toBe('100');
  });
});
