#!/usr/bin/env node
// REST read benchmark: the built product (dist/) against a bare node:http + pg baseline running the same SQL.
//
//   make bench-api                       (builds, then runs this script)
//   BENCH_DURATION=3 node bench/api.mjs
//
// Phases: each endpoint on both servers at saturation (repeated reads of an unchanged map: the product answers
// them from its read cache); then, product only, the same reads with `If-None-Match` naming the current ETag
// (304s/s); systems and connections on both servers paced at 50 % of the baseline's saturation (p50/p99);
// and a mixed run, readers under load while a writer moves a system once a second through the editing API
// and reads the map right after each write (cache hit rate from the product's metrics; a read that misses
// the write just made counts as stale and fails the run). The product's resident memory is sampled between
// phases.
//
// Environment (all optional):
//   BENCH_DATABASE_URL   database to (re)create and seed    postgres://postgres@127.0.0.1:5432/mapintel_bench
//   BENCH_REDIS_URL      Redis the product uses for its rate-limit counters, as deployed; '' = in-process store
//                        (default redis://127.0.0.1:6379)
//   BENCH_DURATION       seconds measured per endpoint and server (default 10)
//   BENCH_WARMUP         seconds of unmeasured warm-up before each measurement (default 2, at most BENCH_DURATION)
//   BENCH_CONNECTIONS    concurrent connections (default 50)
//   BENCH_STATIC_DIR     static data folder (default assets/eve-static-sample)
//   BENCH_KEEP_DB=1      keep the database after the run (it is dropped and recreated at the next start anyway)
//   BENCH_JSON=path      also write the results as JSON
//   BENCH_ENDPOINTS      comma-separated subset to measure, e.g. systems,connections (default: all three)
//   BENCH_CPU_PROF=dir   run both servers with --cpu-prof into dir (profiles are written when they stop)
//
// The same file is the baseline server: `node bench/api.mjs --baseline` (spawned by the benchmark).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBaseline } from './api/baseline-server.mjs';
import { ENDPOINTS, log, ROOT } from './api/common.mjs';
import { heapMiB, rssMiB, sanity } from './api/measure.mjs';
import { mixedRun, pacedRuns, revalidation, saturation } from './api/phases.mjs';
import { report } from './api/report.mjs';
import { seed } from './api/seed.mjs';
import { deleteRedisKeys, dropDatabase, freePort, recreateDatabase, startChild, waitReady } from './support.mjs';

const SELF = fileURLToPath(import.meta.url);

async function main() {
  const { default: autocannon } = await import('autocannon');
  const duration = Number(process.env.BENCH_DURATION ?? 10);
  const warmup = Math.min(Number(process.env.BENCH_WARMUP ?? 2), duration);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
  if (!(duration > 0) || !(connections > 0)) throw new Error('BENCH_DURATION and BENCH_CONNECTIONS must be positive');
  const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/mapintel_bench';
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!existsSync(path.join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is missing: run `make build` (or `make bench-api`)');

  const cpus = os.cpus();
  const machine = {
    cores: cpus.length,
    cpu: cpus[0]?.model?.trim() ?? 'unknown',
    memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };

  const loadBefore = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  const db = await recreateDatabase(databaseUrl);
  machine.postgres = db.version;
  log(`database ${db.name} recreated (PostgreSQL ${db.version})`);
  const env = {
    DATABASE_URL: databaseUrl,
    SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SERVICE_ADMIN_TOKEN: `adm_${randomBytes(24).toString('base64url')}`,
    LOG_LEVEL: 'warn',
  };
  const servers = [];
  try {
    const seeded = await seed(env);
    const [productPort, baselinePort] = [await freePort(), await freePort()];
    const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' };
    const prof = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
    if (prof) mkdirSync(prof, { recursive: true });
    const nodeArgs = prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [];
    const product = startChild(
      'product',
      [...nodeArgs, path.join(ROOT, 'dist/cli.js'), 'serve'],
      {
        ...base,
        ...env,
        PORT: String(productPort),
        HOST: '127.0.0.1',
        SERVICE_RATE_LIMIT_PER_MINUTE: '1000000',
        // The bench reads the product's read-cache counters and heap from /metrics on this port.
        SERVICE_METRICS_PUBLIC: 'true',
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: `mapintel-bench:${process.pid}:`,
      },
      { cwd: ROOT, port: productPort },
    );
    servers.push(product);
    const baseline = startChild(
      'baseline',
      [...nodeArgs, SELF, '--baseline'],
      { ...base, BASELINE_PORT: String(baselinePort), BASELINE_DATABASE_URL: databaseUrl },
      { cwd: ROOT, port: baselinePort },
    );
    servers.push(baseline);
    await Promise.all([waitReady(product, `${product.url}/readyz`), waitReady(baseline, `${baseline.url}/healthz`)]);
    log(`product ${product.url} (node dist/cli.js serve, rate-limit store: ${redisUrl ? 'Redis' : 'in-process'}), baseline ${baseline.url}`);

    const headers = { authorization: `Bearer ${seeded.apiKey}` };
    const query = `?map_id=${seeded.mapId}`;
    const checks = await sanity(product, baseline, query, headers);

    const only = (process.env.BENCH_ENDPOINTS ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    const measured = only.length ? ENDPOINTS.filter((ep) => only.some((o) => ep === o || ep === `/api/map/${o}`)) : ENDPOINTS;
    if (!measured.length) throw new Error(`BENCH_ENDPOINTS names none of ${ENDPOINTS.join(', ')}`);
    const ctx = { autocannon, duration, warmup, connections, product, baseline, servers, headers, query, mapId: seeded.mapId, measured };
    const results = await saturation(ctx);

    // Beyond the table: revalidation (If-None-Match → 304), latency at half the baseline's saturation, and
    // reads under 1 write/s to the map (hit rate, and a read right after each write must see it), with the
    // product's resident memory sampled between phases.
    ctx.memory = [rssMiB(product.child.pid)];
    ctx.heaps = [await heapMiB(product.url)];
    const revalidated = await revalidation(ctx, results);
    const pacedRows = await pacedRuns(ctx, results);
    const mixed = await mixedRun(ctx);

    report({ machine, loadBefore, duration, warmup, connections, checks, results, revalidated, pacedRows, mixed, memory: ctx.memory, heaps: ctx.heaps });
  } finally {
    for (const s of servers.reverse()) await s.stop();
    if (redisUrl) await deleteRedisKeys(redisUrl, `mapintel-bench:${process.pid}:`).catch((err) => log(`could not delete Redis keys: ${err.message}`));
    if (process.env.BENCH_KEEP_DB === '1') log(`database ${db.name} kept`);
    else await dropDatabase(db.admin, db.name).catch((err) => log(`could not drop ${db.name}: ${err.message}`));
  }
}

if (process.argv[2] === '--baseline') {
  await runBaseline();
} else {
  try {
    await main();
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  }
}
