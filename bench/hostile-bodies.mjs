#!/usr/bin/env node
// Hostile bodies beside a reader: another client's read latency with and without four key holders who
// each send, within their key's rate limit, 1 MB bodies of deeply nested arrays (refused 400).
//
//   make bench-hostile-bodies                    (builds, then runs this script)
//   BENCH_DURATION=5 node bench/hostile-bodies.mjs
//
// The built product (`node dist/cli.js serve`, default rate limit of 100 requests per key and minute) over
// a database of its own. Phase 1: the reader alone; phase 2: the reader while the four senders run. The
// reader reads GET /api/map/systems at a steady pace, spread over keys of its own so that it stays within
// their limits; each sender (a process of its own, so that building and writing its bodies does not slow
// the reader's own event loop) POSTs `[`×500,000 + `]`×500,000 to /api/maps/{map}/kills on its own key at
// BENCH_HOSTILE_PER_MINUTE (95, under the limit) and the answers are checked (400). Printed: the reader's
// p50/p95/p99 and max per phase, the ratio of phase 2 to phase 1, the senders' statuses, and the product's
// CPU seconds per phase and per hostile body.
//
// Environment (all optional):
//   BENCH_DATABASE_URL         database to (re)create and seed   postgres://postgres@127.0.0.1:5432/mapintel_bench_hostile
//   BENCH_REDIS_URL            Redis for the rate-limit counters, as deployed; '' (default) = in-process
//   BENCH_DURATION             seconds per phase (default 30)
//   BENCH_READS_PER_SECOND     the reader's pace (default 10)
//   BENCH_HOSTILE_SENDERS      senders in phase 2 (default 4)
//   BENCH_HOSTILE_PER_MINUTE   bodies per sender and minute (default 95)
//   BENCH_BODY_BYTES           size of a hostile body (default 1,000,000)
//   BENCH_KEEP_DB=1            keep the database after the run
//   BENCH_JSON=path            also write the results as JSON
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dropDatabase, freePort, intEnv, percentile, procCpu, recreateDatabase, sleep, startChild, waitReady } from './support.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);
const LIMIT_PER_MINUTE = 100;
const SYSTEMS = [30000142, 30002420, 31000005, 31000008, 30000021];

const log = (msg) => process.stderr.write(`${new Date().toISOString().slice(11, 23)} ${msg}\n`);

/** Migrates and seeds through the product's own code (dist/): static data, a map with a few systems, and the keys. */
async function seed(env, keyCount) {
  const { loadConfig } = await import(pathToFileURL(path.join(ROOT, 'dist/common/config.js')).href);
  const { buildCore } = await import(pathToFileURL(path.join(ROOT, 'dist/core/core.js')).href);
  const { createApiServices } = await import(pathToFileURL(path.join(ROOT, 'dist/api/services.js')).href);
  const { importStaticData } = await import(pathToFileURL(path.join(ROOT, 'dist/static-data/sde-importer.js')).href);
  const { dbOf } = await import(pathToFileURL(path.join(ROOT, 'dist/db/db.js')).href);
  const core = await buildCore(loadConfig({ ...env, REDIS_URL: '' }), { migrations: 'apply' });
  const services = createApiServices(core);
  try {
    await importStaticData(dbOf(core.db.orm), path.join(ROOT, 'assets/eve-static-sample'), {});
    const owner = {
      eve_id: '2119100001',
      name: 'Hostile Bench',
      corporation_id: '98910001',
      corporation_ticker: 'HOST',
      alliance_id: null,
      alliance_ticker: null,
    };
    await services.admin.upsertCharacter(owner);
    const created = await services.admin.createMap({ slug: 'hostile', name: 'Hostile bodies', owner_eve_id: owner.eve_id });
    const mapId = created.map.id;
    for (const id of SYSTEMS) await services.mapContent.addSystem(mapId, { solarSystemId: id });
    const keys = [created.api_key.api_key];
    while (keys.length < keyCount) keys.push((await services.admin.issueKey(mapId, { character_eve_id: owner.eve_id })).api_key);
    return { mapId, keys };
  } finally {
    await core.close();
  }
}

