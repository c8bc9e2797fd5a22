/**
 * The chart's day-two settings against a real kube-apiserver (docs/kubernetes.md, docs/operations.md):
 * DATABASE_SESSION_URL and TLS to PostgreSQL and Redis passed from Secrets; the encryption key the
 * release keeps (an upgrade without it reuses it, a different one is refused unless allowed, the first
 * install generates one); and an install that needs a `<fullname>-env` Secret refused at once, naming
 * the command, when the Secret is missing (instead of a migrations Job waiting for it).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kubeUnavailable, TestCluster } from '../support/kube.js';

const CHART = path.resolve('charts/mapintel');
const unavailable = kubeUnavailable();
const K1 = Buffer.alloc(32, 1).toString('base64');
const K2 = Buffer.alloc(32, 2).toString('base64');
const URLS = ['--set', 'database.url=postgres://app@db:5432/maps', '--set', 'redis.url=rediss://redis:6380'];

interface Obj {
  kind: string;
  metadata: { name: string };
  stringData?: Record<string, string>;
  spec?: any;
}

const parse = (text: string): Obj[] =>
  parseAllDocuments(text)
    .map((d) => d.toJSON() as Obj | null)
    .filter((o): o is Obj => o !== null && typeof o === 'object' && 'kind' in o);

describe.skipIf(unavailable)('Helm chart: day-two settings', () => {
  let cluster: TestCluster;
  let namespaces = 0;
  const freshNamespace = (): string => {
    const ns = `day2-${++namespaces}`;
    cluster.kubectl(['create', 'namespace', ns]);
    return ns;
  };
  /** `helm install --dry-run=server`: rendered as an install would, lookups answered by the apiserver. */
  const installDryRun = (ns: string, ...args: string[]): Obj[] =>
    parse(cluster.helm(['install', 'rel', CHART, '--namespace', ns, '--dry-run=server', ...args]));
  const keyIn = (objs: Obj[]): string => objs.find((o) => o.kind === 'Secret' && o.metadata.name === 'rel-mapintel-env')!.stringData!.SERVICE_ENCRYPTION_KEY!;

  beforeAll(async () => {
    cluster = await TestCluster.start();
    cluster.kubectl(['apply', '--server-side', '-f', path.join(CHART, 'crds')]);
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('passes DATABASE_SESSION_URL and the TLS settings, the CA certificates mounted from Secrets, to every container and the migrations Job', () => {
    const args = [
      ...URLS,
      '--set',
      'database.sessionUrl=postgres://app@db-direct:5432/maps',
      '--set',
      'database.tls.sslMode=verify-full',
      '--set',
      'database.tls.caSecret=pg-ca',
      '--set',
      'redis.tls.caSecret=redis-ca',
      '--set',
      'redis.tls.caSecretKey=bundle.pem',
    ];
    const objs = parse(cluster.helm(['template', 'rel', CHART, ...args]));
    const secret = objs.find((o) => o.kind === 'Secret' && o.metadata.name === 'rel-mapintel-env')!;
    expect(secret.stringData!.DATABASE_SESSION_URL).toBe('postgres://app@db-direct:5432/maps');
    // Every pod that connects to the database (the pre-delete hook that releases finalizers does not).
    const pods = objs
      .filter((o) => (o.kind === 'Deployment' || o.kind === 'Job') && o.metadata.name !== 'rel-mapintel-release-finalizers')
      .map((o) => [o.metadata.name, o.spec.template.spec] as const);
    expect(pods.map(([n]) => n).sort()).toEqual([
      'rel-mapintel-api',
      'rel-mapintel-migrate',
      'rel-mapintel-operator',
      'rel-mapintel-stream',
      'rel-mapintel-worker',
    ]);
    for (const [name, pod] of pods) {
      const c = pod.containers[0];
      const env = Object.fromEntries((c.env as { name: string; value?: string; valueFrom?: unknown }[]).map((e) => [e.name, e.value ?? e.valueFrom]));
      expect(env.DATABASE_SESSION_URL, name).toEqual({ secretKeyRef: { name: 'rel-mapintel-env', key: 'DATABASE_SESSION_URL' } });
      expect(env.DATABASE_SSL_MODE, name).toBe('verify-full');
      expect(env.DATABASE_CA_FILE, name).toBe('/etc/mapintel/tls/postgres/ca.crt');
      expect(env.REDIS_CA_FILE, name).toBe('/etc/mapintel/tls/redis/bundle.pem');
      expect(
        c.volumeMounts.filter((m: { name: string }) => m.name.endsWith('-ca')),
        name,
      ).toEqual([
        { name: 'postgres-ca', mountPath: '/etc/mapintel/tls/postgres', readOnly: true },
        { name: 'redis-ca', mountPath: '/etc/mapintel/tls/redis', readOnly: true },
      ]);
      expect(
        pod.volumes.filter((v: { name: string }) => v.name.endsWith('-ca')),
        name,
      ).toEqual([
        { name: 'postgres-ca', secret: { secretName: 'pg-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { name: 'redis-ca', secret: { secretName: 'redis-ca', items: [{ key: 'bundle.pem', path: 'bundle.pem' }] } },
      ]);
    }
    // From an existing Secret instead; the apiserver accepts every object.
    const fromSecret = parse(
      cluster.helm(['template', 'rel', CHART, ...URLS, '--set', 'database.sessionExistingSecret=pg-direct', '--set', 'database.sessionExistingSecretKey=url']),
    );
    const api = fromSecret.find((o) => o.kind === 'Deployment' && o.metadata.name === 'rel-mapintel-api')!.spec.template.spec.containers[0];
    expect(api.env.find((e: { name: string }) => e.name === 'DATABASE_SESSION_URL')).toEqual({
      name: 'DATABASE_SESSION_URL',
      valueFrom: { secretKeyRef: { name: 'pg-direct', key: 'url' } },
    });
    const ns = freshNamespace();
    const rendered = cluster.helm(['template', 'rel', CHART, '--namespace', ns, ...args]);
    expect(cluster.kubectl(['apply', '--dry-run=server', '-n', ns, '-f', '-'], rendered).trim().split('\n')).toHaveLength(parse(rendered).length);
    // Nothing of it without the values: the default render mounts no CA and sets none of the four.
    const plain = parse(cluster.helm(['template', 'rel', CHART, ...URLS])).find((o) => o.kind === 'Deployment' && o.metadata.name === 'rel-mapintel-api')!.spec
      .template.spec;
    expect(plain.containers[0].env.map((e: { name: string }) => e.name)).not.toContain('DATABASE_SSL_MODE');
    expect(plain.volumes.map((v: { name: string }) => v.name)).toEqual(['tmp']);
    // A mode libpq does not have is refused by the schema.
    expect(() => cluster.helm(['template', 'rel', CHART, ...URLS, '--set', 'database.tls.sslMode=prefer'])).toThrow(/sslMode/);
  });

  it('generates the encryption key once and keeps it: an upgrade without the value reuses it, another value is refused unless allowed', () => {
    const fresh = freshNamespace();
    const generated = keyIn(installDryRun(fresh, ...URLS));
    expect(Buffer.from(generated, 'base64')).toHaveLength(32);
    expect(generated).not.toBe(keyIn(installDryRun(fresh, ...URLS)));

    // A release that already keeps K1 in its Secret (a previous install).
    const ns = freshNamespace();
    cluster.kubectl(['-n', ns, 'create', 'secret', 'generic', 'rel-mapintel-env', `--from-literal=SERVICE_ENCRYPTION_KEY=${K1}`]);
    expect(keyIn(installDryRun(ns, ...URLS))).toBe(K1);
    expect(keyIn(installDryRun(ns, ...URLS, '--set', `secrets.encryptionKey=${K1}`))).toBe(K1);
    expect(() => installDryRun(ns, ...URLS, '--set', `secrets.encryptionKey=${K2}`)).toThrow(
      /secrets.encryptionKey differs from the key Secret rel-mapintel-env keeps: stored ACL keys and webhook secrets would become unreadable/,
    );
    expect(keyIn(installDryRun(ns, ...URLS, '--set', `secrets.encryptionKey=${K2}`, '--set', 'secrets.allowKeyChange=true'))).toBe(K2);
  });

  it('refuses an install whose pods would read a <fullname>-env Secret that does not exist, naming the command; installs once it does', () => {
    const ns = freshNamespace();
    expect(() => installDryRun(ns)).toThrow(
      new RegExp(`the Secret rel-mapintel-env does not exist in namespace ${ns}: .*create it first: kubectl -n ${ns} create secret generic rel-mapintel-env`),
    );
    cluster.kubectl([
      '-n',
      ns,
      'create',
      'secret',
      'generic',
      'rel-mapintel-env',
      '--from-literal=DATABASE_URL=postgres://db/x',
      '--from-literal=REDIS_URL=redis://r',
      `--from-literal=SERVICE_ENCRYPTION_KEY=${K1}`,
    ]);
    expect(installDryRun(ns).some((o) => o.kind === 'Deployment')).toBe(true);
    // Every setting from existing Secrets of other names: nothing to check.
    const other = freshNamespace();
    const all = ['--set', 'database.existingSecret=db', '--set', 'redis.existingSecret=redis', '--set', 'secrets.existingSecret=keys'];
    expect(installDryRun(other, ...all).some((o) => o.kind === 'Deployment')).toBe(true);
  });
});
