#!/usr/bin/env node
// Operator benchmark: N WebhookSubscription resources created at once on a real kube-apiserver (the
// cluster tests' harness: etcd + kube-apiserver v1.36.3 on loopback), reconciled by one operator
// process (`node dist/cli.js serve --roles operator`) over the machine's PostgreSQL.
//
//   make bench-operator                        (builds, then runs this script; idle phase 5 minutes)
//   BENCH_IDLE_SECONDS=20 make bench-operator  (a quick run)
//
// Reports: time from the first create until every resource is Ready (observed through a watch),
// reconciles per second over that time, apiserver requests per resource (by verb; the operator's own
// counter, lease renewals and watches apart), then an idle phase in which the reconcile count and the
// operator's apiserver writes should stay flat. No baseline peer exists here; target (issue): all
// Ready within 60 s for 1,000 resources.
//
// Environment (all optional):
//   BENCH_RESOURCES        resources to create (default 1000); 5 per map (the per-map limit), so N/5 maps
//   BENCH_CREATE_PARALLEL  concurrent create requests (default 32)
//   BENCH_IDLE_SECONDS     idle phase after all are Ready (default 300)
//   BENCH_DATABASE_URL     database to drop and recreate (default postgres://postgres@127.0.0.1:5432/mapintel_bench_operator)
//   OPERATOR_CONCURRENCY   passed to the operator when set (its default: 4)
//   OPERATOR_KUBE_API_QPS, OPERATOR_KUBE_API_BURST  passed to the operator when set (its client-side limit: 300, 600)
//   BENCH_KEEP_DB=1        keep the database afterwards
//   BENCH_JSON=path        also write the results as JSON
// Needs the Kubernetes binaries (`make kube-tools`) and tsx (a dev dependency) for the harness.
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dropDatabase, freePort, recreateDatabase, startChild, waitReady } from './support.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const log = (m) => process.stderr.write(`bench-operator: ${m}\n`);
const intEnv = (name, dflt, min = 1) => {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}`);
  return n;
};

/** Sums a Prometheus counter's samples whose labels pass `keep`. */
function sum(text, name, keep = () => true) {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labels = Object.fromEntries([...(/\{(.*)\}/.exec(line)?.[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (keep(labels)) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

async function main() {
  const resources = intEnv('BENCH_RESOURCES', 1000);
  const parallel = intEnv('BENCH_CREATE_PARALLEL', 32);
  const idleSeconds = intEnv('BENCH_IDLE_SECONDS', 300, 0);
  const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/mapintel_bench_operator';
  if (!existsSync(path.join(DIST, 'cli.js'))) throw new Error('dist/ is missing: run `make build` (or `make bench-operator`)');
  const { TestCluster, kubeUnavailable } = await import(pathToFileURL(path.join(ROOT, 'test/support/kube.ts')).href);
  const missing = kubeUnavailable(['etcd', 'kube-apiserver', 'kubectl']);
  if (missing) throw new Error(missing);
  const dist = (p) => import(pathToFileURL(path.join(DIST, p)).href);
  const { loadConfig } = await dist('common/config.js');
  const { buildCore } = await dist('core/core.js');
  const { dbOf } = await dist('db/db.js');
  const { AdminService } = await dist('admin/admin.service.js');
  const { KubeClient } = await dist('operator/kube-client.js');

  const loadBefore = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const db = await recreateDatabase(databaseUrl);
  log(`database ${db.name} recreated (PostgreSQL ${db.version})`);
  const env = { DATABASE_URL: databaseUrl, SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'warn' };

  // Maps: five subscriptions each (the platform's limit per map).
  const maps = Math.ceil(resources / 5);
  const core = await buildCore(loadConfig({ ...env, OPS_PORT: '0' }), { migrations: 'apply', redis: false });
  const admin = new AdminService(dbOf(core.db.orm));
  await admin.upsertCharacter({ eve_id: '2117000001', name: 'Bench Pilot', corporation_id: '98000001', corporation_ticker: 'BENCH' });
  const slugs = [];
  const keys = [];
  for (let i = 0; i < maps; i++) {
    const slug = `bench-${i}`;
    const made = await admin.createMap({ slug, name: `Bench ${i}`, owner_eve_id: '2117000001' });
    slugs.push(slug);
    keys.push(made.api_key.api_key);
  }
  // Webhooks on (maps start with them off, and a resource of such a map is not Ready).
  await dbOf(core.db.orm).run('update maps set webhooks_enabled = true');
  await core.close();
  log(`${maps} maps created`);

  const cluster = await TestCluster.start();
  let operator;
  try {
    cluster.kubectl(['apply', '--server-side', '-f', path.join(ROOT, 'charts/mapintel/crds')]);
    cluster.kubectl(['wait', '--for=condition=Established', '--timeout=30s', 'crd/webhooksubscriptions.mapintel.io']);
    cluster.kubectl(['create', 'namespace', 'bench']);
    // Each map's key in a Secret of the namespace (spec.mapKeySecretRef: the proof a resource may read its map).
    cluster.kubectl(
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: keys.map((key, i) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `key-${i}`, namespace: 'bench' }, stringData: { key } })),
      }),
    );
    const opsPort = await freePort();
    operator = startChild(
      'operator',
      [path.join(DIST, 'cli.js'), 'serve', '--roles', 'operator'],
      {
        PATH: process.env.PATH,
        ...env,
        KUBECONFIG: cluster.kubeconfigFile,
        OPS_PORT: String(opsPort),
        OPS_HOST: '127.0.0.1',
        PORT: '0',
        SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true',
        OPERATOR_IDENTITY: 'bench',
        ...(process.env.OPERATOR_CONCURRENCY ? { OPERATOR_CONCURRENCY: process.env.OPERATOR_CONCURRENCY } : {}),
        ...(process.env.OPERATOR_KUBE_API_QPS ? { OPERATOR_KUBE_API_QPS: process.env.OPERATOR_KUBE_API_QPS } : {}),
        ...(process.env.OPERATOR_KUBE_API_BURST ? { OPERATOR_KUBE_API_BURST: process.env.OPERATOR_KUBE_API_BURST } : {}),
      },
      { port: opsPort },
    );
    await waitReady(operator, `http://127.0.0.1:${opsPort}/readyz`);
    const metrics = async () => (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
    const reconciles = (t) => sum(t, 'controller_runtime_reconcile_total');
    const requests = (t, keep) => sum(t, 'mapintel_operator_apiserver_requests_total', keep);
    for (let i = 0; !/leader_election_master_status\{name="mapintel-operator"\} 1/.test(await metrics()); i++) {
      if (i > 100) throw new Error('the operator did not take the lease');
      await new Promise((r) => setTimeout(r, 200));
    }

    const client = new KubeClient(cluster.kubeConfig());
    const base = '/apis/mapintel.io/v1alpha1/namespaces/bench/webhooksubscriptions';
    const readyAt = new Map();
    const watch = await client.watch(base, { allowWatchBookmarks: 'true' }, (e) => {
      const ok = e.object?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      if (ok && !readyAt.has(e.object.metadata.name)) readyAt.set(e.object.metadata.name, Date.now());
    });
    const before = await metrics();
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        for (let i = next++; i < resources; i = next++) {
          await client.create(base, {
            apiVersion: 'mapintel.io/v1alpha1',
            kind: 'WebhookSubscription',
            metadata: { name: `hook-${i}`, namespace: 'bench' },
            spec: { map: slugs[Math.floor(i / 5)], url: `https://127.0.0.1:9/hook-${i}`, events: ['*'], mapKeySecretRef: { name: `key-${Math.floor(i / 5)}` } },
          });
        }
      }),
    );
    const created = Date.now() - started;
    log(`${resources} resources created in ${(created / 1000).toFixed(1)} s`);
    const timeoutMs = Math.max(120_000, resources * 200);
    while (readyAt.size < resources) {
      if (Date.now() - started > timeoutMs) throw new Error(`only ${readyAt.size} of ${resources} Ready after ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const allReady = Math.max(...readyAt.values()) - started;
    // Let the last status writes and their watch echoes settle before counting.
    await new Promise((r) => setTimeout(r, 2000));
    const after = await metrics();
    const rec = reconciles(after) - reconciles(before);
    const byVerb = {};
    for (const verb of ['GET', 'LIST', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      const n = requests(after, (l) => l.verb === verb && l.resource !== 'leases') - requests(before, (l) => l.verb === verb && l.resource !== 'leases');
      if (n) byVerb[verb] = n;
    }
    const perResource = Object.values(byVerb).reduce((a, b) => a + b, 0) / resources;
    const errors = sum(after, 'controller_runtime_reconcile_errors_total') - sum(before, 'controller_runtime_reconcile_errors_total');

    log(`all Ready after ${(allReady / 1000).toFixed(1)} s; idle for ${idleSeconds} s`);
    const idleStart = await metrics();
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const idleEnd = await metrics();
    watch.abort();
    client.close();
    const idle = {
      seconds: idleSeconds,
      reconciles: reconciles(idleEnd) - reconciles(idleStart),
      writes:
        requests(idleEnd, (l) => ['POST', 'PUT', 'PATCH'].includes(l.verb) && l.resource !== 'leases') -
        requests(idleStart, (l) => ['POST', 'PUT', 'PATCH'].includes(l.verb) && l.resource !== 'leases'),
      leaseRenewals: requests(idleEnd, (l) => l.resource === 'leases') - requests(idleStart, (l) => l.resource === 'leases'),
      watchRestarts: requests(idleEnd, (l) => l.verb === 'WATCH') - requests(idleStart, (l) => l.verb === 'WATCH'),
      rssMiB: Math.round(sum(idleEnd, 'mapintel_process_resident_memory_bytes') / 2 ** 20),
    };
    const loadAfter = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    const result = {
      resources,
      maps,
      createSeconds: +(created / 1000).toFixed(2),
      allReadySeconds: +(allReady / 1000).toFixed(2),
      reconciles: rec,
      reconcileErrors: errors,
      reconcilesPerSecond: +(rec / (allReady / 1000)).toFixed(1),
      apiserverRequestsPerResource: +perResource.toFixed(2),
      apiserverRequestsByVerb: byVerb,
      idle,
      load: { before: loadBefore, after: loadAfter },
      machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model?.trim(), node: process.version, postgres: db.version },
    };
    console.log(`\nmake bench-operator: ${resources} WebhookSubscriptions, one operator (OPERATOR_CONCURRENCY=${process.env.OPERATOR_CONCURRENCY ?? '4'})`);
    console.log(`  created (${parallel} parallel requests)   ${result.createSeconds} s`);
    console.log(`  all Ready after                  ${result.allReadySeconds} s   (target ≤ 60 s: ${result.allReadySeconds <= 60 ? 'met' : 'MISSED'})`);
    console.log(`  reconciles                       ${rec} (${errors} errors), ${result.reconcilesPerSecond}/s`);
    console.log(`  apiserver requests per resource  ${result.apiserverRequestsPerResource}  ${JSON.stringify(byVerb)} (no lease renewals, no watches)`);
    console.log(
      `  idle ${idleSeconds} s                      reconciles +${idle.reconciles}, writes +${idle.writes}, lease renewals ${idle.leaseRenewals}, watch restarts ${idle.watchRestarts}; RSS ${idle.rssMiB} MiB`,
    );
    console.log(`  load average before / after      ${loadBefore} / ${loadAfter} (${result.machine.cores} cores)`);
    if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(result, null, 2));
  } finally {
    await operator?.stop();
    await cluster.stop();
    if (!process.env.BENCH_KEEP_DB) await dropDatabase(db.admin, db.name);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`bench-operator failed: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
