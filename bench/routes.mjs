#!/usr/bin/env node
// Route finder benchmark: routes per second over the full static data (8,437 systems, 13,776 stargate
// jump rows), the product's finder (dist/, its graph read from PostgreSQL as the api role reads it)
// against a bare baseline in the same process, then POST /route/findClosest through HTTP.
//
//   make bench-routes                     (builds, then runs this script)
//   BENCH_DURATION=2 node bench/routes.mjs
//
// Phases: the static data imported through the product's importer into a database of its own; the
// graph loaded by the product's RouteGraphSource (timed); a check that the product and the baseline
// find routes of the same length for every flag on the first 300 pairs (a mismatch fails the run);
// then each flag (shortest, secure, insecure) on the same seeded random pairs of systems with stargates,
// product and baseline in turn, routes/s and their ratio; then `node dist/cli.js serve` answering
// POST /route/findClosest (one destination per request, cycling through the pairs) under autocannon:
// req/s, p50/p99 after a warm-up, and the ratio to the in-process rate of the same flag (what HTTP costs).
//
// Baseline (bench/routes/baseline.mjs): breadth-first and Dijkstra searches over plain number[][]
// adjacency lists, written the obvious way, with the same weights (1, or 1808 into unwanted security).
//
// Environment (all optional):
//   BENCH_STATIC_DIR     static data folder (default ../shared/data/eve-static beside the repo)
//   BENCH_DATABASE_URL   database to (re)create    postgres://postgres@127.0.0.1:5432/mapintel_bench_routes
//   BENCH_DURATION       seconds per flag and side, and of the HTTP phase (default 5)
//   BENCH_CONNECTIONS    concurrent HTTP connections (default 10)
//   BENCH_HTTP=0         skip the HTTP phase
//   BENCH_KEEP_DB=1      keep the database after the run
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bfs, dijkstra, plainGraph } from './routes/baseline.mjs';
import { dropDatabase, freePort, intEnv, recreateDatabase, startChild, waitReady } from './support.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FLAGS = ['shortest', 'secure', 'insecure'];
const PAIRS = 2000;
const CHECKED = 300;
const log = (msg) => process.stderr.write(`[bench-routes] ${msg}\n`);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const dist = (file) => import(pathToFileURL(path.join(ROOT, 'dist', file)).href);

/** Deterministic PRNG (mulberry32): every run measures the same pairs. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `one(i)` over the pairs, round and round, for `seconds`; routes per second. */
function rate(seconds, one) {
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const started = performance.now();
  while (performance.now() < end) {
    for (let k = 0; k < 50; k++) one(n++ % PAIRS);
  }
  return n / ((performance.now() - started) / 1000);
}

async function http(product, pairs, flag, duration, connections) {
  const { default: autocannon } = await import('autocannon');
  const bodies = pairs.map(([o, d]) => JSON.stringify({ origin: o, destinations: [d], flag }));
  let i = 0;
  const result = await autocannon({
    url: `${product.url}/route/findClosest`,
    connections,
    duration,
    requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: bodies[i++ % bodies.length] }) }],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

