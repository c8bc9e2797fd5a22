#!/usr/bin/env node
// make bench-stream: one stream process (`node dist/cli.js serve --roles stream`) under SSE load from a
// load generator in its own process (bench/stream-load.mjs), side by side with two peers:
//   (a) a minimal node:http SSE fan-out of the same frames with no auth, caps or Redis
//       (bench/stream-baseline.mjs): the floor of Node itself;
//   (b) Centrifugo v5.4.9, the open-source real-time server, built from the Go module proxy into
//       .cache/bin/ on first use (bench/build-centrifugo.mjs): uni-directional SSE, its Redis engine
//       on a key prefix of its own with history on, a JWT naming the client's channel (one per map), fed
//       through its server API (/api/batch). When it cannot be built the bench says so and goes on.
// Events reach the product through Redis: this script XADDs them to the all-events stream at the set
// rate, each carrying `sent_at` (publish time, ms); Centrifugo gets the same envelopes at the same rate.
//
//   BENCH_DATABASE_URL   database to (re)create and seed    postgres://postgres@127.0.0.1:5432/mapintel_bench_stream
//   BENCH_REDIS_URL      Redis                                redis://127.0.0.1:6379
//   BENCH_MAPS           maps                                 200
//   BENCH_CLIENTS        connections in the fan-out runs      10000 (200 maps x 50)
//   BENCH_IDLE           connections in the idle run (0: no   19900 (a process here may hold 20,000 files:
//                        idle run)                                   the server's own files take the rest;
//                                                                    generators hold 10,000 each)
//   BENCH_RATE           events/s of the fan-out run          400 (0: none)
//   BENCH_SATURATION     events/s of the saturation runs      800,1200 (comma-separated; 0: none)
//   BENCH_SECONDS        seconds measured per run             10
//   BENCH_PEERS          which servers                        product,baseline,centrifugo
//   BENCH_CPU_PROF=dir   run the product with --cpu-prof into dir (written when it stops)
//   BENCH_DIST=dir       build output to benchmark (default dist/; e.g. a copy built from another commit, to compare)
//   BENCH_NODE_ARGS      more node flags for the product, e.g. "--trace-gc" (its output goes to stdout)
//   BENCH_STREAM_NODE_OPTIONS  NODE_OPTIONS of the product (default: the chart's stream.nodeOptions,
//                        --max-semi-space-size=1, as a stream pod runs; '' = Node's defaults)
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createClient } from 'redis';
import { monotonicFactory } from 'ulid';
import { deleteKeys, freePort, recreateDatabase, startChild, waitReady } from './support.mjs';
import { CENTRIFUGO_VERSION, ensureCentrifugo } from './build-centrifugo.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const int = (name, def) => Number(process.env[name] || def);
const MAPS = int('BENCH_MAPS', 200);
const CLIENTS = int('BENCH_CLIENTS', 10_000);
const IDLE = Number(process.env.BENCH_IDLE ?? 19_900);
const STREAM_NODE_OPTIONS =
  process.env.BENCH_STREAM_NODE_OPTIONS ??
  (/^stream:\n(?: {2}.*\n)*? {2}nodeOptions: (.*)$/m.exec(readFileSync(new URL('../charts/mapintel/values.yaml', import.meta.url), 'utf8'))?.[1] ?? '').trim();
const RATE = int('BENCH_RATE', 400);
const SATURATION = (process.env.BENCH_SATURATION || '800,1200').split(',').map(Number).filter(Boolean);
const PEERS = (process.env.BENCH_PEERS || 'product,baseline,centrifugo').split(',');
const SECONDS = int('BENCH_SECONDS', 10);
const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/mapintel_bench_stream';
const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const log = (m) => process.stderr.write(`[bench-stream] ${m}\n`);
/** CPU time (user + system) of a process so far, in ms (clock ticks of 10 ms). */
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const rssKiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs one load generator process with a job; resolves with its two result lines. */
function loadOne(job, onLine) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench/stream-load.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.end(JSON.stringify(job));
    let out = '';
    const lines = [];
    child.stdout.on('data', (c) => {
      out += c;
      let i;
      while ((i = out.indexOf('\n')) >= 0) {
        lines.push(JSON.parse(out.slice(0, i)));
        out = out.slice(i + 1);
        onLine?.(lines.at(-1));
      }
    });
    child.on('exit', (code) => (code === 0 ? resolve(lines) : reject(new Error(`load generator exited ${code}`))));
  });
}

