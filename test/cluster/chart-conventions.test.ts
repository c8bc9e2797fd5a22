/**
 * The chart as cluster operators' tooling expects it, against a real kube-apiserver: Chart.yaml's
 * fields and its Artifact Hub annotations (the CRD they name is the chart's, their example passes the
 * apiserver's validation, the image is the chart's default), soft topology spread by default, Gateway
 * API HTTPRoutes (no timeout on the stream's), and the `helm test` hook (kept out of k8s/).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { kubeUnavailable, TestCluster } from '../support/kube.js';

const CHART = path.resolve('charts/mapintel');
const unavailable = kubeUnavailable();

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
  rules?: any[];
}
const parse = (text: string): Obj[] =>
  parseAllDocuments(text)
    .map((d) => d.toJSON() as Obj | null)
    .filter((o): o is Obj => o !== null);

const chart = parseYaml(readFileSync(path.join(CHART, 'Chart.yaml'), 'utf8')) as Record<string, any>;
const values = parseYaml(readFileSync(path.join(CHART, 'values.yaml'), 'utf8')) as Record<string, any>;

const HTTPROUTE_STAND_IN = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: httproutes.gateway.networking.k8s.io
  annotations: { api-approved.kubernetes.io: "https://github.com/kubernetes-sigs/gateway-api/pull/1" }
spec:
  group: gateway.networking.k8s.io
  names: { kind: HTTPRoute, plural: httproutes, listKind: HTTPRouteList, singular: httproute }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }
`;

describe('Chart.yaml', () => {
  it('has the fields chart tooling reads, and Artifact Hub annotations that agree with the chart', () => {
    expect(chart.apiVersion).toBe('v2');
    expect(chart.name).toBe('mapintel');
    expect(chart.type).toBe('application');
    expect(chart.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect(chart.appVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(chart.kubeVersion).toMatch(/^>=\s*1\.\d+/);
    expect(typeof chart.description).toBe('string');
    expect(chart.home).toMatch(/^https:\/\//);
    for (const s of chart.sources) expect(s).toMatch(/^https:\/\//);
    // Only the fields of Helm's Chart.yaml (chart-testing's schema refuses others).
    const known = [
      'apiVersion',
      'name',
      'version',
      'kubeVersion',
      'description',
      'type',
      'keywords',
      'home',
      'sources',
      'dependencies',
      'maintainers',
      'icon',
      'appVersion',
      'deprecated',
      'annotations',
    ];
    expect(Object.keys(chart).filter((k) => !known.includes(k))).toEqual([]);

    const a = chart.annotations as Record<string, string>;
    expect(a['artifacthub.io/license']).toBe(JSON.parse(readFileSync('package.json', 'utf8')).license);
    expect(a['artifacthub.io/operator']).toBe('true');
    expect(['Basic Install', 'Seamless Upgrades', 'Full Lifecycle', 'Deep Insights', 'Auto Pilot']).toContain(a['artifacthub.io/operatorCapabilities']);
    const images = parseYaml(a['artifacthub.io/images']!) as { name: string; image: string }[];
    expect(images).toEqual([{ name: 'mapintel', image: `${values.image.repository}:${chart.appVersion}` }]);
    const crds = parseYaml(a['artifacthub.io/crds']!) as { kind: string; version: string; name: string; displayName: string; description: string }[];
    const own = parseYaml(readFileSync(path.join(CHART, 'crds', 'webhooksubscriptions.mapintel.io.yaml'), 'utf8'));
    expect(crds.map((c) => [c.kind, c.version, c.name])).toEqual([[own.spec.names.kind, own.spec.versions[0].name, own.metadata.name]]);
    for (const c of crds) expect(c.displayName && c.description).toBeTruthy();
    const changes = parseYaml(a['artifacthub.io/changes']!) as { kind: string; description: string }[];
    expect(changes.length).toBeGreaterThan(0);
    for (const c of changes) expect(['added', 'changed', 'deprecated', 'removed', 'fixed', 'security']).toContain(c.kind);
    const links = parseYaml(a['artifacthub.io/links']!) as { name: string; url: string }[];
    for (const l of links) expect(l.url).toMatch(/^https:\/\/github\.com\/mapintel\/mapintel\/blob\/main\/docs\/\w+\.md$/);
    for (const l of links) expect(readFileSync(l.url.replace(/^.*\/blob\/main\//, ''), 'utf8').length).toBeGreaterThan(0);
  });
});

describe.skipIf(unavailable)('Helm chart: conventions', () => {
  let cluster: TestCluster;
  const template = (...args: string[]): Obj[] => parse(cluster.helm(['template', 'rel', CHART, ...args]));

  beforeAll(async () => {
    cluster = await TestCluster.start();
    cluster.kubectl(['apply', '--server-side', '-f', path.join(CHART, 'crds')]);
    cluster.kubectl(['apply', '-f', '-'], HTTPROUTE_STAND_IN);
    cluster.kubectl([
      'wait',
      '--for=condition=Established',
      '--timeout=30s',
      'crd/webhooksubscriptions.mapintel.io',
      'crd/httproutes.gateway.networking.k8s.io',
    ]);
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("the Artifact Hub CRD example passes the apiserver's validation of the chart's CRD", () => {
    const examples = parseYaml((chart.annotations as Record<string, string>)['artifacthub.io/crdsExamples']!) as object[];
    cluster.kubectl(['create', 'namespace', 'conv-example']);
    for (const e of examples) {
      const out = cluster.kubectl(
        ['apply', '--dry-run=server', '-n', 'conv-example', '-f', '-'],
        JSON.stringify({ ...e, metadata: { ...(e as any).metadata, namespace: 'conv-example' } }),
      );
      expect(out).toMatch(/webhooksubscription.mapintel.io\/my-receiver created \(server dry run\)/);
    }
  });

  it('spreads each role over zones and nodes softly by default, and not at all when switched off', () => {
    const deployments = template().filter((o) => o.kind === 'Deployment');
    expect(deployments).toHaveLength(4);
    for (const d of deployments) {
      const role = d.spec.template.metadata.labels['app.kubernetes.io/component'];
      expect(d.spec.template.spec.topologySpreadConstraints, d.metadata.name).toEqual(
        ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'].map((topologyKey) => ({
          maxSkew: 1,
          topologyKey,
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'mapintel', 'app.kubernetes.io/instance': 'rel', 'app.kubernetes.io/component': role } },
          matchLabelKeys: ['pod-template-hash'],
        })),
      );
    }
    for (const d of template('--set', 'topologySpread.enabled=false').filter((o) => o.kind === 'Deployment')) {
      expect(d.spec.template.spec.topologySpreadConstraints, d.metadata.name).toBeUndefined();
    }
    // k8s/ is rendered from the chart: it carries them too.
    expect(readFileSync('k8s/base/mapintel.yaml', 'utf8').match(/whenUnsatisfiable: ScheduleAnyway/g)).toHaveLength(8);
  });

  it('routes through the Gateway API: the API with a request timeout, the stream without any', () => {
    expect(template().filter((o) => o.kind === 'HTTPRoute')).toEqual([]);
    expect(() => template('--set', 'gateway.enabled=true')).toThrow(/gateway.parentRefs is required with gateway.enabled/);
    const args = [
      '--set',
      'gateway.enabled=true',
      '--set-json',
      'gateway.parentRefs=[{"name":"public","namespace":"gateways","sectionName":"https"}]',
      '--set-json',
      'gateway.hostnames=["maps.example.com"]',
    ];
    const routes = Object.fromEntries(
      template(...args)
        .filter((o) => o.kind === 'HTTPRoute')
        .map((o) => [o.metadata.name, o.spec]),
    );
    expect(Object.keys(routes).sort()).toEqual(['rel-mapintel-api', 'rel-mapintel-stream']);
    const api = routes['rel-mapintel-api'];
    expect(api.parentRefs).toEqual([{ name: 'public', namespace: 'gateways', sectionName: 'https' }]);
    expect(api.hostnames).toEqual(['maps.example.com']);
    expect(api.rules).toEqual([
      { matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name: 'rel-mapintel-api', port: 80 }], timeouts: { request: '60s' } },
    ]);
    const stream = routes['rel-mapintel-stream'];
    expect(stream.rules).toEqual([
      {
        matches: [{ path: { type: 'RegularExpression', value: '^/api/maps/[^/]+/events/stream$' } }],
        backendRefs: [{ name: 'rel-mapintel-stream', port: 80 }],
      },
    ]);
    expect(new RegExp(stream.rules[0].matches[0].path.value).test('/api/maps/home-chain/events/stream')).toBe(true);
    cluster.kubectl(['create', 'namespace', 'conv-routes']);
    const rendered = cluster.helm(['template', 'rel', CHART, '--namespace', 'conv-routes', ...args, '--show-only', 'templates/httproute.yaml']);
    expect(cluster.kubectl(['apply', '--dry-run=server', '-n', 'conv-routes', '-f', '-'], rendered)).toMatch(
      /httproute.gateway.networking.k8s.io\/rel-mapintel-stream created/,
    );
  });

  it('has a helm test hook (tests.enabled, on by default): a pod checking each enabled role through its -ops Service, allowed only to list EndpointSlices and dry-run WebhookSubscriptions; k8s/ has none of it', () => {
    expect(template('--set', 'tests.enabled=false').filter((o) => o.metadata.annotations?.['helm.sh/hook'] === 'test')).toEqual([]);
    const objs = template('--set', 'worker.enabled=false');
    const hooks = objs.filter((o) => o.metadata.annotations?.['helm.sh/hook'] === 'test');
    expect(hooks.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'ConfigMap/rel-mapintel-test',
      'Pod/rel-mapintel-test',
      'Role/rel-mapintel-test',
      'RoleBinding/rel-mapintel-test',
      'ServiceAccount/rel-mapintel-test',
    ]);
    const pod = hooks.find((o) => o.kind === 'Pod')!;
    const env = Object.fromEntries(pod.spec.containers[0].env.map((e: { name: string; value: string }) => [e.name, e.value]));
    expect(env.OPS_SERVICES).toBe('rel-mapintel-api-ops,rel-mapintel-stream-ops,rel-mapintel-operator-ops');
    for (const s of env.OPS_SERVICES.split(',')) expect(objs.some((o) => o.kind === 'Service' && o.metadata.name === s)).toBe(true);
    expect(pod.spec.containers[0].command).toEqual(['node', '/etc/mapintel/test/release-test.mjs']);
    expect(pod.spec.restartPolicy).toBe('Never');
    expect(hooks.find((o) => o.kind === 'Role')!.rules).toEqual([
      { apiGroups: ['mapintel.io'], resources: ['webhooksubscriptions'], verbs: ['create'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
    ]);
    // No cluster DNS needed: the apiserver at the address every pod is given, the pods from EndpointSlices.
    const script = readFileSync(path.join(CHART, 'files/release-test.mjs'), 'utf8');
    expect(script).toContain('process.env.KUBERNETES_SERVICE_HOST');
    expect(script).toContain('/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${service}');
    expect(script).not.toMatch(/node:dns|kubernetes\.default\.svc/);
    // The old pods of a rolling update, draining with /readyz 503, are not checked.
    expect(script).toContain('if (e.conditions?.terminating) {');
    expect(hooks.find((o) => o.kind === 'ConfigMap')!.data!['release-test.mjs']).toBe(readFileSync(path.join(CHART, 'files/release-test.mjs'), 'utf8'));
    expect(readFileSync('k8s/base/mapintel.yaml', 'utf8')).not.toContain('mapintel-test');
    // The dry run the test pod sends is one the apiserver accepts for this CRD.
    expect(script).toContain('?dryRun=All');
    cluster.kubectl(['create', 'namespace', 'conv-test']);
    const body = {
      apiVersion: 'mapintel.io/v1alpha1',
      kind: 'WebhookSubscription',
      metadata: { name: 'helm-test-dry-run', namespace: 'conv-test' },
      spec: { map: 'helm-test', url: 'https://receiver.example.com/hook', events: ['*'], mapKeySecretRef: { name: 'helm-test-key' } },
    };
    expect(script).toContain("spec: { map: 'helm-test', url: 'https://receiver.example.com/hook', events: ['*'], mapKeySecretRef: { name: 'helm-test-key' } }");
    expect(cluster.kubectl(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(body))).toMatch(/created \(server dry run\)/);
  });

  it("lets the helm test pod through each role's NetworkPolicy to the ops port, and only while tests are on", () => {
    const opsFrom = (...args: string[]) =>
      template('--set', 'networkPolicy.enabled=true', '--set-json', 'networkPolicy.monitoringNamespaces=[]', ...args)
        .filter((o) => o.kind === 'NetworkPolicy')
        .map((o) => [o.metadata.name, (o.spec.ingress ?? []).filter((r: any) => r.ports?.[0]?.port === 'ops').map((r: any) => r.from)]);
    const testPod = {
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'mapintel', 'app.kubernetes.io/instance': 'rel', 'app.kubernetes.io/component': 'test' } },
    };
    expect(opsFrom()).toEqual(['api', 'stream', 'worker', 'operator', 'migrate'].map((r) => [`rel-mapintel-${r}`, r === 'migrate' ? [] : [[testPod]]]));
    expect(opsFrom('--set', 'tests.enabled=false').every(([, rules]) => (rules as unknown[]).length === 0)).toBe(true);
  });
});
