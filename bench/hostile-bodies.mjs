#!/usr/bin/env node
// Hostile bodies beside a reader: another client's read latency with and without key holders who each
// send, within their key's rate limit, bodies that are refused 400, one shape per phase
// (bench/hostile-body-shapes.mjs):
//   nested           1 MB of deeply nested arrays (`[`×500,000 + `]`×500,000), 4 senders × 95 a minute;
//   unknown-fields   a 620 KB kill import of 200 kills each with about 100 unknown fields, 2 senders × 15
//                    a minute (the load of the finding that added it).
//
//   make bench-hostile-bodies                    (builds, then runs this script)
//   BENCH_DURATION=5 node bench/hostile-bodies.mjs
//
// The built product (`node dist/cli.js serve`, default rate limit of 100 requests per key and minute) over
// a database of its own. Phase 1: the reader alone; then per shape of BENCH_SHAPES: the reader while that
// shape's senders run. The reader reads GET /api/map/systems at a steady pace, spread over keys of its own
// so that it stays within their limits; each sender (a process of its own, so that building and writing
// its bodies does not slow the reader's own event loop) POSTs its bodies to /api/maps/{map}/kills on its
// own key at its pace (under the limit) and the answers are checked (400). Printed: the reader's
// p50/p95/p99 and max per phase, the ratio of each phase to phase 1, the senders' statuses and the size
// of their 400 answers, and the product's CPU seconds per phase and per hostile body.
//
// Environment (all optional):
//   BENCH_DATABASE_URL         database to (re)create and seed   postgres://postgres@127.0.0.1:5432/mapintel_bench_hostile
//   BENCH_REDIS_URL            Redis for the rate-limit counters, as deployed; '' (default) = in-process
//   BENCH_DURATION             seconds per phase (default 30)
//   BENCH_READS_PER_SECOND     the reader's pace (default 10)
//   BENCH_SHAPES               body shapes, one phase each, comma list (default nested,unknown-fields)
//   BENCH_HOSTILE_SENDERS      senders of the nested shape (default 4)
//   BENCH_HOSTILE_PER_MINUTE   nested bodies per sender and minute (default 95)
//   BENCH_BODY_BYTES           size of a nested body (default 1,000,000)
//   BENCH_UNKNOWN_SENDERS      senders of the unknown-fields shape (default 2)
//   BENCH_UNKNOWN_PER_MINUTE   unknown-fields bodies per sender and minute (default 15)
//   BENCH_UNKNOWN_BYTES        size of an unknown-fields body (default 620,000)
//   BENCH_PRODUCT_NODE_ARGS    node flags of the product process, space-separated (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof")
//   BENCH_KEEP_DB=1            keep the database after the run
//   BENCH_JSON=path            also write the results as JSON
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dropDatabase, freePort, intEnv, percentile, procCpu, recreateDatabase, sleep, startChild, waitReady } from './support.mjs';
import { hostileBody } from './hostile-body-shapes.mjs';

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
  let answerBytes = 0;
  while (Date.now() < until) {
    const res = await fetch(`${product.url}/api/maps/${mapId}/kills`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    answerBytes = Math.max(answerBytes, (await res.arrayBuffer()).byteLength);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    sent++;
    next += interval;
    await sleep(Math.max(0, next - performance.now()));
  }
  return { sent, statuses, answerBytes };
}

/** A sender in a child process (`--sender`): its options come as a message, its counts go back as one. */
function runSender() {
  process.once('message', async (o) => {
    const body = hostileBody(o.shape, o.bodyBytes);
    const r = await send({ url: o.url }, o.mapId, o.key, body, o.perMinute, o.until, o.offsetMs);
    process.send({ sent: r.sent, statuses: Object.fromEntries(r.statuses), answerBytes: r.answerBytes }, () => process.exit(0));
  });
}

