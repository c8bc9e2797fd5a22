/**
 * The setup of the operator's resource and takeover tests (test/cluster/operator-*.test.ts): the
 * harness with a kube-controller-manager and the event relay on, an https receiver with a certificate
 * of the cluster's CA, namespaces team-a and team-b each holding the map's key in Secret map-key, and
 * operator-a running; the kubectl helpers those tests read with, and a delivery worker's environment.
 */
import { readFileSync } from 'node:fs';
import { TEST_ENCRYPTION_KEY, type TestServer } from './app.js';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './db.js';
import type { TestCa } from './kube.js';
import { condition, eventually, OperatorHarness } from './operator-harness.js';
import { startReceiver } from './receiver.js';

export async function startOperatorSuite() {
  const h = await OperatorHarness.start({ controllerManager: true, apiEnv: { EVENTS_RELAY_ENABLED: 'true' } });
  const ca = h.cluster.ca;
  const cert = ca.issue('receiver', '/CN=127.0.0.1', 'IP:127.0.0.1');
  const receiver = await startReceiver({ tls: { cert: readFileSync(cert.cert), key: readFileSync(cert.key) } });
  for (const ns of ['team-a', 'team-b']) {
    h.kubectl(['create', 'namespace', ns]);
    h.kubectl(['create', 'secret', 'generic', 'map-key', '-n', ns, `--from-literal=key=${h.mapKey}`]);
  }
  const started = await h.startOperator('operator-a');
  const { cluster, api, mapId, mapSlug, mapKey, processes } = h;
  return { h, cluster, api, ca, receiver, mapId, mapSlug, mapKey, processes, operator: started.p, opsPort: started.port };
}

export type OperatorSuite = Awaited<ReturnType<typeof startOperatorSuite>>;

/** Stops every process the tests started, the API, the cluster and the receiver. */
export async function stopOperatorSuite(s: OperatorSuite | undefined): Promise<void> {
  try {
    await s?.h.stop();
  } finally {
    await s?.receiver.close();
  }
}

/** kubectl and operator helpers over the suite `suite()` answers (called at use time). */
export function operatorSuiteHelpers(suite: () => OperatorSuite) {
  const kubectl = (args: string[], input?: string) => suite().h.kubectl(args, input);
  const getCr = (ns: string, name: string) => suite().h.getCr(ns, name);
  // Every resource proves it may read the map with the Secret map-key of its namespace (a key of the test map), unless it names another.
  const apply = (ns: string, name: string, spec: Record<string, unknown>) => suite().h.apply(ns, name, { mapKeySecretRef: { name: 'map-key' }, ...spec });
  const ready = (ns: string, name: string, generation?: number) =>
    eventually(`${ns}/${name} Ready`, () => {
      const cr = getCr(ns, name);
      const c = condition(cr, 'Ready');
      return c?.status === 'True' && (generation === undefined || cr!.status!.observedGeneration === generation) ? cr : undefined;
    });
  const eventReasons = (ns: string, name: string): string[] =>
    suite()
      .h.events(ns, name)
      .map((e) => e.reason);
  const startOperator = (identity: string, kubeconfig = suite().cluster.kubeconfigFile, extra: Record<string, string> = {}) =>
    suite().h.startOperator(identity, kubeconfig, extra);
  const ops = (port: number, p: string) => fetch(`http://127.0.0.1:${port}${p}`);
  const isLeader = (port: number) => suite().h.leads(port);
  return { kubectl, getCr, apply, ready, eventReasons, startOperator, ops, isLeader };
}

/** The environment of a delivery worker (`serve --roles worker`) over the API's database and Redis, trusting the cluster's CA. */
export function workerEnv(api: TestServer, ca: TestCa, port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
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
    ...extra,
  };
}