/** Connections one generator process opens at most: a process here may hold 20,000 files. */
const PER_GENERATOR = 10_000;

/**
 * Runs the load generator with a job: one process, or for more than PER_GENERATOR connections several
 * (their `open` lines merged into one, reported once all are open; latencies only from one process).
 */
async function load({ onLine, ...job }) {
  const parts = Math.ceil(job.connections / PER_GENERATOR);
  if (parts === 1) return loadOne(job, onLine);
  const opens = [];
  const started = performance.now();
  let allOpen;
  const results = await Promise.all(
    Array.from({ length: parts }, (_, i) => {
      const connections = Math.min(PER_GENERATOR, job.connections - i * PER_GENERATOR);
      // Each part starts at its own offset into the targets, so the maps get the same spread.
      const targets = job.targets.map((_, k) => job.targets[(k + i * PER_GENERATOR) % job.targets.length]);
      return loadOne({ ...job, targets, connections }, (l) => {
        if (l.phase !== 'open') return;
        opens.push(l);
        if (opens.length === parts) {
          const seconds = (performance.now() - started) / 1000;
          const opened = opens.reduce((a, o) => a + o.opened, 0);
          allOpen = { phase: 'open', opened, failed: opens.reduce((a, o) => a + o.failed, 0), openPerSecond: Math.round(opened / seconds) };
          onLine?.(allOpen);
        }
      });
    }),
  );
  return [allOpen, results[0][1]];
}

const DIST = path.resolve(ROOT, process.env.BENCH_DIST || 'dist');
const dist = (p) => import(pathToFileURL(path.join(DIST, p)).href);
const closers = [];
/** HS256 JWT (Centrifugo's connection token). */
const jwt = (claims, secret) => {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
};
const envelope = (nextId, mapId) => ({ id: nextId(), type: 'map_kill', map_id: mapId, ts: new Date().toISOString(), payload: { sent_at: Date.now() } });

