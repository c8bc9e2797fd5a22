/**
 * `mapintel release-finalizers`: the uninstall path (the chart's pre-delete hook, or by hand before
 * `helm uninstall`). It takes the operator's Lease for two minutes, so no replica reconciles any more (a
 * leader that sees another holder steps down), waits one lease duration for a reconcile in flight to
 * end, then removes the finalizer `mapintel.io/subscription` from every WebhookSubscription of the
 * watched namespaces. Deleting the resources afterwards then never hangs on a finalizer nobody
 * removes. Their platform subscriptions stay until an operator runs again (it removes those whose
 * resource is gone) or the map owner deletes them.
 */
import { loadKubeConfig } from './operator.role.js';
import { isConflict, isNotFound, KubeClient } from './kube-client.js';
import { FINALIZER, GROUP, PLURAL, VERSION, resourcePath, type WebhookSubscriptionResource } from './webhook-subscription.types.js';

export const RELEASE_IDENTITY = 'mapintel-release-finalizers';

export interface ReleaseOptions {
  kubeconfig: string | undefined;
  leaseNamespace: string;
  leaseName: string;
  leaseDurationSeconds: number;
  namespaces: readonly string[];
  out: (line: string) => void;
}

export async function releaseFinalizers(opts: ReleaseOptions): Promise<number> {
  const client = new KubeClient(loadKubeConfig(opts.kubeconfig));
  try {
    await takeLease(client, opts);
    opts.out(`took the Lease ${opts.leaseNamespace}/${opts.leaseName}; waiting ${opts.leaseDurationSeconds} s for the leader to step down`);
    await new Promise((r) => setTimeout(r, opts.leaseDurationSeconds * 1000));
    let released = 0;
    const scopes = opts.namespaces.length ? opts.namespaces.map((ns) => `/namespaces/${ns}`) : [''];
    for (const scope of scopes) {
      let token = '';
      do {
        const q = new URLSearchParams({ limit: '500', ...(token ? { continue: token } : {}) });
        const page = await client.get<{ items: WebhookSubscriptionResource[]; metadata: { continue?: string } }>(
          `/apis/${GROUP}/${VERSION}${scope}/${PLURAL}?${q.toString()}`,
        );
        for (const obj of page.items) {
          const finalizers = obj.metadata.finalizers ?? [];
          if (!finalizers.includes(FINALIZER)) continue;
          try {
            await client.patch(resourcePath(obj.metadata.namespace!, obj.metadata.name), {
              metadata: { finalizers: finalizers.filter((f) => f !== FINALIZER), resourceVersion: obj.metadata.resourceVersion },
            });
            released++;
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        }
        token = page.metadata.continue ?? '';
      } while (token);
    }
    opts.out(`released the finalizer of ${released} WebhookSubscription resource(s)`);
    return released;
  } finally {
    client.close();
  }
}

async function takeLease(client: KubeClient, opts: ReleaseOptions): Promise<void> {
  const path = `/apis/coordination.k8s.io/v1/namespaces/${opts.leaseNamespace}/leases/${opts.leaseName}`;
  const now = new Date().toISOString().replace('Z', '000Z');
  // Long enough for the release's pods to be gone, short enough not to hold up a new install.
  const spec = { holderIdentity: RELEASE_IDENTITY, leaseDurationSeconds: Math.max(120, opts.leaseDurationSeconds * 4), acquireTime: now, renewTime: now };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const lease = await client.get<{ metadata: Record<string, unknown>; spec: Record<string, unknown> }>(path);
      await client.replace(path, { ...lease, spec: { ...lease.spec, ...spec } });
      return;
    } catch (err) {
      if (isConflict(err)) continue;
      if (!isNotFound(err)) throw err;
      try {
        await client.create(`/apis/coordination.k8s.io/v1/namespaces/${opts.leaseNamespace}/leases`, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: opts.leaseName, namespace: opts.leaseNamespace },
          spec,
        });
        return;
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
  }
  throw new Error(`could not take the Lease ${opts.leaseNamespace}/${opts.leaseName}`);
}