/** The reader: `perSecond` GETs a second, each timed, round-robin over `keys`, until `until`. */
async function read(product, mapId, keys, perSecond, until) {
  const latencies = [];
  const statuses = new Map();
  const interval = 1000 / perSecond;
  let next = performance.now();
  let i = 0;
  const pending = [];
  while (Date.now() < until) {
    const key = keys[i++ % keys.length];
    pending.push(
      (async () => {
        const started = performance.now();
        const res = await fetch(`${product.url}/api/map/systems?map_id=${mapId}`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      })(),
    );
    next += interval;
    await sleep(Math.max(0, next - performance.now()));
  }
  await Promise.all(pending);
  return { latencies, statuses };
}

/** One hostile sender: `perMinute` bodies a minute on its own key, until `until`; the answers' statuses. */
async function send(product, mapId, key, body, perMinute, until, offsetMs) {
  const statuses = new Map();
  const interval = 60_000 / perMinute;
  await sleep(offsetMs);
  let next = performance.now();
  let sent = 0;
  while (Date.now() < until) {
    const res = await fetch(`${product.url}/api/maps/${mapId}/kills`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    await res.arrayBuffer();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    sent++;
    next += interval;
    await sleep(Math.max(0, next - performance.now()));
  }
  return { sent, statuses };
}

/** A sender in a child process (`--sender`): its options come as a message, its counts go back as one. */
function runSender() {
  process.once('message', async (o) => {
    const half = Math.floor(o.bodyBytes / 2);
    const body = '['.repeat(half) + ']'.repeat(half);
    const r = await send({ url: o.url }, o.mapId, o.key, body, o.perMinute, o.until, o.offsetMs);
    process.send({ sent: r.sent, statuses: Object.fromEntries(r.statuses) }, () => process.exit(0));
  });
}

/** Starts a sender process; resolves its counts when it is done. */
function startSender(options) {
  const child = fork(SELF, ['--sender'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.send(options);
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve({ sent: m.sent, statuses: new Map(Object.entries(m.statuses).map(([k, v]) => [Number(k), v])) }));
    child.once('exit', (code) => (code ? reject(new Error(`a sender exited with code ${code}`)) : undefined));
  });
}

function figures(latencies) {
  const s = [...latencies].sort((a, b) => a - b);
  const r = (v) => Math.round(v * 10) / 10;
  return { n: s.length, p50: r(percentile(s, 0.5)), p95: r(percentile(s, 0.95)), p99: r(percentile(s, 0.99)), max: r(s.at(-1) ?? NaN) };
}

async function main() {
  const duration = intEnv('BENCH_DURATION', 30);
  const readsPerSecond = intEnv('BENCH_READS_PER_SECOND', 10);
  const senders = intEnv('BENCH_HOSTILE_SENDERS', 4);
  const hostilePerMinute = intEnv('BENCH_HOSTILE_PER_MINUTE', 95);
  const bodyBytes = intEnv('BENCH_BODY_BYTES', 1_000_000, 2);
  if (hostilePerMinute >= LIMIT_PER_MINUTE) throw new Error(`BENCH_HOSTILE_PER_MINUTE must stay under the key's limit (${LIMIT_PER_MINUTE})`);
  if (!existsSync(path.join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is missing: run `make build` (or `make bench-hostile-bodies`)');
  const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/mapintel_bench_hostile';
  const redisUrl = process.env.BENCH_REDIS_URL ?? '';
  // The reader's keys: at its pace, each key gets at most half of its limit in any minute.
  const readerKeys = Math.ceil((readsPerSecond * 60) / (LIMIT_PER_MINUTE / 2));

  const db = await recreateDatabase(databaseUrl);
  log(
    `database ${db.name} recreated (PostgreSQL ${db.version}); load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const env = {
    DATABASE_URL: databaseUrl,
    SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SERVICE_ADMIN_TOKEN: `adm_${randomBytes(24).toString('base64url')}`,
    LOG_LEVEL: 'warn',
  };
  let product;
  try {
    const { mapId, keys } = await seed(env, readerKeys + senders);
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
        OPS_PORT: '0',
        SERVICE_RATE_LIMIT_PER_MINUTE: String(LIMIT_PER_MINUTE),
        EVENTS_RELAY_ENABLED: 'false',
        ...(redisUrl ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `mapintel-bench-hostile:${process.pid}:` } : {}),
      },
      { cwd: ROOT, port },
    );
    await waitReady(product, `${product.url}/readyz`);
    const readers = keys.slice(0, readerKeys);
    const hostile = keys.slice(readerKeys);
    const half = Math.floor(bodyBytes / 2);
    log(`product ${product.url}; reader: ${readsPerSecond}/s over ${readerKeys} keys; ${senders} senders × ${hostilePerMinute}/min of ${2 * half} bytes`);

    // A short warm-up (JIT, pool, caches), not measured.
    await read(product, mapId, readers, readsPerSecond, Date.now() + 2_000);

    const cpu0 = procCpu(product.child.pid);
    const alone = await read(product, mapId, readers, readsPerSecond, Date.now() + duration * 1000);
    const cpu1 = procCpu(product.child.pid);
    const until = Date.now() + duration * 1000;
    const [beside, ...sent] = await Promise.all([
      read(product, mapId, readers, readsPerSecond, until),
      ...hostile.map((key, i) =>
        startSender({ url: product.url, mapId, key, bodyBytes, perMinute: hostilePerMinute, until, offsetMs: (i * 60_000) / hostilePerMinute / senders }),
      ),
    ]);
    const cpu2 = procCpu(product.child.pid);

    const a = figures(alone.latencies);
    const b = figures(beside.latencies);
    const hostileSent = sent.reduce((n, s) => n + s.sent, 0);
    const hostileStatuses = {};
    for (const s of sent) for (const [status, n] of s.statuses) hostileStatuses[status] = (hostileStatuses[status] ?? 0) + n;
    const cpuAlone = cpu1 - cpu0;
    const cpuBeside = cpu2 - cpu1;
    const result = {
      machine: { cores: os.cpus().length, node: process.version, load: os.loadavg() },
      settings: { duration, readsPerSecond, readerKeys, senders, hostilePerMinute, bodyBytes: 2 * half },
      alone: { ...a, statuses: Object.fromEntries(alone.statuses) },
      beside: { ...b, statuses: Object.fromEntries(beside.statuses) },
      ratio: { p50: +(b.p50 / a.p50).toFixed(2), p95: +(b.p95 / a.p95).toFixed(2), p99: +(b.p99 / a.p99).toFixed(2) },
      hostile: { sent: hostileSent, statuses: hostileStatuses },
      productCpuSeconds: { alone: +cpuAlone.toFixed(2), beside: +cpuBeside.toFixed(2) },
      cpuMsPerHostileBody: hostileSent ? +(((cpuBeside - cpuAlone) * 1000) / hostileSent).toFixed(1) : null,
    };
    const row = (name, f) =>
      `${name.padEnd(22)} ${String(f.n).padStart(6)} ${String(f.p50).padStart(8)} ${String(f.p95).padStart(8)} ${String(f.p99).padStart(8)} ${String(f.max).padStart(8)}`;
    console.log('\nreader latency, ms          n      p50      p95      p99      max');
    console.log(row('alone', a));
    console.log(row(`beside ${senders} senders`, b));
    console.log(`ratio to alone: p50 ×${result.ratio.p50}, p95 ×${result.ratio.p95}, p99 ×${result.ratio.p99}`);
    console.log(`reader statuses: alone ${JSON.stringify(result.alone.statuses)}, beside ${JSON.stringify(result.beside.statuses)}`);
    console.log(`hostile bodies: ${hostileSent} sent, statuses ${JSON.stringify(hostileStatuses)}`);
    console.log(
      `product CPU: ${result.productCpuSeconds.alone} s alone, ${result.productCpuSeconds.beside} s beside the senders (${result.cpuMsPerHostileBody ?? '–'} ms more per hostile body)`,
    );
    if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(result, null, 2));
    const unexpected = Object.keys(hostileStatuses).filter((s) => s !== '400');
    if (unexpected.length || beside.statuses.size !== 1 || !beside.statuses.has(200)) {
      console.error('unexpected statuses: hostile bodies must all be 400 and the reader’s reads 200');
      process.exitCode = 1;
    }
  } finally {
    await product?.stop();
    if (!process.env.BENCH_KEEP_DB) await dropDatabase(db.admin, db.name).catch((err) => log(`could not drop ${db.name}: ${err.message}`));
  }
}

if (process.argv.includes('--sender')) runSender();
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
