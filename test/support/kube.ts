/**
 * A real Kubernetes control plane for the cluster tests, envtest style: etcd and kube-apiserver
 * (optionally kube-controller-manager, for garbage collection) on free loopback ports, with
 * certificates made by openssl, an admin kubeconfig, and kubectl and helm beside them.
 * The binaries come from `node scripts/kube-tools.mjs` (cached by version outside the clone; the same
 * folder as that script computes).
 */
import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { freePort } from './redis-server.js';

export const KUBE_VERSION = 'v1.36.3';
const ETCD_VERSION = 'v3.6.16';
const PROJECT_CACHE = process.env.MAPINTEL_CACHE_DIR || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'mapintel');
export const KUBE_BIN = path.join(PROJECT_CACHE, `kube-${KUBE_VERSION}-etcd-${ETCD_VERSION}`);

export const bin = (name: string): string => path.join(KUBE_BIN, name);

/** Why the cluster tests cannot run here, or undefined when every binary they need is present. */
export function kubeUnavailable(needs: string[] = ['etcd', 'kube-apiserver', 'kubectl', 'helm']): string | undefined {
  const missing = needs.filter((n) => !existsSync(bin(n)));
  if (missing.length === 0) return undefined;
  const reason = `Kubernetes binaries missing (${missing.join(', ')}) in ${KUBE_BIN}: run \`node scripts/kube-tools.mjs\``;
  // Loud on purpose: a skipped cluster test must never read as a passed one.
  console.warn(`\n!!!! CLUSTER TESTS SKIPPED: ${reason}\n`);
  return reason;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA and certificates signed by it, in a folder of PEM files. */
export class TestCa {
  constructor(readonly dir: string) {}

  static create(dir: string, name = 'ca'): TestCa {
    openssl(
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=mapintel-test-${name}`, '-keyout', `${name}.key`, '-out', `${name}.crt`],
      dir,
    );
    const ca = new TestCa(dir);
    ca.name = name;
    return ca;
  }

  name = 'ca';

  get certFile(): string {
    return path.join(this.dir, `${this.name}.crt`);
  }

  get keyFile(): string {
    return path.join(this.dir, `${this.name}.key`);
  }

  /** Issues `<file>.crt`/`<file>.key` for a subject; `san` makes a server certificate. */
  issue(file: string, subject: string, san?: string): { cert: string; key: string } {
    const ext = path.join(this.dir, `${file}.ext`);
    writeFileSync(ext, san ? `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n` : 'extendedKeyUsage=clientAuth\n');
    openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', subject, '-keyout', `${file}.key`, '-out', `${file}.csr`], this.dir);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${file}.csr`,
        '-CA',
        this.certFile,
        '-CAkey',
        this.keyFile,
        '-CAcreateserial',
        '-days',
        '2',
        '-extfile',
        ext,
        '-out',
        `${file}.crt`,
      ],
      this.dir,
    );
    return { cert: path.join(this.dir, `${file}.crt`), key: path.join(this.dir, `${file}.key`) };
  }
}

