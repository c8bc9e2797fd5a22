/**
 * The operator (`mapintel serve --roles operator`, the built CLI) against a real kube-apiserver,
 * etcd and kube-controller-manager: failing deliveries shown as Degraded and the subscription disabled
 * until an edit; reconciliation resumes after an apiserver restart; one leader of two, and a takeover
 * after SIGKILL; the chart's RBAC is enough. Setup: test/support/operator-suite.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeUnavailable, type TestCa, type TestCluster } from '../support/kube.js';
import { startCli, type CliProcess } from '../support/cli-process.js';
import type { TestServer } from '../support/app.js';
import { makeMap, makeSystem } from '../support/factories.js';
import { freePort } from '../support/redis-server.js';
import type { Receiver } from '../support/receiver.js';
import { CHART, condition, eventually } from '../support/operator-harness.js';
import { operatorSuiteHelpers, startOperatorSuite, stopOperatorSuite, type OperatorSuite, workerEnv } from '../support/operator-suite.js';

const unavailable = kubeUnavailable(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kubectl', 'helm']);

describe.skipIf(unavailable)('operator: WebhookSubscription resources on a real apiserver', () => {
  let suite: OperatorSuite;
  let cluster: TestCluster;
  let api: TestServer;
  let ca: TestCa;
  let receiver: Receiver;
  let mapSlug: string;
  let operator: CliProcess;
  let opsPort: number;
  let processes: CliProcess[];
  const { kubectl, getCr, apply, ready, eventReasons, startOperator, ops, isLeader } = operatorSuiteHelpers(() => suite);

  beforeAll(async () => {
    suite = await startOperatorSuite();
    ({ cluster, api, ca, receiver, mapSlug, operator, opsPort, processes } = suite);
  }, 180_000);

  afterAll(async () => {
    await stopOperatorSuite(suite);
  }, 60_000);

  it('shows failing deliveries as Degraded, the workers disabling the subscription, and resumes on an edit', async () => {
    const other = await makeMap(api.platform);
    const toggled = await api.fetch(`/api/maps/${other.map.id}/webhooks/toggle`, {
      method: 'PUT',
      token: other.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true }),
    });
    expect(toggled.status).toBe(200);
    kubectl(['create', 'secret', 'generic', 'other-key', '-n', 'team-b', `--from-literal=key=${other.key}`]);
    // Its generated secret is not one the receiver knows: every delivery is answered 401.
    apply('team-b', 'failing', { map: other.map.slug, url: `${receiver.url}/fail`, events: ['add_system'], mapKeySecretRef: { name: 'other-key' } });
    await ready('team-b', 'failing');
    const port = await freePort();
    const worker = startCli(['serve', '--roles', 'worker'], workerEnv(api, ca, port, { WEBHOOK_RETRY_WAITS: '100ms', WEBHOOK_DISABLE_AFTER: '2' }));
    processes.push(worker);
    await eventually('worker ready', async () => (await ops(port, '/readyz')).status === 200, 30_000);

    await makeSystem(api.platform, other.map.id, 31000005);
    // One event of two given up: 50 % of the threshold.
    const failing = await eventually('HalfwayToDisable', () => {
      const c = getCr('team-b', 'failing');
      return condition(c, 'Degraded')?.reason === 'HalfwayToDisable' && c?.status?.consecutiveFailures === 1 ? c : undefined;
    });
    expect(failing.status).toMatchObject({ consecutiveFailures: 1 });
    expect(failing.status!.lastError).toMatch(/401/);
    expect(condition(failing, 'Ready')!.status).toBe('True');

    await makeSystem(api.platform, other.map.id, 30000142);
    const disabled = await eventually('DisabledAfterFailures', () => {
      const c = getCr('team-b', 'failing');
      return condition(c, 'Degraded')?.reason === 'DisabledAfterFailures' ? c : undefined;
    });
    expect(disabled.status!.consecutiveFailures).toBe(2);
    expect((await api.platform.webhooks.getManaged('kubernetes:team-b/failing'))!.active).toBe(false);
    // The operator does not switch it back on by itself.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await api.platform.webhooks.getManaged('kubernetes:team-b/failing'))!.active).toBe(false);
    await eventually('Warning events', () => {
      const reasons = eventReasons('team-b', 'failing');
      return reasons.includes('HalfwayToDisable') && reasons.includes('DisabledAfterFailures');
    });

    // An edit of the resource applies it again: active, failures reset.
    apply('team-b', 'failing', {
      map: other.map.slug,
      url: `${receiver.url}/fail`,
      events: ['add_system', 'deleted_system'],
      mapKeySecretRef: { name: 'other-key' },
    });
    const resumed = await ready('team-b', 'failing', 2);
    const sub = await api.platform.webhooks.getManaged('kubernetes:team-b/failing');
    expect(sub).toMatchObject({ active: true, consecutiveFailures: 0 });
    expect(await eventually('Recovered', () => condition(getCr('team-b', 'failing'), 'Degraded')?.status === 'False')).toBe(true);
    expect(resumed.status!.observedGeneration).toBe(2);
    kubectl(['delete', 'webhooksubscriptions.mapintel.io', 'failing', '-n', 'team-b', '--wait=true', '--timeout=30s']);
    expect(await worker.stop()).toBe(0);
  }, 90_000);

  it('resumes reconciling after the apiserver restarts; a replica without a watch for too long turns not ready meanwhile', async () => {
    const watcher = await startOperator('operator-watcher', undefined, { OPERATOR_WATCH_FAILURE_UNREADY_SECONDS: '2' });
    await eventually('watcher synced', async () => (await ops(watcher.port, '/readyz')).status === 200);
    await cluster.stopApiserver();
    // Synced caches, but no list or watch for more than 2 s: /readyz 503, /healthz still 200.
    await eventually('watcher not ready', async () => (await ops(watcher.port, '/readyz')).status === 503, 20_000);
    expect((await ops(watcher.port, '/healthz')).status).toBe(200);
    await cluster.startApiserver();
    await eventually('watcher ready again', async () => (await ops(watcher.port, '/readyz')).status === 200, 30_000);
    expect(await watcher.p.stop()).toBe(0);
    apply('team-a', 'after-restart', { map: mapSlug, url: `${receiver.url}/after`, events: ['*'] });
    const cr = await ready('team-a', 'after-restart');
    expect(await api.platform.webhooks.getManaged('kubernetes:team-a/after-restart')).toMatchObject({ id: cr.status!.subscriptionId });
    expect(operator.child.exitCode).toBeNull();
    // The watches were cut, retried while the apiserver was away, then told their resource version was gone (410) and listed again.
    const messages = operator.logs().map((l) => l.msg);
    expect(messages).toContain('list or watch failed; retrying');
    expect(messages).toContain('watch expired (410), listing again');
  }, 90_000);

  it('runs one leader of two; the other takes over within the lease time after SIGKILL', async () => {
    const b = await startOperator('operator-b');
    await eventually('b synced', async () => (await ops(b.port, '/readyz')).status === 200);
    await new Promise((r) => setTimeout(r, 1500));
    expect([await isLeader(opsPort), await isLeader(b.port)]).toEqual([true, false]);
    const lease = JSON.parse(kubectl(['get', 'lease', 'mapintel-operator-test', '-n', 'default', '-o', 'json'])) as { spec: { holderIdentity: string } };
    expect(lease.spec.holderIdentity).toBe('operator-a');

    const killedAt = Date.now();
    operator.child.kill('SIGKILL');
    await eventually('b leads', () => isLeader(b.port), 15_000);
    // Lease of 4 s, observed from b's clock, plus one retry period.
    expect(Date.now() - killedAt).toBeLessThan(4_000 + 2_000 + 1_500);
    apply('team-b', 'after-takeover', { map: mapSlug, url: `${receiver.url}/takeover`, events: ['*'] });
    await ready('team-b', 'after-takeover');

    // SIGTERM releases the lease at once.
    const c = await startOperator('operator-c');
    await eventually('c synced', async () => (await ops(c.port, '/readyz')).status === 200);
    const stoppedAt = Date.now();
    expect(await b.p.stop()).toBe(0);
    await eventually('c leads', () => isLeader(c.port), 10_000);
    expect(Date.now() - stoppedAt).toBeLessThan(3_000);
    // What a pod deletion does (SIGTERM): a resource made then is reconciled by the new leader, from the
    // cache it kept warm as a standby.
    apply('team-b', 'after-release', { map: mapSlug, url: `${receiver.url}/release`, events: ['*'] });
    await ready('team-b', 'after-release');
    expect(await c.p.stop()).toBe(0);
  }, 90_000);

  it('works with only the chart’s RBAC, through a ServiceAccount token', async () => {
    kubectl(['create', 'namespace', 'mapintel-system']);
    const rbac = cluster.helm([
      'template',
      'rbac',
      CHART,
      '--namespace',
      'mapintel-system',
      '--show-only',
      'templates/rbac.yaml',
      '--show-only',
      'templates/serviceaccount.yaml',
    ]);
    kubectl(['apply', '-n', 'mapintel-system', '-f', '-'], rbac);
    const token = kubectl(['create', 'token', 'rbac-mapintel-operator', '-n', 'mapintel-system', '--duration=1h']).trim();
    const kubeconfig = cluster.tokenKubeconfig('operator-sa', token);
    // Not a superuser: listing Pods is refused.
    expect(() => cluster.kubectl(['--kubeconfig', kubeconfig, 'get', 'pods', '-A'])).toThrow(/forbidden/i);
    const { p, port } = await startOperator('operator-rbac', kubeconfig, {
      OPERATOR_NAMESPACE: 'mapintel-system',
      OPERATOR_LEASE_NAME: 'rbac-mapintel-operator',
    });
    await eventually(
      'rbac operator leads',
      async () => /leader_election_master_status\{name="rbac-mapintel-operator"\} 1/.test(await (await ops(port, '/metrics')).text()),
      20_000,
    );
    apply('team-a', 'rbac-made', { map: mapSlug, url: `${receiver.url}/rbac`, events: ['*'] });
    const cr = await ready('team-a', 'rbac-made');
    expect(cr.metadata.finalizers).toEqual(['mapintel.io/subscription']);
    await eventually('Events recorded with the token', () => eventReasons('team-a', 'rbac-made').includes('SubscriptionCreated'));
    kubectl(['delete', 'webhooksubscriptions.mapintel.io', 'rbac-made', '-n', 'team-a', '--wait=true', '--timeout=30s']);
    expect(await api.platform.webhooks.getManaged('kubernetes:team-a/rbac-made')).toBeUndefined();
    const metrics = await (await ops(port, '/metrics')).text();
    expect(metrics).not.toMatch(/mapintel_operator_apiserver_requests_total\{[^}]*code="403"/);
    expect(p.output()).not.toContain(token);
    expect(await p.stop()).toBe(0);
  }, 90_000);
});
