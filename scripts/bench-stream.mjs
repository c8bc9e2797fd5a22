#!/usr/bin/env node
// make bench-stream: one stream process (`node dist/cli.js serve --roles stream`) under SSE load from a
// load generator in its own process (scripts/bench-stream-load.mjs), side by side with baseline (a), a
// minimal node:http SSE fan-out of the same frames with no auth, caps or Redis
// (scripts/bench-stream-baseline.mjs). Events reach the product through Redis: this script XADDs them
// to the all-events stream at the set rate, each carrying `sent_at` (publish time, ms).
//
//   BENCH_DATABASE_URL   database to (re)create and seed    postgres://postgres@127.0.0.1:5432/mapintel_bench_stream
//   BENCH_REDIS_URL      Redis                                redis://127.0.0.1:6379
//   BENCH_MAPS           maps                                 200
//   BENCH_CLIENTS        connections in the fan-out runs      10000 (200 maps x 50)
//   BENCH_IDLE           connections in the idle run          15000 (a process here may hold 20,000 files)
//   BENCH_RATE           events/s of the fan-out run          400
//   BENCH_SATURATION     events/s of the saturation run       2000
//   BENCH_SECONDS        seconds measured per run             10
// Baseline (b) of the issue, Centrifugo's engine, is not built by this script yet: it says so.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createClient } from 'redis';
import { monotonicFactory } from 'ulid';
import { deleteKeys, freePort, recreateDatabase, startChild, waitReady } from './bench-support.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const int = (name, def) => Number(process.env[name] || def);
const MAPS = int('BENCH_MAPS', 200);
const CLIENTS = int('BENCH_CLIENTS', 10_000);
const IDLE = int('BENCH_IDLE', 15_000);
const RATE = int('BENCH_RATE', 400);
const SATURATION = int('BENCH_SATURATION', 2000);
const SECONDS = int('BENCH_SECONDS', 10);
const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/mapintel_bench_stream';
const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const log = (m) => process.stderr.write(`[bench-stream] ${m}\n`);
const rssKiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs the load generator with a job; resolves with its two result lines. */
function load(job) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/bench-stream-load.mjs'), JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const lines = [];
    child.stdout.on('data', (c) => {
      out += c;
      let i;
      while ((i = out.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(out.slice(0, i)));
        out = out.slice(i + 1);
        job.onLine?.(lines.at(-1));
      }
    });
    child.on('exit', (code) => (code === 0 ? resolve(lines) : reject(new Error(`load generator exited ${code}`))));
  });
}

