/**
 * The operator on a real kube-apiserver: a WebhookSubscription must prove with a map key that it may
 * read the map (re-checked on revocation); its status says what the workers know (map webhooks off,
 * failing attempts, disabled), with Progressing before the first outcome and one Event per outcome
 * (repeats counted); writes carry the field manager mapintel-operator; nothing is generated for a
 * refused resource; a host that does not resolve yet is retried; unrelated Secrets cost it nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { kubeUnavailable } from '../support/kube.js';
import { condition, eventually, metricValue, OperatorHarness, type Cr } from '../support/operator-harness.js';
import { makeMap } from '../support/factories.js';
import { dbOf } from '../../src/db/db.js';
import { SubscriptionRepository } from '../../src/webhooks/subscription.repository.js';
import { WebhookService } from '../../src/webhooks/webhook.service.js';
import { KubeClient } from '../../src/operator/kube-client.js';
import { EventRecorder } from '../../src/operator/event-recorder.js';
import { operatorMetrics } from '../../src/operator/operator.metrics.js';
import { WebhookSubscriptionController } from '../../src/operator/webhook-subscription.controller.js';
import { DbMapFacts } from '../../src/operator/map-facts.js';
import { createLogger } from '../../src/common/log.js';
import { createMetrics } from '../../src/common/metrics.js';

const unavailable = kubeUnavailable(['etcd', 'kube-apiserver', 'kubectl', 'helm']);
const URL = 'https://127.0.0.1:9/hook';

describe.skipIf(unavailable)('operator: tenancy, honest status, Events, field manager, memory', () => {
  let h: OperatorHarness;
  let opsPort: number;
  const subs = new SubscriptionRepository();

  beforeAll(async () => {
    h = await OperatorHarness.start();
    for (const ns of ['team-a', 'team-b', 'dns']) h.kubectl(['create', 'namespace', ns]);
    h.secret('team-a', 'map-key', 'key', h.mapKey);
    const started = await h.startOperator('tenancy', h.cluster.kubeconfigFile, { OPERATOR_WATCH_NAMESPACES: 'team-a,team-b' });
    opsPort = started.port;
    await eventually('operator leads', () => h.leads(opsPort));
  }, 180_000);

  afterAll(async () => {
    await h?.stop();
  }, 60_000);

  it('refuses a resource without a key of its map, with a clear condition, and creates nothing for it', async () => {
    const other = await makeMap(h.api.platform);
    h.secret('team-b', 'other-key', 'key', other.key);
    h.secret('team-b', 'made-up', 'key', 'k'.repeat(40));
    h.apply('team-a', 'no-key', { map: h.mapSlug, url: `${URL}/a`, events: ['*'] });
    h.apply('team-b', 'foreign', { map: h.mapSlug, url: `${URL}/b`, events: ['*'], mapKeySecretRef: { name: 'other-key' } });
    h.apply('team-b', 'made-up', { map: h.mapSlug, url: `${URL}/c`, events: ['*'], mapKeySecretRef: { name: 'made-up' } });
    h.apply('team-b', 'no-secret', { map: h.mapSlug, url: `${URL}/d`, events: ['*'], mapKeySecretRef: { name: 'absent' } });
    const cases: [string, string, string, RegExp][] = [
      ['team-a', 'no-key', 'MapKeyRequired', /spec.mapKeySecretRef must name a Secret of namespace team-a/],
      ['team-b', 'foreign', 'MapKeyOtherMap', /key of another map/],
      ['team-b', 'made-up', 'MapKeyInvalid', /holds no key of any map/],
      ['team-b', 'no-secret', 'MapKeySecretNotFound', /Secret team-b\/absent \(spec.mapKeySecretRef\) not found/],
    ];
    for (const [ns, name, reason, message] of cases) {
      const cr = await h.waitReason(ns, name, reason, 'False');
      expect(condition(cr, 'Ready')!.message).toMatch(message);
      expect(condition(cr, 'Degraded')).toMatchObject({ status: 'True', reason });
      expect(await h.api.platform.webhooks.getManaged(`kubernetes:${ns}/${name}`)).toBeUndefined();
      // No signing Secret is generated for a refused resource.
      expect(h.exists('secret', ns, `${name}-webhook-secret`)).toBe(false);
      expect(h.events(ns, name).map((e) => [e.type, e.reason])).toContainEqual(['Warning', reason]);
    }
    // With a key of the map it names, it is applied.
    h.apply('team-a', 'no-key', { map: h.mapSlug, url: `${URL}/a`, events: ['*'], mapKeySecretRef: { name: 'map-key' } });
    const cr = await h.waitReason('team-a', 'no-key', 'Reconciled', 'True');
    expect(cr.status).toMatchObject({ mapId: h.mapId, mapKeyId: h.mapKeyId, secretName: 'no-key-webhook-secret' });
    expect(await h.api.platform.webhooks.getManaged('kubernetes:team-a/no-key')).toMatchObject({ id: cr.status!.subscriptionId });
  });

  it('re-checks the key: a revoked key removes the subscription; a live key in the Secret brings it back', async () => {
    const issue = () => h.api.platform.admin.issueKey(h.mapId, { character_eve_id: h.ownerEveId });
    const first = await issue();
    h.secret('team-a', 'rotating-key', 'key', first.api_key);
    h.apply('team-a', 'rotating', { map: h.mapId, url: `${URL}/rot`, events: ['*'], mapKeySecretRef: { name: 'rotating-key' } });
    await h.waitReason('team-a', 'rotating', 'Reconciled', 'True');
    await h.api.platform.admin.revokeKey(h.mapId, first.id);
    const revoked = await h.waitReason('team-a', 'rotating', 'MapKeyRevoked', 'False');
    expect(revoked.status!.subscriptionId).toBeUndefined();
    expect(await h.api.platform.webhooks.getManaged('kubernetes:team-a/rotating')).toBeUndefined();
    expect(h.events('team-a', 'rotating').map((e) => e.reason)).toEqual(expect.arrayContaining(['SubscriptionWithdrawn', 'MapKeyRevoked']));
    // A new key in the Secret: the Secret's change queues the resource.
    h.secret('team-a', 'rotating-key', 'key', (await issue()).api_key);
    const back = await h.waitReason('team-a', 'rotating', 'Reconciled', 'True');
    expect(await h.api.platform.webhooks.getManaged('kubernetes:team-a/rotating')).toMatchObject({ id: back.status!.subscriptionId });
  });

  it('is Ready=False while the map’s webhooks are off, Degraded while attempts fail, Ready=False once disabled: a Warning each time', async () => {
    const quiet = await makeMap(h.api.platform);
    h.secret('team-b', 'quiet-key', 'key', quiet.key);
    h.apply('team-b', 'quiet', { map: quiet.map.slug, url: `${URL}/quiet`, events: ['*'], mapKeySecretRef: { name: 'quiet-key' } });
    const off = await h.waitReason('team-b', 'quiet', 'MapWebhooksDisabled', 'False');
    expect(condition(off, 'Ready')!.message).toContain(`PUT /api/maps/${quiet.map.id}/webhooks/toggle {"enabled": true}`);
    expect(condition(off, 'Degraded')).toMatchObject({ status: 'True', reason: 'MapWebhooksDisabled' });
    expect(h.kubectl(['get', 'mwh', 'quiet', '-n', 'team-b'])).toMatch(/False\s+MapWebhooksDisabled/);

    await h.toggle(quiet.map.id, quiet.key, true);
    await h.waitReason('team-b', 'quiet', 'Reconciled', 'True');
    const id = (await h.api.platform.webhooks.getManaged('kubernetes:team-b/quiet'))!.id;
    const db = dbOf(h.api.platform.orm);
    // An attempt fails (as the workers record it); the event is still being retried: no failure counted yet.
    await subs.recordError(db, id, 'HTTP 503');
    const failing = await eventually('DeliveryFailing', () => {
      const c = h.getCr('team-b', 'quiet');
      return condition(c, 'Degraded')?.reason === 'DeliveryFailing' ? c : undefined;
    });
    expect(failing.status!.consecutiveFailures).toBe(0);
    expect(condition(failing, 'Degraded')!.message).toMatch(/attempts are being retried; last error: HTTP 503/);
    expect(condition(failing, 'Ready')!.status).toBe('True');
    // Events exhaust their attempts, ten in a row disable it (as the workers record them): the owner
    // is warned at 50 % and at 90 % of the threshold before the disable.
    const degradedAs = (reason: string) =>
      eventually(reason, () => {
        const c = h.getCr('team-b', 'quiet');
        return condition(c, 'Degraded')?.reason === reason ? c : undefined;
      });
    for (let i = 0; i < 5; i++) await subs.recordExhausted(db, id, 'HTTP 503', 10);
    const halfway = await degradedAs('HalfwayToDisable');
    expect(halfway.status!.consecutiveFailures).toBe(5);
    expect(condition(halfway, 'Degraded')!.message).toMatch(/5 consecutive events given up; 50 % of the threshold reached/);
    for (let i = 0; i < 4; i++) await subs.recordExhausted(db, id, 'HTTP 503', 10);
    expect((await degradedAs('DisablingSoon')).status!.consecutiveFailures).toBe(9);
    await subs.recordExhausted(db, id, 'HTTP 503', 10);
    await h.waitReason('team-b', 'quiet', 'DisabledAfterFailures', 'False');
    await eventually('a Warning per transition', () => {
      const warnings = h
        .events('team-b', 'quiet')
        .filter((e) => e.type === 'Warning')
        .map((e) => e.reason);
      const order = ['MapWebhooksDisabled', 'DeliveryFailing', 'HalfwayToDisable', 'DisablingSoon', 'DisabledAfterFailures'];
      return order.every((r) => warnings.includes(r));
    });
    expect(h.events('team-b', 'quiet').find((e) => e.reason === 'Ready')?.type).toBe('Normal');
  });

  it('records one Event for a new resource and counts a repeated Event instead of making another', async () => {
    h.apply('team-a', 'one-event', { map: h.mapSlug, url: `${URL}/one`, events: ['*'], mapKeySecretRef: { name: 'map-key' } });
    await h.waitReason('team-a', 'one-event', 'Reconciled', 'True');
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.events('team-a', 'one-event').map((e) => [e.reason, e.count])).toEqual([['SubscriptionCreated', 1]]);

    h.apply('team-a', 'flapping', { map: h.mapSlug, url: `${URL}/flap`, events: ['*'], mapKeySecretRef: { name: 'map-key' }, secretRef: { name: 'flap' } });
    await h.waitReason('team-a', 'flapping', 'SecretNotFound');
    h.secret('team-a', 'flap', 'secret', 'a-signing-secret-for-flapping');
    await h.waitReason('team-a', 'flapping', 'Reconciled');
    h.kubectl(['delete', 'secret', 'flap', '-n', 'team-a']);
    await h.waitReason('team-a', 'flapping', 'SecretNotFound');
    const refused = await eventually('the repeat counted', () => {
      const e = h.events('team-a', 'flapping').filter((x) => x.reason === 'SecretNotFound');
      return e.length === 1 && e[0]!.count === 2 ? e : undefined;
    });
    expect(refused[0]!.type).toBe('Warning');
  });

  it('writes as field manager mapintel-operator: the status by server-side apply, the finalizer and the generated Secret', async () => {
    const cr = JSON.parse(h.kubectl(['get', 'mwh', 'one-event', '-n', 'team-a', '-o', 'json', '--show-managed-fields'])) as Cr;
    const managers = cr.metadata.managedFields!.map((f) => `${f.manager}/${f.operation}/${f.subresource ?? ''}`);
    expect(managers).toContain('mapintel-operator/Apply/status');
    expect(managers).toContain('mapintel-operator/Update/');
    expect(managers.filter((m) => m.startsWith('unknown') || m.startsWith('node'))).toEqual([]);
    const secret = JSON.parse(h.kubectl(['get', 'secret', 'one-event-webhook-secret', '-n', 'team-a', '-o', 'json', '--show-managed-fields'])) as Cr;
    expect(secret.metadata.managedFields!.map((f) => f.manager)).toEqual(['mapintel-operator']);
  });

  it('never receives the data of unrelated Secrets, nor keeps them, however large', async () => {
    const metric = async (name: string, labels: Record<string, string>) => metricValue(await h.metrics(opsPort), name, labels);
    // A map of its own (5 subscriptions per map).
    const bulkMap = await makeMap(h.api.platform);
    await h.toggle(bulkMap.map.id, bulkMap.key, true);
    h.secret('team-a', 'bulk-map-key', 'key', bulkMap.key);
    const before = await metric('mapintel_operator_apiserver_response_bytes_total', { resource: 'secrets' });
    const cachedBefore = await metric('mapintel_operator_cached_objects', { resource: 'secrets' });
    // 12 unrelated Secrets of 600 KB (7 MB) in a watched namespace.
    for (let i = 0; i < 12; i++) {
      h.kubectl(
        ['create', '-f', '-'],
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: `bulk-${i}`, namespace: 'team-a' },
          data: { blob: randomBytes(450_000).toString('base64') },
        }),
      );
    }
    // The watch has seen them once a later change has come through: a new resource and its generated Secret.
    h.apply('team-a', 'after-bulk', { map: bulkMap.map.slug, url: `${URL}/bulk`, events: ['*'], mapKeySecretRef: { name: 'bulk-map-key' } });
    await h.waitReason('team-a', 'after-bulk', 'Reconciled', 'True');
    await eventually('generated Secret cached', async () => (await metric('mapintel_operator_cached_objects', { resource: 'secrets' })) === cachedBefore + 1);
    const received = (await metric('mapintel_operator_apiserver_response_bytes_total', { resource: 'secrets' })) - before;
    expect(received).toBeLessThan(200_000);
    // A new replica (not the leader) lists them (page by page, metadata only): its cache holds only the generated Secrets.
    const fresh = await h.startOperator('fresh', h.cluster.kubeconfigFile, { OPERATOR_WATCH_NAMESPACES: 'team-a,team-b' });
    await eventually('fresh synced', async () => (await fetch(`http://127.0.0.1:${fresh.port}/readyz`)).status === 200, 30_000);
    const freshMetrics = await h.metrics(fresh.port);
    const generated = ['team-a', 'team-b'].flatMap(
      (ns) => (JSON.parse(h.kubectl(['get', 'secrets', '-n', ns, '-l', 'mapintel.io/webhook-subscription', '-o', 'json'])) as { items: unknown[] }).items,
    );
    expect(generated.length).toBeGreaterThan(2);
    expect(metricValue(freshMetrics, 'mapintel_operator_cached_objects', { resource: 'secrets' })).toBe(generated.length);
    expect(metricValue(freshMetrics, 'mapintel_operator_apiserver_response_bytes_total', { resource: 'secrets' })).toBeLessThan(200_000);
    expect(await fresh.p.stop()).toBe(0);
  }, 120_000);

  describe('an operator in this process (a resolver and a slow database of the test’s own)', () => {
    let resolvable = false;
    let release: () => void = () => undefined;
    let gate = Promise.resolve();
    let controller: WebhookSubscriptionController;
    let client: KubeClient;

    beforeAll(async () => {
      const log = createLogger('warn');
      const metrics = operatorMetrics(createMetrics({ defaultMetrics: false }).registry);
      client = new KubeClient(h.cluster.kubeConfig());
      const service = new WebhookService(dbOf(h.api.platform.orm), h.api.platform.box, {
        allowInsecureUrls: false,
        resolve: async (host) => (resolvable || host !== 'late.example' ? [{ address: '93.184.215.14', family: 4 }] : []),
      });
      // Applying a resource of namespace `slow` waits for the test to open the gate.
      const subscriptions: ConstructorParameters<typeof WebhookSubscriptionController>[1] = {
        planManaged: (spec) => service.planManaged(spec),
        applyManaged: async (spec, opts) => {
          if (spec.managedBy.startsWith('kubernetes:slow/') && !opts?.dryRun) await gate;
          return service.applyManaged(spec, opts);
        },
        removeManaged: (m) => service.removeManaged(m),
        listManaged: (p) => service.listManaged(p),
      };
      controller = new WebhookSubscriptionController(
        client,
        subscriptions,
        new DbMapFacts(dbOf(h.api.platform.orm)),
        new EventRecorder(client, 'local', log),
        metrics,
        log,
        {
          concurrency: 2,
          statusRefreshMs: 60_000,
          namespaces: ['dns', 'slow'],
          dnsRecheckMs: 300,
        },
      );
      controller.start();
      await eventually('synced', () => controller.synced);
      controller.startLeading();
    });

    afterAll(async () => {
      release();
      await controller?.stop();
      client?.close();
    });

    it('says Progressing (Ready=Unknown) before the first outcome, then the outcome, with the reason in a printer column', async () => {
      gate = new Promise<void>((r) => (release = r));
      const slowMap = await makeMap(h.api.platform);
      await h.toggle(slowMap.map.id, slowMap.key, true);
      h.kubectl(['create', 'namespace', 'slow']);
      h.secret('slow', 'map-key', 'key', slowMap.key);
      h.apply('slow', 'progress', { map: slowMap.map.slug, url: 'https://hooks.example/progress', events: ['*'], mapKeySecretRef: { name: 'map-key' } });
      const progressing = await h.waitReason('slow', 'progress', 'Progressing', 'Unknown');
      expect(condition(progressing, 'Degraded')).toMatchObject({ status: 'Unknown', reason: 'Progressing' });
      const table = h.kubectl(['get', 'mwh', 'progress', '-n', 'slow']);
      expect(table.split('\n')[0]).toMatch(/READY\s+REASON/);
      expect(table).toMatch(/Unknown\s+Progressing/);
      release();
      await h.waitReason('slow', 'progress', 'Reconciled', 'True');
      expect(h.kubectl(['get', 'mwh', 'progress', '-n', 'slow'])).toMatch(/True\s+Reconciled/);
    });

    it('retries an InvalidURL whose host does not resolve yet, with backoff, and generates its Secret only once accepted', async () => {
      const lateMap = await makeMap(h.api.platform);
      await h.toggle(lateMap.map.id, lateMap.key, true);
      h.secret('dns', 'map-key', 'key', lateMap.key);
      h.apply('dns', 'late', { map: lateMap.map.slug, url: 'https://late.example/hook', events: ['*'], mapKeySecretRef: { name: 'map-key' } });
      const refused = await h.waitReason('dns', 'late', 'InvalidURL', 'False');
      expect(condition(refused, 'Ready')!.message).toContain('must name a host that resolves to public addresses only');
      expect(h.exists('secret', 'dns', 'late-webhook-secret')).toBe(false);
      resolvable = true;
      const cr = await h.waitReason('dns', 'late', 'Reconciled', 'True', 30_000);
      expect(cr.status!.secretName).toBe('late-webhook-secret');
      expect(h.exists('secret', 'dns', 'late-webhook-secret')).toBe(true);
    }, 60_000);
  });
});
