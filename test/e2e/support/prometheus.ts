/**
 * Prometheus (Debian's package) on the node, scraping the release the way the chart's ServiceMonitor
 * selects it: the Services carrying the ServiceMonitor's matchLabels, their EndpointSlices' port of the
 * ServiceMonitor's name; job = Service name, as the Prometheus Operator sets it. The selector is read
 * from the chart's rendered ServiceMonitor, not written here. Debian builds Prometheus without
 * Kubernetes service discovery, so this file does the discovery (kubectl, every 2 s) into a file_sd file.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { NAMESPACE, RELEASE, RUN_DIR, helm, kubectlJson, until } from './cluster.js';

/** Where startPrometheus listens: a free loopback port chosen at start (another process may hold any fixed one). */
let PROMETHEUS_URL = '';

/** A port nothing listens on now (the listener is closed before Prometheus binds it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
const DIR = path.join(RUN_DIR, 'prometheus');

/** The chart's ServiceMonitor for this release: its Service selector and its endpoint. */
async function serviceMonitor(): Promise<{ matchLabels: Record<string, string>; port: string; path: string }> {
  const text = await helm([
    'template',
    RELEASE,
    'charts/mapintel',
    '-n',
    NAMESPACE,
    '--set',
    'serviceMonitor.enabled=true',
    // The chart renders a ServiceMonitor only where the Prometheus Operator's API is served.
    '--api-versions',
    'monitoring.coreos.com/v1',
    '--show-only',
    'templates/servicemonitor.yaml',
  ]);
  const sm = parseAllDocuments(text)[0]!.toJSON() as {
    spec: { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path?: string }[] };
  };
  const ep = sm.spec.endpoints[0]!;
  return { matchLabels: sm.spec.selector.matchLabels, port: ep.port, path: ep.path ?? '/metrics' };
}

let discovery: NodeJS.Timeout | undefined;

/** The ServiceMonitor's targets now: one per endpoint of a selected Service, with the Operator's labels. */
async function discover(sm: { matchLabels: Record<string, string>; port: string }): Promise<unknown[]> {
  const selector = Object.entries(sm.matchLabels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const services = await kubectlJson<{ items: { metadata: { name: string } }[] }>(['-n', NAMESPACE, 'get', 'services', '-l', selector]);
  const out: unknown[] = [];
  for (const svc of services.items) {
    const name = svc.metadata.name;
    const slices = await kubectlJson<{ items: any[] }>(['-n', NAMESPACE, 'get', 'endpointslices', '-l', `kubernetes.io/service-name=${name}`]);
    for (const slice of slices.items) {
      const port = (slice.ports ?? []).find((p: { name?: string }) => p.name === sm.port);
      if (!port) continue;
      for (const ep of slice.endpoints ?? []) {
        if (ep.conditions?.terminating) continue;
        for (const ip of ep.addresses ?? []) {
          out.push({
            targets: [`${ip}:${port.port}`],
            labels: { namespace: NAMESPACE, service: name, job: name, pod: ep.targetRef?.name ?? '', endpoint: sm.port },
          });
        }
      }
    }
  }
  return out;
}

export async function startPrometheus(): Promise<void> {
  const sm = await serviceMonitor();
  mkdirSync(path.join(DIR, 'data'), { recursive: true });
  const targetsFile = path.join(DIR, 'targets.json');
  const refresh = async () => {
    writeFileSync(`${targetsFile}.new`, JSON.stringify(await discover(sm)));
    renameSync(`${targetsFile}.new`, targetsFile);
  };
  await refresh();
  discovery = setInterval(() => void refresh().catch(() => {}), 2000);
  const config = {
    global: { scrape_interval: '2s', scrape_timeout: '2s', evaluation_interval: '2s' },
    scrape_configs: [{ job_name: 'servicemonitor', metrics_path: sm.path, file_sd_configs: [{ files: [targetsFile], refresh_interval: '2s' }] }],
  };
  writeFileSync(path.join(DIR, 'prometheus.yml'), JSON.stringify(config, null, 2));
  const port = await freePort();
  PROMETHEUS_URL = `http://127.0.0.1:${port}`;
  const child = spawn(
    'prometheus',
    [
      `--config.file=${DIR}/prometheus.yml`,
      `--storage.tsdb.path=${DIR}/data`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=2h',
      '--log.level=warn',
    ],
    { detached: true, stdio: ['ignore', 'ignore', 'ignore'] },
  );
  child.unref();
  // scripts/e2e/cluster/down.sh stops it with the rest.
  writeFileSync(path.join(RUN_DIR, 'pids', 'prometheus.pid'), `${child.pid}\n`);
  await until('Prometheus ready', 60_000, async () => (await fetch(`${PROMETHEUS_URL}/-/ready`)).ok);
}

export function stopPrometheus(): void {
  clearInterval(discovery);
  try {
    process.kill(Number(readFileSync(path.join(RUN_DIR, 'pids', 'prometheus.pid'), 'utf8')), 'SIGTERM');
  } catch {
    /* not running */
  }
}

export interface Target {
  labels: Record<string, string>;
  health: string;
  lastError: string;
}

export async function activeTargets(): Promise<Target[]> {
  const body = (await (await fetch(`${PROMETHEUS_URL}/api/v1/targets?state=active`)).json()) as { data: { activeTargets: Target[] } };
  return body.data.activeTargets;
}

export async function query(expr: string): Promise<unknown[]> {
  const res = await fetch(`${PROMETHEUS_URL}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; error?: string; data?: { result: unknown[] } };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
  return body.data!.result;
}

/** Every PromQL expression of the chart's Grafana dashboard, with its variables set for this release. */
export function dashboardQueries(): { title: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync('charts/mapintel/files/dashboard.json', 'utf8')) as unknown;
  const out: { title: string; expr: string }[] = [];
  const walk = (o: unknown, title: string) => {
    if (Array.isArray(o)) for (const v of o) walk(v, title);
    else if (o && typeof o === 'object') {
      const rec = o as Record<string, unknown>;
      const t = typeof rec.title === 'string' ? rec.title : title;
      if (typeof rec.expr === 'string') {
        out.push({
          title: t,
          expr: rec.expr
            .replaceAll('$namespace', NAMESPACE)
            .replaceAll('$release', RELEASE)
            .replaceAll('$__rate_interval', '5m')
            .replaceAll('$__interval', '30s'),
        });
      }
      for (const v of Object.values(rec)) walk(v, t);
    }
  };
  walk(dashboard, '');
  return out;
}
