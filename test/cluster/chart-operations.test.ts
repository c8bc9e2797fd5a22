/**
 * The chart's scaling, disruption and safety settings against a real kube-apiserver: HPA behaviour and
 * the stream's open-connections metric, the preStop sleep, PDBs only where they cannot block a drain.
 * docs/kubernetes.md, "Scaling and disruption".
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kubeUnavailable, TestCluster } from '../support/kube.js';

const CHART = path.resolve('charts/mapintel');
const unavailable = kubeUnavailable();

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

describe.skipIf(unavailable)('Helm chart: scaling and disruption', () => {
  let cluster: TestCluster;
  let namespaces = 0;

  const template = (...args: string[]): Obj[] => parse(cluster.helm(['template', 'rel', CHART, ...args]));
  const podOf = (objs: Obj[], role: string) => objs.find((o) => o.kind === 'Deployment' && o.metadata.name === `rel-mapintel-${role}`)!.spec.template.spec;
  /** Every object of a render through the apiserver's validation (server-side dry-run) in a fresh namespace. */
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
      /stream.terminationGracePeriodSeconds \(15\) must exceed stream.preStopSleepSeconds \(5\) plus SERVICE_SHUTDOWN_TIMEOUT_MS \(10 s\)/,
    );
    expect(() =>
      cluster.helm(['template', 'rel', CHART, '--set-string', 'env.SERVICE_SHUTDOWN_TIMEOUT_MS=30000', '--set', 'stream.terminationGracePeriodSeconds=60']),
    ).toThrow(/api.terminationGracePeriodSeconds \(30\) must exceed/);
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
    const one = ['api', 'stream', 'worker', 'operator'].flatMap((r) => ['--set', `${r}.replicas=1`]);
    cluster.helm(['install', 'single', CHART, '--namespace', 'single', '--no-hooks', '--wait=false', ...one]);
    expect(cluster.kubectl(['get', 'pdb', '-n', 'single', '-o', 'name']).trim()).toBe('');
    expect(cluster.kubectl(['get', 'deployments', '-n', 'single', '-o', 'name']).trim().split('\n')).toHaveLength(4);
  });
});
