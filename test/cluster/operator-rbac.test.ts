/**
 * The operator under the chart's own ServiceAccount and rules on a real kube-apiserver: every request
 * it makes through a full life cycle is allowed, and every verb the rules grant is one it made (the
 * rules are exactly what the code calls). The namespaced mode (Roles in chosen namespaces) works and
 * touches nothing elsewhere. `mapintel release-finalizers`, the chart's pre-delete hook, stops the
 * operator and releases every finalizer with the same rights, so deleting resources after
 * `helm uninstall` never hangs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kubeUnavailable } from '../support/kube.js';
import { startCli } from '../support/cli-process.js';
import { CHART, condition, eventually, OperatorHarness } from '../support/operator-harness.js';

const unavailable = kubeUnavailable(['etcd', 'kube-apiserver', 'kubectl', 'helm']);
const URL = 'https://127.0.0.1:9/hook';
const VERB: Record<string, string> = { GET: 'get', LIST: 'list', WATCH: 'watch', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** The chart's RBAC and ServiceAccounts for a release `rbac` in mapintel-system, applied; its operator's rules as resource → verbs. */
function installRbac(h: OperatorHarness, set: string[] = []): Map<string, Set<string>> {
  const rendered = h.cluster.helm([
    'template',
    'rbac',
    CHART,
    '--namespace',
    'mapintel-system',
    ...set.flatMap((s) => ['--set', s]),
    '--show-only',
    'templates/rbac.yaml',
    '--show-only',
    'templates/serviceaccount.yaml',
  ]);
  h.kubectl(['apply', '-f', '-'], rendered);
  const granted = new Map<string, Set<string>>();
  for (const doc of rendered.split(/^---$/m)) {
    const o = parse(doc) as { kind?: string; metadata?: { name: string }; rules?: Rule[] } | null;
    if (!o || (o.kind !== 'Role' && o.kind !== 'ClusterRole') || !o.metadata!.name.startsWith('rbac-mapintel-operator')) continue;
    for (const r of o.rules!) for (const res of r.resources) for (const v of r.verbs) granted.set(res, (granted.get(res) ?? new Set()).add(v));
  }
  return granted;
}

/** resource → verbs of every request an operator made, from its request counter. */
function used(metrics: string): { calls: Map<string, Set<string>>; forbidden: string[] } {
  const calls = new Map<string, Set<string>>();
  const forbidden: string[] = [];
  for (const m of metrics.matchAll(/mapintel_operator_apiserver_requests_total\{verb="(\w+)",resource="([^"]+)",code="(\w+)"\} (\d+)/g)) {
    const [, verb, resource, code] = m;
    if (code === '403') forbidden.push(`${verb} ${resource}`);
    calls.set(resource!, (calls.get(resource!) ?? new Set()).add(VERB[verb!]!));
  }
  return { calls, forbidden };
}

const sorted = (m: Map<string, Set<string>>) =>
  Object.fromEntries([...m].map(([k, v]) => [k, [...v].sort()]).sort(([a], [b]) => String(a).localeCompare(String(b))));

