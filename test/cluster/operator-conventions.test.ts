/**
 * The operator's API conventions on a real apiserver: CEL rules of the CRD refuse at `kubectl apply`
 * what the apiserver can judge itself; the Progressing condition; the generated Secret carries the
 * app.kubernetes.io labels and a blocking controller reference, and is written by server-side apply
 * with the operator's field manager, so a hand edit of its labels or owner reference is undone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeUnavailable } from '../support/kube.js';
import { condition, eventually, OperatorHarness } from '../support/operator-harness.js';

const unavailable = kubeUnavailable(['etcd', 'kube-apiserver', 'kubectl']);

interface SecretJson {
  data: { secret: string };
  metadata: {
    resourceVersion: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
    managedFields?: { manager: string; operation: string }[];
  };
}

describe.skipIf(unavailable)('operator: API conventions on a real apiserver', () => {
  let h: OperatorHarness;
  const ns = 'conv';
  const getSecret = (name: string) => JSON.parse(h.kubectl(['get', 'secret', name, '-n', ns, '-o', 'json', '--show-managed-fields'])) as SecretJson;
  const apply = (name: string, spec: Record<string, unknown>) => h.apply(ns, name, { mapKeySecretRef: { name: 'map-key' }, ...spec });

  beforeAll(async () => {
    h = await OperatorHarness.start();
    h.kubectl(['create', 'namespace', ns]);
    h.kubectl(['create', 'secret', 'generic', 'map-key', '-n', ns, `--from-literal=key=${h.mapKey}`]);
    await h.startOperator('operator-conv');
  }, 180_000);

  afterAll(async () => {
    await h?.stop();
  }, 60_000);

  it('refuses at kubectl apply a URL with credentials, and a secretRef naming the map key Secret', () => {
    expect(() => apply('creds', { map: h.mapSlug, url: 'https://user:pw@127.0.0.1:9/hook', events: ['*'] })).toThrow(/must not carry credentials/);
    expect(() => apply('same-secret', { map: h.mapSlug, url: 'https://127.0.0.1:9/hook', events: ['*'], secretRef: { name: 'map-key' } })).toThrow(
      /spec.secretRef.name.*must name different Secrets/s,
    );
    expect(h.exists('webhooksubscriptions.mapintel.io', ns, 'creds')).toBe(false);
    expect(h.exists('webhooksubscriptions.mapintel.io', ns, 'same-secret')).toBe(false);
  });

  it('reports Progressing False once a generation is applied, and True with the reason while a refusal is rechecked', async () => {
    apply('prog', { map: h.mapSlug, url: 'https://127.0.0.1:9/hook', events: ['*'] });
    const done = await eventually('prog applied', () => {
      const cr = h.getCr(ns, 'prog');
      return condition(cr, 'Ready')?.status === 'True' ? cr : undefined;
    });
    expect(condition(done, 'Progressing')).toMatchObject({ status: 'False', reason: 'Reconciled', observedGeneration: 1 });
    // A map that does not exist is rechecked: Progressing stays True with its reason.
    apply('prog', { map: 'no-such-map-yet', url: 'https://127.0.0.1:9/hook', events: ['*'] });
    const refused = await h.waitReason(ns, 'prog', 'MapNotFound', 'False');
    expect(condition(refused, 'Progressing')).toMatchObject({ status: 'True', reason: 'MapNotFound', observedGeneration: 2 });
  });

  it('applies the generated Secret with labels and a blocking owner reference, and restores them after a hand edit', async () => {
    apply('drift', { map: h.mapSlug, url: 'https://127.0.0.1:9/other', events: ['map_kill'] });
    const cr = await eventually('drift Ready', () => {
      const c = h.getCr(ns, 'drift');
      return condition(c, 'Ready')?.status === 'True' ? c : undefined;
    });
    const made = getSecret('drift-webhook-secret');
    expect(made.metadata.labels).toMatchObject({
      'mapintel.io/webhook-subscription': 'drift',
      'app.kubernetes.io/name': 'mapintel',
      'app.kubernetes.io/instance': 'drift',
      'app.kubernetes.io/component': 'webhook-signing-secret',
      'app.kubernetes.io/part-of': 'mapintel',
      'app.kubernetes.io/managed-by': 'mapintel-operator',
    });
    expect(made.metadata.ownerReferences).toEqual([
      { apiVersion: 'mapintel.io/v1alpha1', kind: 'WebhookSubscription', name: 'drift', uid: cr.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(made.metadata.managedFields?.find((f) => f.manager === 'mapintel-operator')?.operation).toBe('Apply');

    // By hand: a label changed, another removed, the owner reference removed.
    h.kubectl(['label', 'secret', 'drift-webhook-secret', '-n', ns, 'app.kubernetes.io/part-of=something-else', '--overwrite']);
    h.kubectl(['label', 'secret', 'drift-webhook-secret', '-n', ns, 'app.kubernetes.io/component-']);
    h.kubectl(['patch', 'secret', 'drift-webhook-secret', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/ownerReferences"}]']);
    const repaired = await eventually('the Secret repaired', () => {
      const s = getSecret('drift-webhook-secret');
      return s.metadata.labels?.['app.kubernetes.io/part-of'] === 'mapintel' &&
        s.metadata.labels['app.kubernetes.io/component'] === 'webhook-signing-secret' &&
        s.metadata.ownerReferences?.length === 1
        ? s
        : undefined;
    });
    expect(repaired.metadata.ownerReferences![0]).toMatchObject({ uid: cr.metadata.uid, controller: true, blockOwnerDeletion: true });
    // The signing secret itself is never replaced by a repair.
    expect(repaired.data.secret).toBe(made.data.secret);
    const still = await eventually('Ready with the repaired Secret', () => {
      const c = h.getCr(ns, 'drift');
      return c?.status?.secretName === 'drift-webhook-secret' && condition(c, 'Ready')?.status === 'True' ? c : undefined;
    });
    expect(still.status!.subscriptionId).toBe(cr.status!.subscriptionId);
  });
});