const dist = (p) => import(pathToFileURL(path.join(ROOT, 'dist', p)).href);
const closers = [];
try {
  const db = await recreateDatabase(databaseUrl);
  log(`database ${db.name} recreated`);
  const prefix = `mapintel-bench-stream:${process.pid}-${randomBytes(3).toString('hex')}:`;
  const env = { DATABASE_URL: databaseUrl, SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'warn' };
  const { loadConfig } = await dist('config.js');
  const { buildCore } = await dist('core/core.js');
  const { createApiServices } = await dist('api/services.js');
  const core = await buildCore(loadConfig({ ...env, REDIS_URL: '' }), { migrations: 'apply' });
  const services = createApiServices(core);
  await services.admin.upsertCharacter({ eve_id: '2119900001', name: 'Bench Stream', corporation_id: '98900003', corporation_ticker: 'BENCH' });
  const maps = [];
  for (let i = 0; i < MAPS; i++) {
    const created = await services.admin.createMap({ slug: `bench-stream-${i}`, name: `Stream ${i}`, owner_eve_id: '2119900001' });
    maps.push({ id: created.map.id, key: created.api_key.api_key });
  }
  await core.close();
  log(`seeded ${MAPS} maps`);

  const redis = createClient({ url: redisUrl });
  await redis.connect();
  closers.push(async () => {
    await deleteKeys(redis, prefix);
    await redis.close();
  });
  const productPort = await freePort();
  const product = startChild(
    'product',
    [path.join(ROOT, 'dist/cli.js'), 'serve', '--roles', 'stream'],
    {
      PATH: process.env.PATH ?? '',
      ...env,
      NODE_ENV: 'production',
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
      SERVICE_SSE_ENABLED: 'true',
      STREAM_MAX_PER_MAP: '1000000',
      STREAM_MAX_PER_KEY: '1000000',
      STREAM_MAX_PER_PROCESS: '1000000',
      SERVICE_RATE_LIMIT_PER_MINUTE: '1000000',
      PORT: String(productPort),
      HOST: '127.0.0.1',
      OPS_PORT: '0',
    },
    { cwd: ROOT, port: productPort },
  );
  closers.push(() => product.stop());
  const basePort = await freePort();
  const baseline = startChild(
    'baseline',
    [path.join(ROOT, 'scripts/bench-stream-baseline.mjs')],
    { PATH: process.env.PATH ?? '', BASELINE_PORT: String(basePort), MAPS: String(MAPS) },
    { cwd: ROOT, port: basePort },
  );
  closers.push(() => baseline.stop());
  await waitReady(product, `${product.url}/api/maps/${maps[0].id}/events/stream?token=nope`, 60_000).catch(() => undefined);
  await sleep(1500);

  // The product's events: XADD to the all-events stream, spread over the maps, each with sent_at.
  const nextId = monotonicFactory();
  let publishRate = 0;
  let seq = 0;
  const publisher = setInterval(() => {
    const count = Math.round(publishRate / 100);
    if (!count) return;
    const multi = redis.multi();
    for (let i = 0; i < count; i++) {
      const map = maps[seq++ % maps.length];
      const e = { id: nextId(), type: 'map_kill', map_id: map.id, ts: new Date().toISOString(), payload: { sent_at: Date.now() } };
      multi.xAdd(
        `${prefix}events:all`,
        '*',
        { id: e.id, map_id: map.id, type: e.type, envelope: JSON.stringify(e) },
        { TRIM: { strategy: 'MAXLEN', strategyModifier: '~', threshold: 100_000 } },
      );
    }
    void multi.exec();
  }, 10);
  closers.push(async () => clearInterval(publisher));
  const setBaselineRate = (r) => fetch(`${baseline.url}/rate`, { method: 'POST', body: String(r) });

  const productTargets = maps.map((m) => ({ url: `${product.url}/api/maps/${m.id}/events/stream`, token: m.key }));
  const baseTargets = maps.map((_, i) => ({ url: `${baseline.url}/m${i}/` }));
  const results = {};

  // Idle connections: memory per connection.
  for (const [name, srv, targets] of [
    ['product', product, productTargets],
    ['baseline', baseline, baseTargets],
  ]) {
    const before = rssKiB(srv.child.pid);
    let after;
    await load({ targets, connections: IDLE, holdMs: 3000, onLine: (l) => l.phase === 'open' && setTimeout(() => (after = rssKiB(srv.child.pid)), 2000) }).then(
      ([open]) => {
        results[`idle_${name}`] = {
          opened: open.opened,
          failed: open.failed,
          openPerSecond: open.openPerSecond,
          kbPerConnection: +((after - before) / open.opened).toFixed(2),
        };
      },
    );
    log(`idle ${name}: ${JSON.stringify(results[`idle_${name}`])}`);
    await sleep(2000);
  }

  // Fan-out at RATE and at SATURATION events/s.
  for (const rate of [RATE, SATURATION]) {
    for (const [name, targets, setRate] of [
      ['product', productTargets, (r) => (publishRate = r)],
      ['baseline', baseTargets, setBaselineRate],
    ]) {
      const [open, done] = await load({ targets, connections: CLIENTS, holdMs: SECONDS * 1000, onLine: (l) => l.phase === 'open' && setRate(rate) });
      await setRate(0);
      results[`fanout_${rate}_${name}`] = {
        opened: open.opened,
        openPerSecond: open.openPerSecond,
        deliveriesPerSecond: done.perSecond,
        p50: done.p50,
        p99: done.p99,
        max: done.max,
      };
      log(`fan-out ${rate}/s ${name}: ${JSON.stringify(results[`fanout_${rate}_${name}`])}`);
      await sleep(2000);
    }
  }

  const r = results;
  const ratio = (a, b) => (b ? `${Math.round((100 * a) / b)} %` : 'n/a');
  const rows = [
    `| idle connections (${IDLE}) | ${r.idle_product.kbPerConnection} KB/conn | ${r.idle_baseline.kbPerConnection} KB/conn | |`,
    `| connects/s (auth + caps) | ${r.idle_product.openPerSecond} | ${r.idle_baseline.openPerSecond} | ${ratio(r.idle_product.openPerSecond, r.idle_baseline.openPerSecond)} |`,
  ];
  for (const rate of [RATE, SATURATION]) {
    const p = r[`fanout_${rate}_product`];
    const b = r[`fanout_${rate}_baseline`];
    rows.push(
      `| ${CLIENTS} clients, ${rate} events/s: deliveries/s | ${p.deliveriesPerSecond} | ${b.deliveriesPerSecond} | ${ratio(p.deliveriesPerSecond, b.deliveriesPerSecond)} |`,
    );
    rows.push(`| ${CLIENTS} clients, ${rate} events/s: p50 / p99 ms | ${p.p50} / ${p.p99} | ${b.p50} / ${b.p99} | |`);
  }
  console.log(
    [
      '',
      '| measure | product | baseline (a) node:http | product/baseline |',
      '| --- | --- | --- | --- |',
      ...rows,
      '',
      'baseline (b), the Centrifugo engine: not built by this script yet.',
    ].join('\n'),
  );
} finally {
  for (const c of closers.reverse()) await c().catch(() => undefined);
}
process.exit(0);