describe.skipIf(unavailable)('operator RBAC: exactly what the code calls', () => {
  let h: OperatorHarness;

  beforeAll(async () => {
    // With the plugin that checks blockOwnerDeletion: the generated Secret's owner reference needs its rule.
    h = await OperatorHarness.start({ admissionPlugins: ['OwnerReferencesPermissionEnforcement'] });
    for (const ns of ['mapintel-system', 'team-a', 'ns-x', 'ns-y']) {
      h.kubectl(['create', 'namespace', ns]);
      h.secret(ns, 'map-key', 'key', h.mapKey);
    }
  }, 180_000);

  afterAll(async () => {
    await h?.stop();
  }, 60_000);

  it('runs a full life cycle with the chart’s ServiceAccount: every request allowed, every granted verb used', async () => {
    const granted = installRbac(h);
    const token = h.kubectl(['create', 'token', 'rbac-mapintel-operator', '-n', 'mapintel-system', '--duration=1h']).trim();
    const kubeconfig = h.cluster.tokenKubeconfig('operator-sa', token);
    const { p, port } = await h.startOperator('rbac', kubeconfig, { OPERATOR_NAMESPACE: 'mapintel-system', OPERATOR_LEASE_NAME: 'rbac-mapintel-operator' });
    await eventually('leads', () => h.leads(port, 'rbac-mapintel-operator'));
    // Generated Secret, status, Events.
    h.apply('team-a', 'generated', { map: h.mapSlug, url: `${URL}/gen`, events: ['*'], mapKeySecretRef: { name: 'map-key' } });
    await h.waitReason('team-a', 'generated', 'Reconciled', 'True');
    // A named signing Secret (get), missing then present then missing: a repeated Warning (Event patch).
    h.apply('team-a', 'named', { map: h.mapSlug, url: `${URL}/named`, events: ['*'], mapKeySecretRef: { name: 'map-key' }, secretRef: { name: 'sig' } });
    await h.waitReason('team-a', 'named', 'SecretNotFound');
    h.secret('team-a', 'sig', 'secret', 'a-signing-secret-of-sixteen+');
    await h.waitReason('team-a', 'named', 'Reconciled');
    h.kubectl(['delete', 'secret', 'sig', '-n', 'team-a']);
    await h.waitReason('team-a', 'named', 'SecretNotFound');
    await eventually('repeat counted', () => h.events('team-a', 'named').some((e) => e.reason === 'SecretNotFound' && e.count === 2)).catch((err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify(h.events('team-a', 'named').map((e) => [e.reason, e.count, e.message]))}`);
    });
    // Deletion: the finalizer comes off.
    h.kubectl(['delete', 'mwh', 'generated', 'named', '-n', 'team-a', '--wait=true', '--timeout=30s']);
    // The Lease renewed at least once (update).
    await new Promise((r) => setTimeout(r, 2000));
    const { calls, forbidden } = used(await h.metrics(port));
    expect(forbidden).toEqual([]);
    // Checked on the Secret's server-side apply, never requested as such: create on secrets (the apply
    // that makes it) and update on webhooksubscriptions/finalizers (the admission plugin, for blockOwnerDeletion).
    expect(granted.get('webhooksubscriptions/finalizers')).toEqual(new Set(['update']));
    granted.delete('webhooksubscriptions/finalizers');
    expect(granted.get('secrets')?.delete('create')).toBe(true);
    expect(sorted(calls)).toEqual(sorted(granted));
    expect(await p.stop()).toBe(0);
  }, 120_000);

  it('namespaced mode: Roles in the chosen namespaces only; resources elsewhere are left alone', async () => {
    h.kubectl(['delete', 'clusterrolebinding', 'rbac-mapintel-operator']);
    installRbac(h, ['operator.watchNamespaces={ns-x}']);
    const token = h.kubectl(['create', 'token', 'rbac-mapintel-operator', '-n', 'mapintel-system', '--duration=1h']).trim();
    const kubeconfig = h.cluster.tokenKubeconfig('operator-ns', token);
    const { p, port } = await h.startOperator('rbac-ns', kubeconfig, {
      OPERATOR_NAMESPACE: 'mapintel-system',
      OPERATOR_LEASE_NAME: 'rbac-mapintel-operator',
      OPERATOR_WATCH_NAMESPACES: 'ns-x',
    });
    await eventually('leads', () => h.leads(port, 'rbac-mapintel-operator'));
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    h.apply('ns-x', 'inside', { map: h.mapSlug, url: `${URL}/x`, events: ['*'], mapKeySecretRef: { name: 'map-key' } });
    h.apply('ns-y', 'outside', { map: h.mapSlug, url: `${URL}/y`, events: ['*'], mapKeySecretRef: { name: 'map-key' } });
    await h.waitReason('ns-x', 'inside', 'Reconciled', 'True');
    await new Promise((r) => setTimeout(r, 1500));
    const outside = h.getCr('ns-y', 'outside')!;
    expect(outside.metadata.finalizers).toBeUndefined();
    expect(outside.status).toBeUndefined();
    expect(used(await h.metrics(port)).forbidden).toEqual([]);

    // The uninstall path, with the same rights, while the operator runs.
    const release = startCli(['release-finalizers'], {
      KUBECONFIG: kubeconfig,
      OPERATOR_NAMESPACE: 'mapintel-system',
      OPERATOR_LEASE_NAME: 'rbac-mapintel-operator',
      OPERATOR_LEASE_DURATION_SECONDS: '2',
      OPERATOR_WATCH_NAMESPACES: 'ns-x',
    });
    expect(await release.exited).toBe(0);
    expect(release.output()).toMatch(/released the finalizer of 1 WebhookSubscription resource/);
    expect(await h.leads(port, 'rbac-mapintel-operator')).toBe(false);
    const lease = JSON.parse(h.kubectl(['get', 'lease', 'rbac-mapintel-operator', '-n', 'mapintel-system', '-o', 'json'])) as {
      spec: { holderIdentity: string };
    };
    expect(lease.spec.holderIdentity).toBe('mapintel-release-finalizers');
    // The operator (as after helm uninstall) is gone; deleting the resource does not hang.
    expect(await p.stop()).toBe(0);
    expect(h.getCr('ns-x', 'inside')!.metadata.finalizers).toBeUndefined();
    expect(condition(h.getCr('ns-x', 'inside'), 'Ready')?.status).toBe('True');
    h.kubectl(['delete', 'mwh', 'inside', '-n', 'ns-x', '--wait=true', '--timeout=10s']);
    expect(h.getCr('ns-x', 'inside')).toBeUndefined();
  }, 120_000);
});
