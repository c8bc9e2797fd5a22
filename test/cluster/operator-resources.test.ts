/**
 * The operator (`mapintel serve --roles operator`, the built CLI) against a real kube-apiserver,
 * etcd and kube-controller-manager, over the machine's PostgreSQL and Redis: readiness while it cannot
 * sync; WebhookSubscription resources become platform subscriptions with an owned Secret, status
 * conditions, a finalizer and Events; spec changes, refusals and deletes; a delivery through a
 * resource-made subscription reaches a loopback https receiver and shows in the resource's status.
 * Setup: test/support/operator-suite.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeUnavailable, type TestCa, type TestCluster } from '../support/kube.js';
import { startCli, type CliProcess } from '../support/cli-process.js';
import type { TestServer } from '../support/app.js';
import { makeSystem } from '../support/factories.js';
import { freePort } from '../support/redis-server.js';
import type { Receiver } from '../support/receiver.js';
import { condition, eventually } from '../support/operator-harness.js';
import { operatorSuiteHelpers, startOperatorSuite, stopOperatorSuite, type OperatorSuite, workerEnv } from '../support/operator-suite.js';

const unavailable = kubeUnavailable(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kubectl', 'helm']);

describe.skipIf(unavailable)('operator: WebhookSubscription resources on a real apiserver', () => {
  let suite: OperatorSuite;
  let cluster: TestCluster;
  let api: TestServer;
  let ca: TestCa;
  let receiver: Receiver;
  let mapId: string;
  let mapSlug: string;
  let mapKey: string;
  let opsPort: number;
  let processes: CliProcess[];
  const { kubectl, getCr, apply, ready, eventReasons, startOperator, ops, isLeader } = operatorSuiteHelpers(() => suite);

  beforeAll(async () => {
    suite = await startOperatorSuite();
    ({ cluster, api, ca, receiver, mapId, mapSlug, mapKey, opsPort, processes } = suite);
  }, 180_000);

  afterAll(async () => {
    await stopOperatorSuite(suite);
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
    // Credentials in the URL: the CRD's CEL rule refuses it at apply, before any operator sees it.
    expect(() => apply('team-b', 'with-password', { map: mapSlug, url: 'https://user:pw@example.com/hook', events: ['*'] })).toThrow(
      /spec.url must not carry credentials/,
    );
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
    // Nothing delivers before this worker starts: every delivery time it records is later than this.
    const startedAt = Date.now();
    const worker = startCli(['serve', '--roles', 'worker'], workerEnv(api, ca, port));
    processes.push(worker);
    await eventually('worker ready', async () => (await ops(port, '/readyz')).status === 200, 30_000);
    await makeSystem(api.platform, mapId, 31000005);
    const [hit] = await receiver.waitFor(1, 20_000, (r) => r.verified && r.path === '/hook');
    expect(JSON.parse(hit!.body)).toMatchObject({ type: 'add_system', map_id: mapId });
    const cr = await eventually('lastDeliveryAt in status', () => {
      const c = getCr('team-a', 'alerts');
      return c?.status?.lastDeliveryAt ? c : undefined;
    });
    // A delivery of this worker's, not an earlier time (the subscription's own start in the first test,
    // seconds ago, also met the 'within the last 60 s' once asserted).
    expect(Date.parse(cr.status!.lastDeliveryAt!)).toBeGreaterThanOrEqual(startedAt);
    expect(Date.parse(cr.status!.lastDeliveryAt!)).toBeLessThanOrEqual(Date.now());
    expect(cr.status!.consecutiveFailures).toBe(0);
    expect(await worker.stop()).toBe(0);
  }, 60_000);
});