async function main() {
  const duration = intEnv('BENCH_DURATION', 5);
  const connections = intEnv('BENCH_CONNECTIONS', 10);
  const staticDir = path.resolve(process.env.BENCH_STATIC_DIR || path.join(ROOT, '../shared/data/eve-static'));
  const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/mapintel_bench_routes';
  if (!existsSync(path.join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is missing: run `make build` (or `make bench-routes`)');
  if (!existsSync(path.join(staticDir, 'sde/mapSolarSystemJumps.csv')))
    throw new Error(`${staticDir} has no sde/mapSolarSystemJumps.csv: set BENCH_STATIC_DIR to the full static data`);

  const loadBefore = load();
  const db = await recreateDatabase(databaseUrl);
  log(`database ${db.name} recreated (PostgreSQL ${db.version})`);
  const env = {
    DATABASE_URL: databaseUrl,
    SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SERVICE_ADMIN_TOKEN: `adm_${randomBytes(24).toString('base64url')}`,
    LOG_LEVEL: 'warn',
  };
  let product;
  let core;
  try {
    const { loadConfig } = await dist('common/config.js');
    const { buildCore } = await dist('core/core.js');
    const { dbOf } = await dist('db/db.js');
    const { importStaticData } = await dist('static-data/sde-importer.js');
    const { RouteGraphSource } = await dist('static-data/routes/route-graph-source.js');
    core = await buildCore(loadConfig({ ...env, REDIS_URL: '' }), { migrations: 'apply' });
    const handle = dbOf(core.db.orm);
    const imported = await importStaticData(handle, staticDir, {});
    log(`imported ${imported.systems} systems and ${imported.jumps} jump rows from ${staticDir}`);
    if (imported.systems < 8000) log(`!! ${staticDir} is not the full static data: the figures are not comparable`);

    let started = performance.now();
    const finder = await new RouteGraphSource(handle).finder();
    const loadMs = performance.now() - started;
    const graph = finder.graph;
    started = performance.now();
    const systems = await handle.all('select solar_system_id, security from solar_systems order by solar_system_id');
    const jumps = await handle.all('select from_solar_system_id, to_solar_system_id from solar_system_jumps');
    const plain = plainGraph(systems, jumps);
    const plainMs = performance.now() - started;

    // Pairs of systems with stargates (wormhole space has none): the same list for both sides.
    const gated = [];
    for (let i = 0; i < graph.size; i++) if (graph.offsets[i + 1] > graph.offsets[i]) gated.push(graph.ids[i]);
    const random = prng(43);
    const pairs = Array.from({ length: PAIRS }, () => [gated[Math.floor(random() * gated.length)], gated[Math.floor(random() * gated.length)]]);
    const productSide = pairs.map(([o, d]) => [graph.numberOf(o), graph.numberOf(d)]);
    const plainSide = pairs.map(([o, d]) => [plain.index.get(o), plain.index.get(d)]);
    const productRoute = (flag, i) => finder.closest({ origin: productSide[i][0], flag, destinations: [productSide[i][1]], count: 1 })[0]?.jumps ?? -1;
    const plainRoute = (flag, i) => (flag === 'shortest' ? bfs(plain, ...plainSide[i]) : dijkstra(plain, ...plainSide[i], flag));

    for (const flag of FLAGS) {
      for (let i = 0; i < CHECKED; i++) {
        const [a, b] = [productRoute(flag, i), plainRoute(flag, i)];
        if (a !== b) throw new Error(`${flag} ${pairs[i][0]} → ${pairs[i][1]}: the product found ${a} jumps, the baseline ${b}`);
      }
    }
    log(`product and baseline agree on ${CHECKED} pairs for each flag`);

    const rows = [];
    for (const flag of FLAGS) {
      log(`${flag}: product then baseline, ${duration} s each`);
      const p = rate(duration, (i) => productRoute(flag, i));
      const b = rate(duration, (i) => plainRoute(flag, i));
      rows.push({ flag, product: p, baseline: b });
    }

    let httpRow;
    if (process.env.BENCH_HTTP !== '0') {
      await core.close();
      core = undefined;
      const port = await freePort();
      product = startChild(
        'product',
        [path.join(ROOT, 'dist/cli.js'), 'serve'],
        {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          NODE_ENV: 'production',
          ...env,
          PORT: String(port),
          HOST: '127.0.0.1',
          REDIS_URL: '',
          SERVICE_RATE_LIMIT_PER_MINUTE: '1000000',
        },
        { cwd: ROOT, port },
      );
      await waitReady(product, `${product.url}/readyz`);
      const probe = await fetch(`${product.url}/route/findClosest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ origin: pairs[0][0], destinations: [pairs[0][1]] }),
      });
      const answer = await probe.json();
      if (probe.status !== 200 || (answer.routes[0]?.jumps ?? -1) !== productRoute('shortest', 0))
        throw new Error(`unexpected answer ${probe.status} ${JSON.stringify(answer)}`);
      log(`POST /route/findClosest (shortest), ${connections} connections, ${Math.min(2, duration)} s of warm-up, then ${duration} s`);
      await http(product, pairs, 'shortest', Math.min(2, duration), connections);
      httpRow = await http(product, pairs, 'shortest', duration, connections);
    }

    const loadAfter = load();
    const cpus = os.cpus();
    console.log('');
    console.log(`bench-routes: ${cpus.length} cores (${cpus[0]?.model?.trim() ?? 'unknown'}), Node ${process.version}, PostgreSQL ${db.version}`);
    console.log(`static data: ${graph.size} systems, ${graph.stargates} stargates (${imported.jumps} jump rows), ${gated.length} systems with stargates`);
    console.log(`graph read and built by the product: ${fmt(loadMs)} ms; plain adjacency lists: ${fmt(plainMs)} ms`);
    console.log(`${PAIRS} seeded random pairs, ${duration} s per flag and side, one route per search`);
    console.log('');
    console.log('| flag     | product routes/s | baseline routes/s | product / baseline |');
    console.log('| -------- | ---------------- | ----------------- | ------------------ |');
    for (const r of rows)
      console.log(
        `| ${r.flag.padEnd(8)} | ${fmt(r.product).padStart(16)} | ${fmt(r.baseline).padStart(17)} | ${(r.product / r.baseline).toFixed(2).padStart(16)} × |`,
      );
    if (httpRow) {
      const inProcess = rows.find((r) => r.flag === 'shortest').product;
      console.log('');
      console.log(
        `HTTP POST /route/findClosest (shortest): ${fmt(httpRow.rps)} req/s, p50 ${httpRow.p50} ms, p99 ${httpRow.p99} ms, ` +
          `${httpRow.non2xx} non-2xx, ${httpRow.errors} errors; ${(httpRow.rps / inProcess).toFixed(3)} × the in-process rate`,
      );
    }
    console.log(`load average before / after: ${loadBefore} / ${loadAfter}`);
  } finally {
    await product?.stop();
    await core?.close();
    if (process.env.BENCH_KEEP_DB === '1') log(`database ${db.name} kept`);
    else await dropDatabase(db.admin, db.name).catch((err) => log(`could not drop ${db.name}: ${err.message}`));
  }
}

try {
  await main();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
}
