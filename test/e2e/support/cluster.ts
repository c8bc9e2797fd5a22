/**
 * The e2e tier's view of the running cluster (started by scripts/e2e/run.mjs): kubectl and helm
 * against its admin kubeconfig, Services reached by their ClusterIPs from the host, pods by their IPs,
 * and the time each check took (printed by run.mjs at the end).
 */
import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const RUN_DIR = process.env.E2E_RUN_DIR ?? '/tmp/mapintel-e2e';
export const KUBECONFIG = path.join(RUN_DIR, 'admin.kubeconfig');
export const PKI = path.join(RUN_DIR, 'pki');
const bin = (name: string) => execFileSync('node', ['scripts/e2e/node-tools.mjs', '--path', name], { encoding: 'utf8' }).trim();
export const KUBECTL = bin('kubectl');
export const HELM = bin('helm');
export const NODE_IP = '10.244.0.1';
export const NAMESPACE = 'mapintel';
export const RELEASE = 'e2e';
export const FULLNAME = `${RELEASE}-mapintel`;
export const IMAGE = process.env.E2E_IMAGE ?? 'localhost/mapintel:dev';
export const DATABASE = process.env.E2E_DATABASE ?? 'mapintel_e2e';
export const REDIS_PREFIX = process.env.E2E_REDIS_PREFIX ?? 'mapintel-e2e:';
export const ADMIN_TOKEN = 'adm_e2e_0123456789abcdef0123456789abcdef';

export async function kubectl(args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<string> {
  const child = run(KUBECTL, ['--kubeconfig', KUBECONFIG, ...args], { maxBuffer: 64 * 1024 * 1024, timeout: opts.timeoutMs ?? 120_000 });
  if (opts.input !== undefined) {
    child.child.stdin?.end(opts.input);
  }
  const { stdout } = await child;
  return stdout;
}

export async function kubectlJson<T = any>(args: string[]): Promise<T> {
  return JSON.parse(await kubectl([...args, '-o', 'json'])) as T;
}

/** kubectl apply of one or more objects given as JSON values. */
export async function apply(...objects: unknown[]): Promise<void> {
  await kubectl(['apply', '-f', '-'], { input: objects.map((o) => JSON.stringify(o)).join('\n---\n') });
}

export async function helm(args: string[], timeoutMs = 600_000): Promise<string> {
  const { stdout } = await run(HELM, ['--kubeconfig', KUBECONFIG, ...args], { maxBuffer: 16 * 1024 * 1024, timeout: timeoutMs });
  return stdout;
}

/** Polls `fn` until it returns a value other than undefined/false; throws with the last state after `ms`. */
export async function until<T>(what: string, ms: number, fn: () => Promise<T | undefined | false>, everyMs = 500): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v as T;
      last = v;
    } catch (err) {
      last = err instanceof Error ? err.message : err;
    }
    if (Date.now() > end) throw new Error(`${what}: not reached within ${ms / 1000} s (last: ${String(last).slice(0, 500)})`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function clusterIP(service: string): Promise<string> {
  return (await kubectl(['-n', NAMESPACE, 'get', 'service', service, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
}

export interface PodInfo {
  name: string;
  ip: string;
  uid: string;
  ready: boolean;
  restarts: number;
  phase: string;
  deleting: boolean;
}

export async function pods(component: string): Promise<PodInfo[]> {
  const list = await kubectlJson<{ items: any[] }>([
    '-n',
    NAMESPACE,
    'get',
    'pods',
    '-l',
    `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=${component}`,
  ]);
  return list.items.map((p) => ({
    name: p.metadata.name,
    ip: p.status.podIP ?? '',
    uid: p.metadata.uid,
    ready: (p.status.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'),
    restarts: (p.status.containerStatuses ?? []).reduce((n: number, c: any) => n + (c.restartCount ?? 0), 0),
    phase: p.status.phase,
    deleting: Boolean(p.metadata.deletionTimestamp),
  }));
}

/** Records how long a check took; run.mjs prints the list after the run. */
export function recordDuration(name: string, seconds: number): void {
  mkdirSync('.test-results', { recursive: true });
  appendFileSync('.test-results/e2e-checks.tsv', `${name}\t${seconds.toFixed(1)}\n`);
}

/** Reads one metric's samples from a Prometheus text page: labels string -> value. */
export function samples(text: string, name: string): { labels: string; value: number }[] {
  const out: { labels: string; value: number }[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)/.exec(line);
    if (m && m[1] === name) out.push({ labels: m[2] ?? '', value: Number(m[3]) });
  }
  return out;
}
