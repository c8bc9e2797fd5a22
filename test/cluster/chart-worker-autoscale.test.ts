/**
 * The chart's worker.autoscale.mode operator against a real kube-apiserver: the operator gets the
 * settings and, only then, get/patch on the worker Deployment's scale; the Deployment leaves its
 * replicas to the operator; the HPA and the operator are refused together. And the chart's kubeVersion:
 * 1.29 (where the preStop sleep handler is alpha) is refused; what it renders for each minor it claims
 * passes the apiserver's server-side dry run. docs/kubernetes.md, "Delivery workers sized by the operator".
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kubeUnavailable, TestCluster } from '../support/kube.js';

const CHART = path.resolve('charts/mapintel');
const unavailable = kubeUnavailable();
const VALUES = ['--set', 'database.url=postgres://db/mapintel', '--set', 'redis.url=redis://redis:6379', '--set', `secrets.encryptionKey=${'A'.repeat(43)}=`];

interface Obj {
  kind: string;
  metadata: { name: string };
  spec?: any;
  rules?: { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] }[];
}

const parse = (text: string): Obj[] =>
  parseAllDocuments(text)
    .map((d) => d.toJSON() as Obj | null)
    .filter((o): o is Obj => o !== null);

describe.skipIf(unavailable)('Helm chart: delivery workers sized by the operator, supported versions', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start();
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  const template = (...args: string[]): Obj[] => parse(cluster.helm(['template', 'rel', CHART, ...VALUES, ...args]));
  const deployment = (objs: Obj[], role: string) => objs.find((o) => o.kind === 'Deployment' && o.metadata.name === `rel-mapintel-${role}`)!;
  const scaleRules = (objs: Obj[]) =>
    objs.filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole').flatMap((r) => (r.rules ?? []).filter((x) => x.resources.includes('deployments/scale')));

  it('is off by default: fixed worker replicas, no scale rights, no autoscale settings for the operator', () => {
    const objs = template();
    expect(deployment(objs, 'worker').spec.replicas).toBe(2);
    expect(scaleRules(objs)).toEqual([]);
    const env = deployment(objs, 'operator').spec.template.spec.containers[0].env as { name: string }[];
    expect(env.filter((e) => e.name.startsWith('OPERATOR_WORKER_'))).toEqual([]);
  });

  it('with mode operator: the settings, scale rights on the worker Deployment only, and no replicas in it', () => {
    const objs = template('--set', 'worker.autoscale.mode=operator', '--set', 'worker.autoscale.maxReplicas=6');
    expect(deployment(objs, 'worker').spec.replicas).toBeUndefined();
    expect(scaleRules(objs)).toEqual([
      { apiGroups: ['apps'], resources: ['deployments/scale'], resourceNames: ['rel-mapintel-worker'], verbs: ['get', 'patch'] },
    ]);
    const env = Object.fromEntries(
      (deployment(objs, 'operator').spec.template.spec.containers[0].env as { name: string; value?: string }[]).map((e) => [e.name, e.value]),
    );
    expect(env).toMatchObject({
      OPERATOR_WORKER_AUTOSCALE: 'true',
      OPERATOR_WORKER_DEPLOYMENT: 'rel-mapintel-worker',
      OPERATOR_WORKER_MIN_REPLICAS: '1',
      OPERATOR_WORKER_MAX_REPLICAS: '6',
      OPERATOR_WORKER_PENDING_PER_REPLICA: '1000',
      OPERATOR_WORKER_SUBSCRIPTIONS_PER_REPLICA: '500',
      OPERATOR_WORKER_SCALE_DOWN_COOLDOWN_SECONDS: '300',
      OPERATOR_WORKER_AUTOSCALE_INTERVAL_SECONDS: '15',
    });
    // What it renders is accepted by the apiserver.
    cluster.kubectl(['create', 'namespace', 'sized']);
    const rendered = cluster.helm(['template', 'rel', CHART, '--namespace', 'sized', ...VALUES, '--set', 'worker.autoscale.mode=operator']);
    const out = cluster.kubectl(['apply', '--dry-run=server', '-n', 'sized', '-f', '-'], rendered);
    expect(out).toMatch(/role.rbac.authorization.k8s.io\/rel-mapintel-operator-worker-scale created \(server dry run\)/);
  });

  it('refuses the operator and the HPA together, and an unknown mode', () => {
    expect(() => template('--set', 'worker.autoscale.mode=operator', '--set', 'worker.autoscaling.enabled=true')).toThrow(
      /worker.autoscale.mode operator and worker.autoscaling.enabled \(the HPA\) would both set the worker replicas/,
    );
    expect(() => template('--set', 'worker.autoscale.mode=keda')).toThrow(/autoscale\/mode/);
  });

  it('claims Kubernetes 1.30 and later: 1.29 is refused; the render for each minor from 1.30 passes a server-side dry run', () => {
    expect(() => template('--kube-version', '1.29.9')).toThrow(/kubeVersion|incompatible/i);
    // Only a v1.36 apiserver is built here: each minor's render (templates may branch on
    // .Capabilities.KubeVersion) is checked against its schemas, not each minor's own.
    for (const minor of [30, 31, 32, 33, 34, 35, 36]) {
      const ns = `minor-${minor}`;
      cluster.kubectl(['create', 'namespace', ns]);
      const rendered = cluster.helm(['template', 'rel', CHART, '--namespace', ns, '--kube-version', `1.${minor}.0`, ...VALUES]);
      const out = cluster.kubectl(['apply', '--dry-run=server', '-n', ns, '-f', '-'], rendered);
      expect(out.trim().split('\n'), `1.${minor}`).toHaveLength(parse(rendered).length);
    }
  });
});
