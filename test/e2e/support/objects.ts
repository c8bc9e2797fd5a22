/**
 * What exists in the cluster, for the uninstall check; and killing a pod's processes from the node.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { FULLNAME, NAMESPACE, RELEASE, kubectl } from './cluster.js';

/** Kinds whose objects come and go on their own (or are ours, not the release's). */
const IGNORED = new Set(['events', 'events.events.k8s.io', 'endpoints', 'endpointslices.discovery.k8s.io', 'controllerrevisions.apps', 'pods.metrics.k8s.io']);

/** Every object of the release's namespace as `Kind name`. */
export async function namespacedObjects(): Promise<Set<string>> {
  const kinds = (await kubectl(['api-resources', '--verbs=list', '--namespaced', '-o', 'name'])).split('\n').filter((k) => k && !IGNORED.has(k));
  const out = new Set<string>();
  const text = await kubectl([
    '-n',
    NAMESPACE,
    'get',
    kinds.join(','),
    '--ignore-not-found',
    '-o',
    'jsonpath={range .items[*]}{.kind} {.metadata.name}{"\\n"}{end}',
  ]);
  for (const line of text.split('\n')) if (line.trim()) out.add(line.trim());
  return out;
}

/** Cluster-scoped objects labelled with the release, and the chart's CRD, as `Kind name`. */
async function clusterObjects(): Promise<string[]> {
  const text = await kubectl([
    'get',
    'clusterroles,clusterrolebindings,customresourcedefinitions',
    '-l',
    `app.kubernetes.io/instance=${RELEASE}`,
    '-o',
    'jsonpath={range .items[*]}{.kind} {.metadata.name}{"\\n"}{end}',
  ]);
  const crd = await kubectl([
    'get',
    'customresourcedefinitions',
    'webhooksubscriptions.mapintel.io',
    '--ignore-not-found',
    '-o',
    'jsonpath={.kind} {.metadata.name}',
  ]);
  return [...new Set([...text.split('\n'), crd].map((l) => l.trim()).filter(Boolean))];
}

/**
 * The objects left after `helm uninstall` that were not there before the install, and the list
 * docs/kubernetes.md gives between its `uninstall-leaves` markers (`<fullname>` replaced).
 */
export async function leftoversAfterUninstall(before: Set<string>, docs: string): Promise<{ left: string[]; documented: string[] }> {
  const now = await namespacedObjects();
  const left = [...now].filter((o) => !before.has(o));
  left.push(...(await clusterObjects()));
  const block = /<!-- uninstall-leaves -->([\s\S]*?)<!-- \/uninstall-leaves -->/.exec(docs)?.[1] ?? '';
  const documented = [...block.matchAll(/^- `(\w+) ([^`]+)`/gm)].map((m) => `${m[1]} ${m[2]!.replace('<fullname>', FULLNAME)}`);
  return { left, documented };
}

/** SIGKILLs every process of a pod, from the node: its cgroups under the kubelet's cgroupRoot. */
export function killPodProcesses(uid: string): void {
  const root = '/sys/fs/cgroup/pids/mapintel-e2e';
  const dirs: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir)) {
      const p = path.join(dir, e);
      if (statSync(p).isDirectory()) {
        if (e === `pod${uid}`) dirs.push(p);
        else walk(p);
      }
    }
  };
  walk(root);
  if (dirs.length === 0) throw new Error(`no cgroup of pod ${uid} under ${root}`);
  const pids = new Set<string>();
  const collect = (dir: string) => {
    for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n')) if (pid) pids.add(pid);
    for (const e of readdirSync(dir)) if (statSync(path.join(dir, e)).isDirectory()) collect(path.join(dir, e));
  };
  for (const d of dirs) collect(d);
  // The pod's app processes only, not its sandbox: the pod stays, its container is restarted or deleted.
  const app = [...pids].filter((pid) => !readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('/pause'));
  if (app.length === 0) throw new Error(`pod ${uid} has no processes to kill`);
  execFileSync('kill', ['-KILL', ...app]);
  void NAMESPACE;
}
