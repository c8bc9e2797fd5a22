/**
 * The operator (`mapintel serve --roles operator`, the built CLI) against a real kube-apiserver,
 * etcd and kube-controller-manager, over the machine's PostgreSQL and Redis: WebhookSubscription
 * resources become platform subscriptions with an owned Secret, status conditions, a finalizer and
 * Events; reconciliation resumes after an apiserver restart; one leader of two, and a takeover after
 * SIGKILL; the chart's RBAC is enough; a delivery through a resource-made subscription reaches a
 * loopback receiver and shows in the resource's status.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeUnavailable, TestCluster, type TestCa } from '../support/kube.js';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { startTestServer, TEST_ENCRYPTION_KEY, type TestServer } from '../support/app.js';
import { importFixture, makeMap, makeSystem } from '../support/factories.js';
import { freePort } from '../support/redis-server.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { apiRole } from '../../src/api/api.role.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/db.js';

const unavailable = kubeUnavailable(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kubectl', 'helm']);
const CHART = path.resolve('charts/mapintel');

interface Cr {
  metadata: { name: string; namespace: string; finalizers?: string[]; generation: number; uid: string; deletionTimestamp?: string };
  spec: Record<string, unknown>;
  status?: {
    observedGeneration?: number;
    subscriptionId?: string;
    mapId?: string;
    secretName?: string;
    lastDeliveryAt?: string;
    consecutiveFailures?: number;
    lastError?: string;
    conditions?: { type: string; status: string; reason: string; message: string; observedGeneration?: number }[];
  };
}

async function eventually<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
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

const condition = (cr: Cr | undefined, type: string) => cr?.status?.conditions?.find((c) => c.type === type);

describe.skipIf(unavailable)('operator: WebhookSubscription resources on a real apiserver', () => {
  let cluster: TestCluster;
  let api: TestServer;
  let ca: TestCa;
  let receiver: Receiver;
  let mapId: string;
  let mapSlug: string;
  let mapKey: string;
  let operator: CliProcess;
  let opsPort: number;
  const processes: CliProcess[] = [];

  const kubectl = (args: string[], input?: string) => cluster.kubectl(args, input);
  const getCr = (ns: string, name: string): Cr | undefined => {
    try {
      return JSON.parse(kubectl(['get', 'webhooksubscriptions.mapintel.io', name, '-n', ns, '-o', 'json'])) as Cr;
    } catch (err) {
      if (/NotFound/.test((err as Error).message)) return undefined;
      throw err;
    }
  };
  // Every resource proves it may read the map with the Secret map-key of its namespace (a key of the test map), unless it names another.
  const apply = (ns: string, name: string, spec: Record<string, unknown>) =>
    kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'mapintel.io/v1alpha1',
        kind: 'WebhookSubscription',
        metadata: { name, namespace: ns },
        spec: { mapKeySecretRef: { name: 'map-key' }, ...spec },
      }),
    );
  const ready = (ns: string, name: string, generation?: number) =>
    eventually(`${ns}/${name} Ready`, () => {
      const cr = getCr(ns, name);
      const c = condition(cr, 'Ready');
      return c?.status === 'True' && (generation === undefined || cr!.status!.observedGeneration === generation) ? cr : undefined;
    });
  const eventReasons = (ns: string, name: string): string[] =>
    (
      JSON.parse(kubectl(['get', 'events', '-n', ns, '--field-selector', `involvedObject.name=${name}`, '-o', 'json'])) as {
        items: { reason: string; source: { component: string } }[];
      }
    ).items
      .filter((e) => e.source.component === 'mapintel-operator')
      .map((e) => e.reason);

  const operatorEnv = (kubeconfig: string, extra: Record<string, string> = {}): Record<string, string> => ({
    KUBECONFIG: kubeconfig,
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: api.config.databaseSchema,
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
  });
  const startOperator = async (identity: string, kubeconfig = cluster.kubeconfigFile, extra: Record<string, string> = {}) => {
    const port = await freePort();
    const p = startCli(['serve', '--roles', 'operator'], operatorEnv(kubeconfig, { OPS_PORT: String(port), OPERATOR_IDENTITY: identity, ...extra }));
    processes.push(p);
    return { p, port };
  };
  const ops = (port: number, p: string) => fetch(`http://127.0.0.1:${port}${p}`);
  const isLeader = async (port: number) => /leader_election_master_status\{name="mapintel-operator-test"\} 1/.test(await (await ops(port, '/metrics')).text());

  beforeAll(async () => {
    cluster = await TestCluster.start({ controllerManager: true });
    kubectl(['apply', '--server-side', '-f', path.join(CHART, 'crds')]);
    kubectl(['wait', '--for=condition=Established', '--timeout=30s', 'crd/webhooksubscriptions.mapintel.io']);
    api = await startTestServer({
      roles: [apiRole],
      redis: true,
      env: { SERVICE_WEBHOOKS_ENABLED: 'true', SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true', EVENTS_RELAY_ENABLED: 'true' },
    });
    await importFixture(api.platform);
    const made = await makeMap(api.platform);
    mapId = made.map.id;
    mapSlug = made.map.slug;
    mapKey = made.key;
    const toggled = await api.fetch(`/api/maps/${mapId}/webhooks/toggle`, {
      method: 'PUT',
      token: mapKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true }),
    });
    expect(toggled.status).toBe(200);
    ca = cluster.ca;
    const cert = ca.issue('receiver', '/CN=127.0.0.1', 'IP:127.0.0.1');
    receiver = await startReceiver({ tls: { cert: readFileSync(cert.cert), key: readFileSync(cert.key) } });
    for (const ns of ['team-a', 'team-b']) {
      kubectl(['create', 'namespace', ns]);
      kubectl(['create', 'secret', 'generic', 'map-key', '-n', ns, `--from-literal=key=${mapKey}`]);
    }
    const started = await startOperator('operator-a');
    operator = started.p;
    opsPort = started.port;
  }, 180_000);

  afterAll(async () => {
    for (const p of processes) await p.stop().catch(() => undefined);
    if (process.env.DUMP_OPERATOR_LOGS) processes.forEach((p, i) => writeFileSync(`${process.env.DUMP_OPERATOR_LOGS}/process-${i}.log`, p.output()));
    await receiver?.close();
    await api?.close();
    await cluster?.stop();
  }, 60_000);

  it('answers /readyz 503 while it cannot sync its caches, and 200 with the lease once synced', async () => {
    const dead = cluster.tokenKubeconfig('dead', 'nothing');
    writeFileSync(dead, readFileSync(dead, 'utf8').replace(cluster.server, `https://127.0.0.1:${await freePort()}`));
    const { p, port } = await startOperator('operator-unsynced', dead, { OPERATOR_LEASE_NAME: 'unsynced' });
    await p.waitForLog('operator started');
    const health = await ops(port, '/healthz');
    expect(health.status).toBe(200);
    const notReady = await ops(port, '/readyz');
    expect(notReady.status).toBe(503);
    expect(((await notReady.json()) as { checks: Record<string, boolean> }).checks).toMatchObject({ kubernetes: false, database: true });
    expect(await p.stop()).toBe(0);

    await eventually('operator ready', async () => (await ops(opsPort, '/readyz')).status === 200);
    await eventually('operator leads', () => isLeader(opsPort));
  });

  it('turns a resource into a subscription with a finalizer, an owned Secret, Ready status and Events', async () => {
    apply('team-a', 'alerts', { map: mapSlug, url: receiver.url, events: ['add_system', 'connection_added'] });
    const cr = await ready('team-a', 'alerts', 1);
    expect(cr.metadata.finalizers).toEqual(['mapintel.io/subscription']);
    expect(cr.status).toMatchObject({ observedGeneration: 1, mapId, secretName: 'alerts-webhook-secret', consecutiveFailures: 0 });
    expect(condition(cr, 'Degraded')).toMatchObject({ status: 'False', reason: 'DeliveriesSucceeding' });
    expect(condition(cr, 'Ready')).toMatchObject({ reason: 'Reconciled', observedGeneration: 1 });

    const sub = await api.platform.webhooks.getManaged('kubernetes:team-a/alerts');
    expect(sub).toMatchObject({
      id: cr.status!.subscriptionId,
      mapId,
      url: receiver.url,
      events: ['add_system', 'connection_added'],
      active: true,
      managedBy: 'kubernetes:team-a/alerts',
    });

    const secret = JSON.parse(kubectl(['get', 'secret', 'alerts-webhook-secret', '-n', 'team-a', '-o', 'json'])) as {
      data: { secret: string };
      metadata: { ownerReferences: { kind: string; name: string; uid: string; controller: boolean }[] };
    };
    expect(secret.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'WebhookSubscription', name: 'alerts', uid: cr.metadata.uid, controller: true }),
    ]);
    expect(Buffer.from(Buffer.from(secret.data.secret, 'base64').toString('utf8'), 'base64')).toHaveLength(32);

    await eventually('events recorded', () => {
      const reasons = eventReasons('team-a', 'alerts');
      return reasons.includes('SubscriptionCreated') ? reasons : undefined;
    });

    // Through the REST API the subscription is read-only.
    const put = await api.fetch(`/api/maps/${mapId}/webhooks/${sub!.id}`, {
      method: 'PUT',
      token: mapKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ active: false }),
    });
    expect(put.status).toBe(409);
    expect(((await put.json()) as { code: string }).code).toBe('managed_by_kubernetes');
  });

  it('applies a spec change once, records it and leaves an unchanged resource alone', async () => {
    apply('team-a', 'alerts', { map: mapId, url: receiver.url, events: ['*'] });
    const cr = await ready('team-a', 'alerts', 2);
    expect(condition(cr, 'Ready')!.observedGeneration).toBe(2);
    expect((await api.platform.webhooks.getManaged('kubernetes:team-a/alerts'))!.events).toEqual(['*']);
    await eventually('SubscriptionUpdated event', () => eventReasons('team-a', 'alerts').includes('SubscriptionUpdated'));

    const reconciles = async () =>
      Number(
        /controller_runtime_reconcile_total\{controller="webhooksubscription",result="success"\} (\d+)/.exec(
          await (await ops(opsPort, '/metrics')).text(),
        )?.[1] ?? 0,
      );
    const writes = async () =>
      [
        ...(await (await ops(opsPort, '/metrics')).text()).matchAll(
          /mapintel_operator_apiserver_requests_total\{verb="(PUT|PATCH|POST)",resource="(?!leases)[^"]*"[^}]*\} (\d+)/g,
        ),
      ].reduce((n, m) => n + Number(m[2]), 0);
    const before = [await reconciles(), await writes()];
    await new Promise((r) => setTimeout(r, 1500));
    expect([await reconciles(), await writes()]).toEqual(before);
  });

  it('uses spec.secretRef, reports a missing Secret and recovers when it appears', async () => {
    apply('team-b', 'own-secret', { map: mapSlug, url: `${receiver.url}/b`, events: ['map_kill'], secretRef: { name: 'hook-secret', key: 'token' } });
    const waiting = await eventually('SecretNotFound', () => {
      const cr = getCr('team-b', 'own-secret');
      return condition(cr, 'Ready')?.reason === 'SecretNotFound' ? cr : undefined;
    });
    expect(condition(waiting, 'Ready')).toMatchObject({ status: 'False', message: 'Secret team-b/hook-secret not found' });
    expect(await api.platform.webhooks.getManaged('kubernetes:team-b/own-secret')).toBeUndefined();

    kubectl(['create', 'secret', 'generic', 'hook-secret', '-n', 'team-b', '--from-literal=token=a-signing-secret-of-the-team-b']);
    const cr = await ready('team-b', 'own-secret');
    expect(cr.status!.secretName).toBe('hook-secret');
    expect(() => kubectl(['get', 'secret', 'own-secret-webhook-secret', '-n', 'team-b'])).toThrow(/NotFound/);
    await eventually('Warning then Ready events', () => {
      const reasons = eventReasons('team-b', 'own-secret');
      return reasons.includes('SecretNotFound') && reasons.includes('Ready');
    });
  });

  it('reports a map that does not exist without creating anything, and the CRD refuses an http URL', async () => {
    apply('team-b', 'no-map', { map: 'no-such-map', url: `${receiver.url}/none`, events: ['*'] });
    const cr = await eventually('MapNotFound', () => {
      const c = getCr('team-b', 'no-map');
      return condition(c, 'Ready')?.reason === 'MapNotFound' ? c : undefined;
    });
    expect(condition(cr, 'Degraded')).toMatchObject({ status: 'True', reason: 'MapNotFound' });
    expect(await api.platform.webhooks.getManaged('kubernetes:team-b/no-map')).toBeUndefined();
    expect(() => apply('team-b', 'plain-http', { map: mapSlug, url: 'http://example.com/hook', events: ['*'] })).toThrow(/spec.url/);
    expect(() => apply('team-b', 'bad-event', { map: mapSlug, url: 'https://example.com/hook', events: ['nope'] })).toThrow(/spec.events/);
    // spec.map takes every slug a map can have (up to 100 characters, a trailing dash included), and no more.
    apply('team-b', 'long-slug', { map: `${'a'.repeat(99)}-`, url: `${receiver.url}/long`, events: ['*'] });
    await eventually('MapNotFound for the long slug', () => condition(getCr('team-b', 'long-slug'), 'Ready')?.reason === 'MapNotFound');
    kubectl(['delete', 'webhooksubscriptions.mapintel.io', 'long-slug', '-n', 'team-b', '--wait=true']);
    expect(() => apply('team-b', 'too-long-slug', { map: 'a'.repeat(101), url: 'https://example.com/hook', events: ['*'] })).toThrow(/spec.map/);
    // A URL the service refuses: InvalidURL, its reason said once.
    apply('team-b', 'with-password', { map: mapSlug, url: 'https://user:pw@example.com/hook', events: ['*'] });
    const refused = await eventually('InvalidURL', () => {
      const c = getCr('team-b', 'with-password');
      return condition(c, 'Ready')?.reason === 'InvalidURL' ? c : undefined;
    });
    expect(condition(refused, 'Ready')!.message).toBe('Webhook URL refused: must not carry credentials');
    kubectl(['delete', 'webhooksubscriptions.mapintel.io', 'with-password', '-n', 'team-b', '--wait=true']);
  });

  it('keeps a refused spec change refused (the subscription keeps its last applied settings) until it can be applied', async () => {
    apply('team-a', 'moving', { map: mapId, url: `${receiver.url}/moving`, events: ['*'] });
    await ready('team-a', 'moving');
    const before = (await api.platform.webhooks.getManaged('kubernetes:team-a/moving'))!;
    apply('team-a', 'moving', { map: 'no-such-map', url: `${receiver.url}/moving`, events: ['*'] });
    await eventually('MapNotFound', () => condition(getCr('team-a', 'moving'), 'Ready')?.reason === 'MapNotFound');
    // A delivery outcome on the subscription (as the workers record one) makes the status refresh
    // (every 300 ms here) reconcile the resource again: it must stay refused, not pass for applied.
    await api.platform.orm.em
      .fork()
      .getConnection()
      .execute(`update webhook_subscriptions set last_delivery_at = now() where managed_by = 'kubernetes:team-a/moving'`);
    await new Promise((r) => setTimeout(r, 2_000));
    const cr = getCr('team-a', 'moving')!;
    expect(condition(cr, 'Ready')).toMatchObject({ status: 'False', reason: 'MapNotFound' });
    expect(condition(cr, 'Degraded')).toMatchObject({ status: 'True', reason: 'MapNotFound' });
    const during = (await api.platform.webhooks.getManaged('kubernetes:team-a/moving'))!;
    expect({ id: during.id, mapId: during.mapId, active: during.active }).toEqual({ id: before.id, mapId: before.mapId, active: true });
    // Pointed at an existing map again, it is Ready again.
    apply('team-a', 'moving', { map: mapSlug, url: `${receiver.url}/moving`, events: ['*'] });
    await ready('team-a', 'moving', 3);
    kubectl(['delete', 'webhooksubscriptions.mapintel.io', 'moving', '-n', 'team-a', '--wait=true']);
  });

  it('removes the subscription on delete, then the finalizer; the owned Secret is garbage-collected', async () => {
    apply('team-a', 'short-lived', { map: mapSlug, url: `${receiver.url}/short`, events: ['*'] });
    await ready('team-a', 'short-lived');
    expect(await api.platform.webhooks.getManaged('kubernetes:team-a/short-lived')).toBeDefined();
    kubectl(['delete', 'webhooksubscriptions.mapintel.io', 'short-lived', '-n', 'team-a', '--wait=true', '--timeout=30s']);
    expect(getCr('team-a', 'short-lived')).toBeUndefined();
    expect(await api.platform.webhooks.getManaged('kubernetes:team-a/short-lived')).toBeUndefined();
    await eventually(
      'owned Secret collected',
      () =>
        /NotFound/.test(
          (() => {
            try {
              return kubectl(['get', 'secret', 'short-lived-webhook-secret', '-n', 'team-a']);
            } catch (e) {
              return (e as Error).message;
            }
          })(),
        ),
      // The garbage collector rediscovers resource types (the CRD) every 30 s.
      75_000,
    );
  }, 90_000);

  it('delivers a map event through a resource-made subscription to an https receiver and shows it in the status', async () => {
    const secret = JSON.parse(kubectl(['get', 'secret', 'alerts-webhook-secret', '-n', 'team-a', '-o', 'json'])) as { data: { secret: string } };
    receiver.secrets = [Buffer.from(secret.data.secret, 'base64').toString('utf8')];
    const port = await freePort();
    const worker = startCli(['serve', '--roles', 'worker'], {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: api.config.databaseSchema,
      DATABASE_POOL_MAX: '4',
      SERVICE_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: api.config.redisKeyPrefix,
      SERVICE_WEBHOOKS_ENABLED: 'true',
      SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true',
      NODE_EXTRA_CA_CERTS: ca.certFile,
      OPS_PORT: String(port),
      OPS_HOST: '127.0.0.1',
      PORT: '0',
      SERVICE_SHUTDOWN_TIMEOUT_MS: '3000',
    });
    processes.push(worker);
    await eventually('worker ready', async () => (await ops(port, '/readyz')).status === 200, 30_000);
    await makeSystem(api.platform, mapId, 31000005);
    const [hit] = await receiver.waitFor(1, 20_000, (r) => r.verified && r.path === '/hook');
    expect(JSON.parse(hit!.body)).toMatchObject({ type: 'add_system', map_id: mapId });
    const cr = await eventually('lastDeliveryAt in status', () => {
      const c = getCr('team-a', 'alerts');
      return c?.status?.lastDeliveryAt ? c : undefined;
    });
    expect(Date.parse(cr.status!.lastDeliveryAt!)).toBeGreaterThan(Date.now() - 60_000);
    expect(cr.status!.consecutiveFailures).toBe(0);
    expect(await worker.stop()).toBe(0);
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
    const worker = startCli(['serve', '--roles', 'worker'], {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: api.config.databaseSchema,
      DATABASE_POOL_MAX: '4',
      SERVICE_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: api.config.redisKeyPrefix,
      SERVICE_WEBHOOKS_ENABLED: 'true',
      SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true',
      WEBHOOK_RETRY_WAITS: '100ms',
      WEBHOOK_DISABLE_AFTER: '2',
      NODE_EXTRA_CA_CERTS: ca.certFile,
      OPS_PORT: String(port),
      OPS_HOST: '127.0.0.1',
      PORT: '0',
      SERVICE_SHUTDOWN_TIMEOUT_MS: '3000',
    });
    processes.push(worker);
    await eventually('worker ready', async () => (await ops(port, '/readyz')).status === 200, 30_000);

    await makeSystem(api.platform, other.map.id, 31000005);
    const failing = await eventually('DeliveryFailing', () => {
      const c = getCr('team-b', 'failing');
      return condition(c, 'Degraded')?.reason === 'DeliveryFailing' && c?.status?.consecutiveFailures === 1 ? c : undefined;
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
      return reasons.includes('DeliveryFailing') && reasons.includes('DisabledAfterFailures');
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

  it('resumes reconciling after the apiserver restarts', async () => {
    await cluster.stopApiserver();
    await new Promise((r) => setTimeout(r, 1000));
    await cluster.startApiserver();
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