try {
  log(
    `machine: ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
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
  const nextId = monotonicFactory();
  /** name → { srv, targets, setRate(r) } */
  const peers = new Map();

  if (PEERS.includes('product')) {
    const productPort = await freePort();
    const prof = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
    if (prof) mkdirSync(prof, { recursive: true });
    const product = startChild(
      'product',
      [
        ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []),
        ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
        path.join(DIST, 'cli.js'),
        'serve',
        '--roles',
        'stream',
      ],
      {
        PATH: process.env.PATH ?? '',
        ...env,
        NODE_ENV: 'production',
        // As the chart runs a stream pod (stream.nodeOptions); BENCH_STREAM_NODE_OPTIONS= for Node's defaults.
        NODE_OPTIONS: STREAM_NODE_OPTIONS,
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
    // The product's events: XADD to the all-events stream, spread over the maps, each with sent_at.
    let rate = 0;
    let seq = 0;
    const publisher = setInterval(() => {
      const count = Math.round(rate / 100);
      if (!count) return;
      const multi = redis.multi();
      for (let i = 0; i < count; i++) {
        const map = maps[seq++ % maps.length];
        const e = envelope(nextId, map.id);
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
    peers.set('product', {
      srv: product,
      // Listening once it answers (401: the token is wrong on purpose).
      ready: () => waitReady(product, `${product.url}/api/maps/${maps[0].id}/events/stream?token=nope`, 60_000, (res) => res.status === 401),
      targets: maps.map((m) => ({ url: `${product.url}/api/maps/${m.id}/events/stream`, token: m.key })),
      setRate: (r) => (rate = r),
    });
  }

  if (PEERS.includes('baseline')) {
    const basePort = await freePort();
    const baseline = startChild(
      'baseline',
      [path.join(ROOT, 'bench/stream-baseline.mjs')],
      { PATH: process.env.PATH ?? '', BASELINE_PORT: String(basePort), MAPS: String(MAPS) },
      { cwd: ROOT, port: basePort },
    );
    closers.push(() => baseline.stop());
    peers.set('baseline', {
      srv: baseline,
      ready: async () => undefined,
      targets: maps.map((_, i) => ({ url: `${baseline.url}/m${i}/` })),
      setRate: (r) => fetch(`${baseline.url}/rate`, { method: 'POST', body: String(r) }),
    });
  }

  let centrifugoNote = '';
  if (PEERS.includes('centrifugo')) {
    const built = await ensureCentrifugo({ log });
    if (built.error) {
      centrifugoNote = `baseline (b) NOT MEASURED: Centrifugo v${CENTRIFUGO_VERSION} could not be built (${built.error})`;
      log(`!!! ${centrifugoNote}; going on without it`);
    } else {
      const cfPort = await freePort();
      const cfPrefix = `mapintel-bench-stream-cf:${process.pid}-${randomBytes(3).toString('hex')}`;
      const secret = randomBytes(24).toString('hex');
      const apiKey = randomBytes(24).toString('hex');
      const dir = path.join(ROOT, '.cache/bench-stream');
      mkdirSync(dir, { recursive: true });
      const configPath = path.join(dir, `centrifugo-${process.pid}.json`);
      writeFileSync(
        configPath,
        JSON.stringify({
          address: '127.0.0.1',
          port: cfPort,
          log_level: 'error',
          token_hmac_secret_key: secret,
          api_key: apiKey,
          uni_sse: true,
          health: true,
          engine: 'redis',
          redis_address: redisUrl,
          redis_prefix: cfPrefix,
          // A bounded history per channel, as the product keeps per map (hot history for resumption).
          history_size: 1000,
          history_ttl: '600s',
        }),
        { mode: 0o600 },
      );
      const cf = startChild('centrifugo', ['-c', configPath], { PATH: process.env.PATH ?? '' }, { cwd: dir, port: cfPort, command: built.path });
      closers.push(() => cf.stop());
      closers.push(async () => deleteKeys(redis, cfPrefix));
      let rate = 0;
      let seq = 0;
      const publisher = setInterval(() => {
        const count = Math.round(rate / 100);
        if (!count) return;
        const commands = [];
        for (let i = 0; i < count; i++) {
          const n = seq++ % maps.length;
          commands.push({ publish: { channel: `m${n}`, data: envelope(nextId, maps[n].id) } });
        }
        fetch(`${cf.url}/api/batch`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: JSON.stringify({ commands }) }).then(
          (r) => r.arrayBuffer(),
          (err) => log(`centrifugo publish failed: ${err.message}`),
        );
      }, 10);
      closers.push(async () => clearInterval(publisher));
      const exp = Math.floor(Date.now() / 1000) + 24 * 3600;
      peers.set('centrifugo', {
        srv: cf,
        ready: () => waitReady(cf, `${cf.url}/health`, 30_000),
        targets: maps.map((_, i) => ({
          url: `${cf.url}/connection/uni_sse?cf_connect=${encodeURIComponent(JSON.stringify({ token: jwt({ sub: `bench-${i}`, channels: [`m${i}`], exp }, secret) }))}`,
        })),
        setRate: (r) => (rate = r),
      });
    }
  } else {
    centrifugoNote = 'baseline (b) not selected (BENCH_PEERS)';
  }
  for (const p of peers.values()) await p.ready();
  await sleep(1500);

  const results = {};
  // Idle connections: memory per connection, and the connection rate (auth and cap admission included).
  if (IDLE > 0) {
    for (const [name, peer] of peers) {
      const before = rssKiB(peer.srv.child.pid);
      const fdsBefore = readdirSync(`/proc/${peer.srv.child.pid}/fd`).length;
      // Resident memory and held connections sampled 2, 4 and 6 s after the last connection opened (the
      // garbage of the connects is collected meanwhile); KB per connection from the median sample.
      const samples = [];
      const sample = () => samples.push({ rss: rssKiB(peer.srv.child.pid), held: readdirSync(`/proc/${peer.srv.child.pid}/fd`).length - fdsBefore });
      const [open] = await load({
        targets: peer.targets,
        connections: IDLE,
        holdMs: 26000,
        onLine: (l) => l.phase === 'open' && [2000, 6000, 10000, 14000, 18000, 22000].forEach((ms) => setTimeout(sample, ms)),
      });
      const perConnection = samples.map((x) => (x.rss - before) / x.held).sort((a, b) => a - b);
      results[`idle_${name}`] = {
        opened: open.opened,
        failed: open.failed,
        openPerSecond: open.openPerSecond,
        // Connections the server holds (its open files, less those it had before), at the last sample.
        held: samples.at(-1)?.held,
        kbPerConnection: +(perConnection[Math.floor(perConnection.length / 2)] ?? NaN).toFixed(2),
        kbPerConnectionSamples: perConnection.map((x) => +x.toFixed(2)),
      };
      log(`idle ${name}: ${JSON.stringify(results[`idle_${name}`])}`);
      await sleep(2000);
    }
  }

  // Fan-out at RATE and at each SATURATION rate.
  for (const rate of [RATE, ...SATURATION].filter(Boolean)) {
    for (const [name, peer] of peers) {
      let cpuAtOpen = 0;
      let cpu = 0;
      const [open, done] = await load({
        targets: peer.targets,
        connections: CLIENTS,
        holdMs: SECONDS * 1000,
        onLine: (l) => {
          if (l.phase === 'open') {
            cpuAtOpen = cpuMs(peer.srv.child.pid);
            void peer.setRate(rate);
          } else cpu = cpuMs(peer.srv.child.pid) - cpuAtOpen;
        },
      });
      await peer.setRate(0);
      results[`fanout_${rate}_${name}`] = {
        opened: open.opened,
        failed: open.failed,
        openPerSecond: open.openPerSecond,
        deliveriesPerSecond: done.perSecond,
        p50: done.p50,
        p99: done.p99,
        max: done.max,
        // Server CPU while measured: share of one core, and microseconds per delivery (less sensitive
        // to other load on the machine than the latencies).
        cpuShare: +(cpu / (SECONDS * 1000)).toFixed(2),
        cpuUsPerDelivery: done.frames ? +((cpu * 1000) / done.frames).toFixed(1) : null,
      };
      log(`fan-out ${rate}/s ${name}: ${JSON.stringify(results[`fanout_${rate}_${name}`])}`);
      await sleep(2000);
    }
  }

  const r = results;
  const names = [...peers.keys()];
  const label = { product: 'product', baseline: '(a) node:http', centrifugo: `(b) Centrifugo ${CENTRIFUGO_VERSION}` };
  const ratioCols = names.includes('product') ? names.filter((n) => n !== 'product') : [];
  const ratio = (a, b) => (typeof a === 'number' && typeof b === 'number' && b ? `${(a / b).toFixed(2)}x` : 'n/a');
  const row = (measure, pick) => {
    const v = names.map((n) => pick(n));
    const ratios = ratioCols.map((n) => ratio(pick('product'), pick(n)));
    return `| ${measure} | ${v.map((x) => x ?? 'n/a').join(' | ')} | ${ratios.join(' | ')} |`;
  };
  const rows = [];
  if (IDLE > 0) {
    rows.push(row(`${IDLE} idle connections: KB per connection`, (n) => r[`idle_${n}`]?.kbPerConnection));
    rows.push(
      row(
        `${IDLE} idle connections: opened / failed / held by the server`,
        (n) => r[`idle_${n}`] && `${r[`idle_${n}`].opened} / ${r[`idle_${n}`].failed} / ${r[`idle_${n}`].held}`,
      ),
    );
    rows.push(row('new connections/s (product: auth + cap admission)', (n) => r[`idle_${n}`]?.openPerSecond));
  }
  for (const rate of [RATE, ...SATURATION].filter(Boolean)) {
    const f = (n) => r[`fanout_${rate}_${n}`];
    rows.push(row(`${CLIENTS} clients, ${rate} events/s: deliveries/s`, (n) => f(n)?.deliveriesPerSecond));
    rows.push(row(`${CLIENTS} clients, ${rate} events/s: p50 ms`, (n) => f(n)?.p50));
    rows.push(row(`${CLIENTS} clients, ${rate} events/s: p99 ms`, (n) => f(n)?.p99));
    rows.push(row(`${CLIENTS} clients, ${rate} events/s: max ms`, (n) => f(n)?.max));
    rows.push(row(`${CLIENTS} clients, ${rate} events/s: server CPU (cores)`, (n) => f(n)?.cpuShare));
    rows.push(row(`${CLIENTS} clients, ${rate} events/s: server CPU µs per delivery`, (n) => f(n)?.cpuUsPerDelivery));
  }
  console.log(
    [
      '',
      `| measure | ${names.map((n) => label[n]).join(' | ')} | ${ratioCols.map((n) => `product / ${label[n]}`).join(' | ')} |`,
      `| --- | ${names.map(() => '---').join(' | ')} | ${ratioCols.map(() => '---').join(' | ')} |`,
      ...rows,
      '',
      ...(centrifugoNote ? [centrifugoNote] : []),
      `product NODE_OPTIONS: ${STREAM_NODE_OPTIONS || "(none: Node's defaults)"} (the chart's stream.nodeOptions; BENCH_STREAM_NODE_OPTIONS overrides)`,
      `load average after the run: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    ].join('\n'),
  );
} finally {
  for (const c of closers.reverse()) await c().catch(() => undefined);
}
process.exit(0);
