/**
 * A release of its own for a day-two check (upgrade.test.ts, backup.test.ts): its own database and
 * Redis key prefix on the host's services, the same release name and namespace as release.test.ts
 * (the files run one at a time), and a clean namespace after it, so the files run in any order.
 */
import { execFileSync } from 'node:child_process';
import { FULLNAME, NAMESPACE, NODE_IP, REDIS_PREFIX, RELEASE, helm, kubectl, kubectlJson, pods, until } from './cluster.js';
import { RECEIVER_IP, api, makeMapWithKeys, releaseValues, valuesFile } from './release.js';

export const ROLES = ['api', 'stream', 'worker', 'operator'] as const;

/** psql against the host's PostgreSQL (the release's database, or `postgres` for CREATE/DROP DATABASE). */
export const sql = (database: string, text: string): string =>
  execFileSync('psql', ['-X', '-At', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-U', 'postgres', '-d', database, '-c', text], { encoding: 'utf8' }).trim();

export const imageParts = (image: string): { repository: string; tag: string } => {
  const [repository, tag] = image.split(/:(?=[^:/]+$)/) as [string, string];
  return { repository, tag };
};

export function subscription(slug: string, name: string, path: string, mapKeySecret: string) {
  return {
    apiVersion: 'mapintel.io/v1alpha1',
    kind: 'WebhookSubscription',
    metadata: { name, namespace: NAMESPACE },
    spec: { map: slug, url: `https://${RECEIVER_IP}${path}`, events: ['*'], mapKeySecretRef: { name: mapKeySecret } },
  };
}

export async function waitReady(name: string): Promise<void> {
  await until(`${name} Ready`, 120_000, async () => {
    const o = await kubectlJson(['-n', NAMESPACE, 'get', 'webhooksubscriptions.mapintel.io', name]);
    const ready = (o.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
    if (ready?.status === 'True') return true;
    if (ready) throw new Error(`${ready.status} ${ready.reason}: ${ready.message}`);
    return false;
  });
}

/** What an uninstall leaves (docs/kubernetes.md) goes too, so release.test.ts meets the namespace as on a fresh cluster. */
export async function removeLeftovers(...secrets: string[]): Promise<void> {
  await kubectl(['-n', NAMESPACE, 'delete', 'secret', `${FULLNAME}-env`, ...secrets, '--ignore-not-found']);
  await kubectl(['-n', NAMESPACE, 'delete', 'lease', `${FULLNAME}-operator`, '--ignore-not-found']);
}

/** Every Deployment of the release has all its replicas updated and available, each running `image`. */
export async function everyDeploymentAvailable(image: string): Promise<void> {
  await until(`every Deployment available on ${image}`, 180_000, async () => {
    for (const role of ROLES) {
      const d = await kubectlJson(['-n', NAMESPACE, 'get', 'deployment', `${FULLNAME}-${role}`]);
      const s = d.status;
      if (d.spec.template.spec.containers[0].image !== image) return false;
      if (s.availableReplicas !== d.spec.replicas || s.updatedReplicas !== d.spec.replicas || (s.replicas ?? 0) !== d.spec.replicas) return false;
    }
    const running = (await Promise.all(ROLES.map((r) => pods(r)))).flat();
    return running.every((p) => p.ready && !p.deleting);
  });
}

/** helm install --wait of `chart` with `image` on a fresh database `db` and the Redis prefix `<tier prefix><name>:`. */
export async function installOwn(chart: string, image: string, db: string, name: string): Promise<void> {
  sql('postgres', `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  sql('postgres', `CREATE DATABASE ${db}`);
  const values = valuesFile(
    releaseValues({
      image: { ...imageParts(image), pullPolicy: 'Never' },
      database: { url: `postgres://postgres@${NODE_IP}:15432/${db}` },
      redis: { url: `redis://${NODE_IP}:16379`, keyPrefix: `${REDIS_PREFIX}${name}:` },
    }),
  );
  try {
    await helm(['install', RELEASE, chart, '-n', NAMESPACE, '-f', values.file, '--wait', '--timeout', '8m']);
  } finally {
    values.remove();
  }
  await everyDeploymentAvailable(image);
}

/**
 * The static data imported with the image's CLI in an api pod, a map with `keyCount` keys, a system on
 * it, its webhooks on, and the Secret of one of its keys that WebhookSubscriptions name.
 */
export async function mapWithWebhooks(slug: string, keyCount: number, system: number, mapKeySecret: string): Promise<{ keys: string[]; mapId: string }> {
  const [apiPod] = await pods('api');
  await kubectl(['-n', NAMESPACE, 'exec', apiPod!.name, '-c', 'api', '--', 'mapintel', 'sde', 'import', '--from', '/app/assets/eve-static-sample'], {
    timeoutMs: 300_000,
  });
  const { keys, mapId } = await makeMapWithKeys(slug, keyCount);
  const added = await api('POST', `/api/maps/${slug}/systems`, keys[0]!, { solar_system_id: system });
  if (added.status !== 201) throw new Error(`add system: ${added.status} ${JSON.stringify(added.json)}`);
  const toggled = await api('PUT', `/api/maps/${slug}/webhooks/toggle`, keys[0]!, { enabled: true });
  if (toggled.status !== 200) throw new Error(`webhooks toggle: ${toggled.status} ${JSON.stringify(toggled.json)}`);
  await kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: mapKeySecret, namespace: NAMESPACE }, stringData: { key: keys[0]! } }),
  });
  return { keys, mapId };
}

/** The resources first (their finalizers need the operator), then helm uninstall, then what it leaves. */
export async function uninstallOwn(db: string, mapKeySecret: string): Promise<void> {
  await kubectl(['-n', NAMESPACE, 'delete', 'webhooksubscriptions.mapintel.io', '--all', '--wait=true', '--timeout=120s']);
  await helm(['uninstall', RELEASE, '-n', NAMESPACE, '--wait', '--timeout', '5m']);
  await until(
    "the release's pods gone",
    180_000,
    async () => (await kubectl(['-n', NAMESPACE, 'get', 'pods', '-l', `app.kubernetes.io/instance=${RELEASE}`, '-o', 'name'])).trim() === '',
  );
  await removeLeftovers(mapKeySecret);
  sql('postgres', `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
}