/** Starts a sender process; resolves its counts when it is done. */
function startSender(options) {
  const child = fork(SELF, ['--sender'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.send(options);
  return new Promise((resolve, reject) => {
    child.once('message', (m) =>
      resolve({ sent: m.sent, answerBytes: m.answerBytes, statuses: new Map(Object.entries(m.statuses).map(([k, v]) => [Number(k), v])) }),
    );
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
  const shapes = (process.env.BENCH_SHAPES || 'nested,unknown-fields').split(',').map((x) => x.trim());
  const plans = {
    nested: {
      senders: intEnv('BENCH_HOSTILE_SENDERS', 4),
      perMinute: intEnv('BENCH_HOSTILE_PER_MINUTE', 95),
      bodyBytes: intEnv('BENCH_BODY_BYTES', 1_000_000, 2),
    },
    'unknown-fields': {
      senders: intEnv('BENCH_UNKNOWN_SENDERS', 2),
      perMinute: intEnv('BENCH_UNKNOWN_PER_MINUTE', 15),
      bodyBytes: intEnv('BENCH_UNKNOWN_BYTES', 620_000, 10_000),
    },
  };
  for (const shape of shapes) {
    if (!plans[shape]) throw new Error(`BENCH_SHAPES: unknown shape "${shape}" (nested, unknown-fields)`);
    if (plans[shape].perMinute >= LIMIT_PER_MINUTE) throw new Error(`${shape}: bodies per minute must stay under the key's limit (${LIMIT_PER_MINUTE})`);
  }
  if (!existsSync(path.join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is missing: run `make build` (or `make bench-hostile-bodies`)');
  const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/mapintel_bench_hostile';
  const redisUrl = process.env.BENCH_REDIS_URL ?? '';
  const nodeArgs = (process.env.BENCH_PRODUCT_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // The reader's keys: at its pace, each key gets at most half of its limit in any minute.
  const readerKeys = Math.ceil((readsPerSecond * 60) / (LIMIT_PER_MINUTE / 2));
  const senderKeys = Math.max(...shapes.map((x) => plans[x].senders));

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
    const { mapId, keys } = await seed(env, readerKeys + senderKeys);
    const port = await freePort();
    product = startChild(
      'product',
      [...nodeArgs, path.join(ROOT, 'dist/cli.js'), 'serve'],
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
    log(
      `product ${product.url}; reader: ${readsPerSecond}/s over ${readerKeys} keys; ` +
        shapes.map((x) => `${x}: ${plans[x].senders} senders × ${plans[x].perMinute}/min of ${plans[x].bodyBytes} bytes`).join('; '),
    );

    // A short warm-up (JIT, pool, caches), not measured.
    await read(product, mapId, readers, readsPerSecond, Date.now() + 2_000);

    let cpuBefore = procCpu(product.child.pid);
    const alone = await read(product, mapId, readers, readsPerSecond, Date.now() + duration * 1000);
    let cpuAfter = procCpu(product.child.pid);
    const cpuAlone = cpuAfter - cpuBefore;
    const a = figures(alone.latencies);
    const result = {
      machine: { cores: os.cpus().length, node: process.version, load: os.loadavg() },
      settings: { duration, readsPerSecond, readerKeys, shapes: Object.fromEntries(shapes.map((x) => [x, plans[x]])) },
      alone: { ...a, statuses: Object.fromEntries(alone.statuses) },
      productCpuSeconds: { alone: +cpuAlone.toFixed(2) },
      beside: {},
    };
    const row = (name, f) =>
      `${name.padEnd(30)} ${String(f.n).padStart(6)} ${String(f.p50).padStart(8)} ${String(f.p95).padStart(8)} ${String(f.p99).padStart(8)} ${String(f.max).padStart(8)}`;
    const lines = ['', 'reader latency, ms                  n      p50      p95      p99      max', row('alone', a)];
    const notes = [];
    let bad = false;
    for (const shape of shapes) {
      const plan = plans[shape];
      const until = Date.now() + duration * 1000;
      cpuBefore = procCpu(product.child.pid);
      const [beside, ...sent] = await Promise.all([
        read(product, mapId, readers, readsPerSecond, until),
        ...hostile.slice(0, plan.senders).map((key, i) =>
          startSender({
            url: product.url,
            mapId,
            key,
            shape,
            bodyBytes: plan.bodyBytes,
            perMinute: plan.perMinute,
            until,
            offsetMs: (i * 60_000) / plan.perMinute / plan.senders,
          }),
        ),
      ]);
      cpuAfter = procCpu(product.child.pid);
      const b = figures(beside.latencies);
      const hostileSent = sent.reduce((n, x) => n + x.sent, 0);
      const hostileStatuses = {};
      for (const x of sent) for (const [status, n] of x.statuses) hostileStatuses[status] = (hostileStatuses[status] ?? 0) + n;
      const cpuBeside = cpuAfter - cpuBefore;
      const r = {
        ...b,
        statuses: Object.fromEntries(beside.statuses),
        ratio: { p50: +(b.p50 / a.p50).toFixed(2), p95: +(b.p95 / a.p95).toFixed(2), p99: +(b.p99 / a.p99).toFixed(2) },
        hostile: { sent: hostileSent, statuses: hostileStatuses, largestAnswerBytes: Math.max(...sent.map((x) => x.answerBytes)) },
        productCpuSeconds: +cpuBeside.toFixed(2),
        cpuMsPerHostileBody: hostileSent ? +(((cpuBeside - cpuAlone) * 1000) / hostileSent).toFixed(1) : null,
      };
      result.beside[shape] = r;
      lines.push(row(`beside ${plan.senders} ${shape} senders`, b));
      notes.push(
        `${shape}: ratio to alone p50 ×${r.ratio.p50}, p95 ×${r.ratio.p95}, p99 ×${r.ratio.p99}; reader statuses ${JSON.stringify(r.statuses)}; ` +
          `hostile bodies ${hostileSent} sent, statuses ${JSON.stringify(hostileStatuses)}, largest answer ${r.hostile.largestAnswerBytes} bytes; ` +
          `product CPU ${r.productCpuSeconds} s (${cpuAlone.toFixed(2)} s alone; ${r.cpuMsPerHostileBody ?? '–'} ms more per hostile body)`,
      );
      if (Object.keys(hostileStatuses).some((x) => x !== '400') || beside.statuses.size !== 1 || !beside.statuses.has(200)) bad = true;
    }
    console.log([...lines, '', ...notes].join('\n'));
    if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify(result, null, 2));
    if (bad) {
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