async function waitUntil(what: string, ok: () => Promise<boolean>, timeoutMs: number, child?: ChildProcess, output?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ok().catch(() => false)) return;
    if (child && child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}):\n${output?.().slice(-3000) ?? ''}`);
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${timeoutMs} ms:\n${output?.().slice(-3000) ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function spawnLogged(file: string, args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (c: Buffer) => {
    out += c.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => out };
}

async function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export interface ClusterOptions {
  /** Also run kube-controller-manager (garbage collection of owned objects, namespace deletion). */
  controllerManager?: boolean;
  /** Admission plugins to enable beside the defaults (e.g. OwnerReferencesPermissionEnforcement). */
  admissionPlugins?: string[];
}

/** etcd + kube-apiserver (+ kube-controller-manager) of one test file. */
export class TestCluster {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'mapintel-kube-'));
  readonly ca: TestCa;
  readonly kubeconfigFile: string;
  apiPort = 0;
  private etcd: ReturnType<typeof spawnLogged> | undefined;
  private api: ReturnType<typeof spawnLogged> | undefined;
  private kcm: ReturnType<typeof spawnLogged> | undefined;
  private etcdPort = 0;
  private admin: { cert: string; key: string };
  private serving: { cert: string; key: string };

  private constructor(private readonly opts: ClusterOptions) {
    this.ca = TestCa.create(this.dir);
    this.serving = this.ca.issue('apiserver', '/CN=kube-apiserver', 'IP:127.0.0.1,DNS:localhost');
    this.admin = this.ca.issue('admin', '/O=system:masters/CN=admin');
    openssl(['genrsa', '-out', 'sa.key', '2048'], this.dir);
    openssl(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], this.dir);
    this.kubeconfigFile = path.join(this.dir, 'admin.kubeconfig');
  }

  static async start(opts: ClusterOptions = {}): Promise<TestCluster> {
    const c = new TestCluster(opts);
    try {
      await c.startEtcd();
      c.apiPort = await freePort();
      writeFileSync(c.kubeconfigFile, c.kubeconfigYaml({ user: 'admin', clientCert: c.admin }));
      await c.startApiserver();
      if (opts.controllerManager) await c.startControllerManager();
    } catch (err) {
      await c.stop();
      throw err;
    }
    return c;
  }

  get server(): string {
    return `https://127.0.0.1:${this.apiPort}`;
  }

  /** A kubeconfig (YAML) for the admin client certificate or a bearer token. */
  kubeconfigYaml(who: { user: string; clientCert?: { cert: string; key: string }; token?: string; namespace?: string }): string {
    const ca = readFileSync(this.ca.certFile).toString('base64');
    const user = who.token
      ? `    token: ${who.token}`
      : `    client-certificate-data: ${readFileSync(who.clientCert!.cert).toString('base64')}\n    client-key-data: ${readFileSync(who.clientCert!.key).toString('base64')}`;
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: test',
      '  cluster:',
      `    server: ${this.server}`,
      `    certificate-authority-data: ${ca}`,
      'users:',
      `- name: ${who.user}`,
      '  user:',
      user,
      'contexts:',
      '- name: test',
      '  context:',
      '    cluster: test',
      `    user: ${who.user}`,
      ...(who.namespace ? [`    namespace: ${who.namespace}`] : []),
      'current-context: test',
      '',
    ].join('\n');
  }

  /** Writes a kubeconfig for a bearer token (a ServiceAccount's) and returns its path. */
  tokenKubeconfig(name: string, token: string, namespace?: string): string {
    const file = path.join(this.dir, `${name}.kubeconfig`);
    writeFileSync(file, this.kubeconfigYaml({ user: name, token, namespace }));
    return file;
  }

  kubeConfig(file = this.kubeconfigFile): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromFile(file);
    return kc;
  }

  /** Runs kubectl with the admin kubeconfig; throws with its output when it fails. */
  kubectl(args: string[], input?: string): string {
    return run(bin('kubectl'), ['--kubeconfig', this.kubeconfigFile, ...args], input);
  }

  /** Runs helm with the admin kubeconfig. */
  helm(args: string[], input?: string): string {
    return run(bin('helm'), ['--kubeconfig', this.kubeconfigFile, ...args], input, {
      HELM_CACHE_HOME: path.join(this.dir, 'helm-cache'),
      HELM_CONFIG_HOME: path.join(this.dir, 'helm-config'),
      HELM_DATA_HOME: path.join(this.dir, 'helm-data'),
    });
  }

  private async startEtcd(): Promise<void> {
    this.etcdPort = await freePort();
    const peer = await freePort();
    const data = path.join(this.dir, 'etcd');
    this.etcd = spawnLogged(bin('etcd'), [
      '--name=default',
      `--data-dir=${data}`,
      `--listen-client-urls=http://127.0.0.1:${this.etcdPort}`,
      `--advertise-client-urls=http://127.0.0.1:${this.etcdPort}`,
      `--listen-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-cluster=default=http://127.0.0.1:${peer}`,
      '--unsafe-no-fsync',
      '--log-level=warn',
    ]);
    const { child, output } = this.etcd;
    await waitUntil('etcd', () => httpOk(`http://127.0.0.1:${this.etcdPort}/health`), 30_000, child, output);
  }

  /** Starts (or restarts, on the same port and etcd) the apiserver and waits for /readyz. */
  async startApiserver(): Promise<void> {
    const d = this.dir;
    this.api = spawnLogged(bin('kube-apiserver'), [
      `--etcd-servers=http://127.0.0.1:${this.etcdPort}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${this.apiPort}`,
      `--cert-dir=${path.join(d, 'apiserver-certs')}`,
      `--tls-cert-file=${this.serving.cert}`,
      `--tls-private-key-file=${this.serving.key}`,
      `--client-ca-file=${this.ca.certFile}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${path.join(d, 'sa.pub')}`,
      `--service-account-signing-key-file=${path.join(d, 'sa.key')}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      '--authorization-mode=RBAC',
      '--disable-admission-plugins=ServiceAccount',
      ...(this.opts.admissionPlugins?.length ? [`--enable-admission-plugins=${this.opts.admissionPlugins.join(',')}`] : []),
      '--endpoint-reconciler-type=none',
      '--allow-privileged=true',
      '--v=0',
    ]);
    const { child, output } = this.api;
    await waitUntil('kube-apiserver', () => this.apiReady(), 60_000, child, output);
  }

  /** SIGTERM (or SIGKILL) to the apiserver, leaving etcd and its data. */
  async stopApiserver(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await stopChild(this.api?.child, signal);
  }

  private async startControllerManager(): Promise<void> {
    const port = await freePort();
    this.kcm = spawnLogged(bin('kube-controller-manager'), [
      `--kubeconfig=${this.kubeconfigFile}`,
      `--authentication-kubeconfig=${this.kubeconfigFile}`,
      `--authorization-kubeconfig=${this.kubeconfigFile}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${path.join(this.dir, 'kcm-certs')}`,
      '--leader-elect=false',
      '--controllers=garbagecollector,namespace',
      '--concurrent-gc-syncs=5',
      '--v=0',
    ]);
    const { child, output } = this.kcm;
    await waitUntil('kube-controller-manager', () => httpsOk(`https://127.0.0.1:${port}/healthz`), 60_000, child, output);
  }

  private apiReady(): Promise<boolean> {
    return httpsOk(`${this.server}/readyz`, { ca: readFileSync(this.ca.certFile), cert: readFileSync(this.admin.cert), key: readFileSync(this.admin.key) });
  }

  async stop(): Promise<void> {
    await stopChild(this.kcm?.child);
    await stopChild(this.api?.child);
    await stopChild(this.etcd?.child);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function run(file: string, args: string[], input?: string, env: Record<string, string> = {}): string {
  const r = spawnSync(file, args, { input, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0)
    throw new Error(`${path.basename(file)} ${args.filter((a) => !a.includes('kubeconfig')).join(' ')} failed (${r.status}):\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

function httpOk(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    (r) => r.ok,
    () => false,
  );
}

function httpsOk(url: string, tls: https.RequestOptions = { rejectUnauthorized: false }): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.get(url, { ...tls, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
  });
}
