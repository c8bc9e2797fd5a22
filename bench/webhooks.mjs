#!/usr/bin/env node
// Webhook delivery benchmark: ONE worker process (`node dist/cli.js serve --roles worker`) delivering to
// a local receiver process (bench/webhooks-receiver.mjs: node:http on loopback, 200 at once,
// event→receiver latency from the envelope's `ts`), against a bare sign-and-POST loop in a process of
// its own as the baseline (bench/webhooks-baseline.mjs).
//
//   make bench-webhooks                              (builds, then runs this script)
//   BENCH_BACKLOG=10000 BENCH_RATES=500,1000 node bench/webhooks.mjs
//
// Set-up: BENCH_MAPS maps, map i with 1 + (i mod BENCH_SUBS_MAX) subscriptions (3 on average with the
// defaults), each subscription its own path `/s/<n>` on the receiver, every event type, created and
// switched on through the product's WebhookService (what POST /api/maps/{map_id}/webhooks and PUT
// …/webhooks/toggle call). Events are kills committed through the product's batch write path
// (KillsService.import, POST /api/maps/{map_id}/kills) in this process, maps taken in turn; the relay
// (`node dist/cli.js serve --roles api`, its own process) publishes them to Redis, where the worker's
// durable consumer reads them. A delivery is counted when the receiver has its whole body.
//
// Phases, in this order (one database, one Redis key prefix, one worker process for all of them):
//   1 saturation  the worker registers its consumer and stops; kills making BENCH_BACKLOG deliveries are
//       committed and published; the worker starts again and plans and delivers the backlog.
//       deliveries/s = distinct deliveries from the first to the last received (the figure held against
//       the target); the detail adds the rate after the first third arrived (the process warmed up, the
//       backlog planned) and the deliveries received in each second.
//   2 baseline    the same bodies to the same paths with the same secrets, signed and POSTed by a bare
//       loop with the sender's HTTP client (axios, one keep-alive agent with the sender's socket limits,
//       BENCH_CONCURRENCY in flight); deliveries/s measured the same way; ratio worker/baseline.
//   3 latency     for each rate of BENCH_RATES (deliveries/s), kills paced for BENCH_RATE_SECONDS
//       (events/s = rate / subscriptions per map on average, at most BENCH_TX_PER_SECOND transactions/s):
//       event→receiver p50/p99 (arrival − envelope ts, which is the event row's insert time), with the
//       event→planned share read from webhook_deliveries (inserted_at − event_at), and the worker's
//       event-loop delay over the run (its metrics, which include the 10 ms sampling interval).
//   4 isolation   one subscription in round(100 / BENCH_HANG_PERCENT) is pointed at `/hang/<n>` (the
//       receiver never answers; the worker's WEBHOOK_TIMEOUT_MS ends each attempt and retries follow the
//       worker's schedule), then kills are paced at BENCH_ISOLATION_RATE deliveries/s (every subscription
//       counted): p99 of the healthy receivers against the all-healthy p99 of phase 3 at the same rate.
//   5 quiet       (only when named in BENCH_PHASES) BENCH_QUIET_EVENTS single kills, each after BENCH_QUIET_SECONDS
//       without any write: event→receiver latency of the first event after a quiet spell, when idle
//       connections (the writers', the relay's, the worker's) may have been closed.
// Every phase checks that every planned delivery (to a healthy path) arrived at least once, and one
// request in BENCH_VERIFY_EVERY has its signature verified by the receiver.
//
// Targets: ≥ 3,000 deliveries/s; p99 ≤ 50 ms below saturation; worker/baseline ≥ 0.7; healthy p99 with
// some subscriptions timing out ≤ 2× the all-healthy p99. A miss is reported, not an error: the exit code
// is non-zero only when the benchmark breaks (lost deliveries, a failed signature, a child that dies).
//
// Environment (all optional):
//   BENCH_DATABASE_URL     database to drop and recreate   postgres://postgres@127.0.0.1:5432/mapintel_bench_webhooks
//   BENCH_REDIS_URL        Redis (default redis://127.0.0.1:6379); keys under mapintel-bench-webhooks:<pid>-<random>:, deleted at the end
//   BENCH_MAPS             maps (default 100)
//   BENCH_SUBS_MAX         subscriptions on the busiest map, 1–5 (default 5)
//   BENCH_BACKLOG          deliveries of phase 1 (default 30000)
//   BENCH_BATCH            kills per transaction in phase 1 (default 20)
//   BENCH_RATES            deliveries/s of phase 3, comma list (default 1000,2000,3000, keeping those ≤ 80 % of
//                          the measured saturation; when none is, 25, 50 and 75 % of it)
//   BENCH_RATE_SECONDS     seconds of each paced run (default 10)
//   BENCH_ISOLATION_RATE   deliveries/s of phase 4 (default: the first of BENCH_RATES)
//   BENCH_HANG_PERCENT     share of subscriptions that never answer in phase 4 (default 10)
//   BENCH_TX_PER_SECOND    most write transactions per second in paced runs (default 50)
//   BENCH_WRITERS          concurrent writers (default 8)
//   BENCH_CONCURRENCY      WEBHOOK_CONCURRENCY of the worker and requests in flight of the baseline (default 128)
//   BENCH_TIMEOUT_MS       WEBHOOK_TIMEOUT_MS of the worker and the baseline (default 2000)
//   BENCH_VERIFY_EVERY     the receiver verifies the signature of one request in this many (default 20)
//   BENCH_STALL_SECONDS    a phase whose deliveries stop arriving for this long counts the missing ones as lost (default 30)
//   BENCH_DRAIN_SECONDS    and so does a phase that takes longer than this in all (default 600)
//   BENCH_PHASES           phases to run, comma list of saturation,baseline,latency,isolation,quiet (default all
//                          but quiet; baseline needs saturation)
//   BENCH_QUIET_EVENTS     events of the quiet phase (default 5)
//   BENCH_QUIET_SECONDS    seconds without writes before each of them (default 40)
//   WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION, WEBHOOK_RETRY_WAITS, DATABASE_POOL_MAX   passed to the worker when set
//   DATABASE_PREPARED_STATEMENTS   passed to the relay, the worker and the bench's writers when set (printed in the summary)
//   BENCH_WORKER_NODE_OPTIONS  NODE_OPTIONS of the worker process (default: none), e.g. "--max-semi-space-size=1"
//   BENCH_WORKER_ARGS      node flags of the worker process that NODE_OPTIONS refuses, space-separated, e.g. "--trace-gc"
//                          (with BENCH_ECHO_STDOUT=1 to see what they print)
//   BENCH_DIST=dir         build output to benchmark (default dist/), a folder inside the project so that its imports resolve
//   BENCH_CPU_PROF=dir     run the worker with --cpu-prof into dir (one profile per worker process, written when it stops)
//   BENCH_KEEP_DB=1        keep the database after the run
//   BENCH_JSON=path        also write the results as JSON
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import {
  backendsCpu,
  backendsDelta,
  databaseBackends,
  deleteRedisKeys,
  distribution,
  drive,
  dropDatabase,
  freePort,
  intEnv,
  killInput,
  machineCpu,
  nowMs,
  procCpu,
  procRunDelay,
  recreateDatabase,
  seedSolarSystem,
  sleep,
  SOLAR_SYSTEM,
  startChild,
  SYSTEM_NAME,
  toKillInput,
  waitForOutput,
  waitReady,
} from './support.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (msg) => process.stderr.write(`[bench-webhooks] ${msg}\n`);
const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '-');

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** The ms timestamp of a ULID (its first ten characters). */
function ulidMs(id) {
  let ms = 0;
  for (const c of id.slice(0, 10)) ms = ms * 32 + CROCKFORD.indexOf(c);
  return ms;
}

function listEnv(name, def) {
  const text = process.env[name];
  if (!text) return def;
  const values = text.split(',').map((s) => Number(s.trim()));
  if (values.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`${name} must be a comma list of positive integers (got "${text}")`);
  return values;
}

/** CPU seconds so far of the processes under watch, PostgreSQL's backends and the machine. */
function cpuSnapshot(pids, pgPids) {
  const u = process.cpuUsage();
  const out = { wall: nowMs(), bench: (u.user + u.system) / 1e6, pg: backendsCpu(pgPids), machine: machineCpu(), waits: {} };
  for (const [name, pid] of Object.entries(pids)) {
    out[name] = pid ? procCpu(pid) : NaN;
    out.waits[name] = pid ? procRunDelay(pid) : NaN;
  }
  out.waits.postgres = backendsCpu(pgPids, procRunDelay);
  return out;
}

/** % of one core per process (machine: % of all cores busy) and CPU ms per delivery since `s`. */
function cpuSince(s, pids, pgPids, deliveries) {
  const e = cpuSnapshot(pids, pgPids);
  const wall = (e.wall - s.wall) / 1000;
  const out = { seconds: wall, machineBusyPct: (1 - (e.machine.idle - s.machine.idle) / (e.machine.total - s.machine.total)) * 100 };
  const add = (name, used) => {
    out[`${name}Pct`] = (used / wall) * 100;
    out[`${name}MsPerDelivery`] = (used * 1000) / deliveries;
  };
  for (const name of [...Object.keys(pids), 'bench']) add(name, e[name] - s[name]);
  add('postgres', backendsDelta(s.pg, e.pg));
  // Time runnable but waiting for a core, % of the wall time (PostgreSQL: its backends summed).
  for (const name of Object.keys(pids)) out[`${name}WaitPct`] = ((e.waits[name] - s.waits[name]) / wall) * 100;
  out.postgresWaitPct = (backendsDelta(s.waits.postgres, e.waits.postgres) / wall) * 100;
  return out;
}

async function main() {
  const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/mapintel_bench_webhooks';
  const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
  const mapCount = intEnv('BENCH_MAPS', 100);
  const subsMax = intEnv('BENCH_SUBS_MAX', 5);
  if (subsMax > 5) throw new Error('BENCH_SUBS_MAX is at most 5 (a map has at most 5 subscriptions)');
  const backlog = intEnv('BENCH_BACKLOG', 30_000);
  const batch = intEnv('BENCH_BATCH', 20);
  let rates = listEnv('BENCH_RATES', [1000, 2000, 3000]);
  const rateSeconds = intEnv('BENCH_RATE_SECONDS', 10);
  const quietEvents = intEnv('BENCH_QUIET_EVENTS', 5);
  const quietSeconds = intEnv('BENCH_QUIET_SECONDS', 40);
  let isolationRate = intEnv('BENCH_ISOLATION_RATE', 0, 0);
  const hangPercent = intEnv('BENCH_HANG_PERCENT', 10);
  const txPerSecond = intEnv('BENCH_TX_PER_SECOND', 50);
  const writers = intEnv('BENCH_WRITERS', 8);
  const concurrency = intEnv('BENCH_CONCURRENCY', 128);
  const timeoutMs = intEnv('BENCH_TIMEOUT_MS', 2000, 100);
  const verifyEvery = intEnv('BENCH_VERIFY_EVERY', 20);
  const drainSeconds = intEnv('BENCH_DRAIN_SECONDS', 600);
  const stallSeconds = intEnv('BENCH_STALL_SECONDS', 30);
  const phases = new Set((process.env.BENCH_PHASES || 'saturation,baseline,latency,isolation').split(',').map((s) => s.trim()));
  for (const p of phases) if (!['saturation', 'baseline', 'latency', 'isolation', 'quiet'].includes(p)) throw new Error(`BENCH_PHASES: unknown phase "${p}"`);
  if (phases.has('baseline') && !phases.has('saturation')) throw new Error('BENCH_PHASES: baseline sends the bodies of the saturation phase; add saturation');
  const DIST = path.resolve(ROOT, process.env.BENCH_DIST || 'dist');
  if (!existsSync(path.join(DIST, 'cli.js'))) throw new Error(`${DIST} is missing: run \`make build\` (or \`make bench-webhooks\`)`);
  const dist = (p) => import(pathToFileURL(path.join(DIST, p)).href);
  const { loadConfig } = await dist('config.js');
  const { buildCore } = await dist('core/core.js');
  const { createApiServices } = await dist('api/services.js');
  const { createLogger } = await dist('log.js');
  const { USER_AGENT } = await dist('webhooks/sender.js');

  const cpus = os.cpus();
  const machine = {
    cores: cpus.length,
    cpu: cpus[0]?.model?.trim() ?? 'unknown',
    memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
  const loadBefore = os.loadavg().map((l) => l.toFixed(1));

  const db = await recreateDatabase(databaseUrl);
  machine.postgres = db.version;
  log(`database ${db.name} recreated (PostgreSQL ${db.version})`);
  const prefix = `mapintel-bench-webhooks:${process.pid}-${randomBytes(3).toString('hex')}:`;
  const env = {
    DATABASE_URL: databaseUrl,
    SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SERVICE_ADMIN_TOKEN: `adm_${randomBytes(24).toString('base64url')}`,
    SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true',
    LOG_LEVEL: 'warn',
  };
  // For the relay, the worker and the bench's in-process writers alike.
  if (process.env.DATABASE_PREPARED_STATEMENTS) env.DATABASE_PREPARED_STATEMENTS = process.env.DATABASE_PREPARED_STATEMENTS;
  const childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' };
  const workerEnv = { WEBHOOK_CONCURRENCY: String(concurrency), WEBHOOK_TIMEOUT_MS: String(timeoutMs) };
  for (const k of ['WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION', 'WEBHOOK_RETRY_WAITS', 'DATABASE_POOL_MAX']) if (process.env[k]) workerEnv[k] = process.env[k];
  if (process.env.BENCH_WORKER_NODE_OPTIONS !== undefined) workerEnv.NODE_OPTIONS = process.env.BENCH_WORKER_NODE_OPTIONS;

  const closers = [];
  let failed = false;
  const problems = [];
  const broke = (msg) => {
    failed = true;
    problems.push(msg);
    log(`BROKEN: ${msg}`);
  };
  /** Starts a child whose early exit breaks the run. */
  const child = (name, args, extraEnv, opts) => {
    const srv = startChild(name, args, { ...childEnv, ...extraEnv }, { cwd: ROOT, ...opts });
    let stopping = false;
    srv.exited.then(({ code, signal }) => {
      if (!stopping) broke(`${name} process exited early (code ${code}, signal ${signal})`);
    });
    const stop = () => {
      stopping = true;
      return srv.stop();
    };
    closers.push(stop);
    return { ...srv, stop };
  };
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mapintel-bench-webhooks-'));
  closers.push(async () => rmSync(tmp, { recursive: true, force: true }));
  closers.push(async () => log(`deleted ${await deleteRedisKeys(redisUrl, prefix)} Redis keys under ${prefix}`));
  try {
    // The writers' platform: migrates; no relay and no Redis (the relay process owns the transport).
    const writerCore = await buildCore(
      loadConfig({ ...env, REDIS_URL: '', EVENTS_RELAY_ENABLED: 'false', SERVICE_WEBHOOKS_ENABLED: 'true', DATABASE_POOL_MAX: String(writers + 2) }),
      { migrations: 'apply', logger: createLogger('warn') },
    );
    closers.push(() => writerCore.close());
    const platform = { orm: writerCore.db.orm, ...createApiServices(writerCore) };
    const raw = new pg.Pool({ connectionString: databaseUrl, max: 2, idleTimeoutMillis: 0 });
    closers.push(() => raw.end());

    // The receiver.
    const receiverPort = await freePort();
    const receiver = child('receiver', [path.join(ROOT, 'bench/webhooks-receiver.mjs'), String(receiverPort)], {
      BENCH_VERIFY_EVERY: String(verifyEvery),
    });
    await waitForOutput(receiver, /receiver listening/);
    const receiverUrl = `http://127.0.0.1:${receiverPort}`;
    const control = async (p, body) => {
      const r = await fetch(`${receiverUrl}/_bench/${p}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
      if (!r.ok) throw new Error(`receiver ${p}: ${r.status} ${await r.text()}`);
      return r.json();
    };

    // Maps and subscriptions, through the product's services.
    const owner = {
      eve_id: '2119500002',
      name: 'Bench Webhooks Owner',
      corporation_id: '98900003',
      corporation_ticker: 'BENCH',
      alliance_id: null,
      alliance_ticker: null,
    };
    await platform.admin.upsertCharacter(owner);
    await seedSolarSystem(platform.orm.em.fork());
    const maps = [];
    const secrets = {};
    let subSeq = 0;
    for (let i = 0; i < mapCount; i++) {
      const created = await platform.admin.createMap({ slug: `bench-webhooks-${i}`, name: `Webhooks ${i}`, owner_eve_id: owner.eve_id });
      const mapId = created.map.id;
      await platform.mapContent.addSystem(mapId, { solarSystemId: SOLAR_SYSTEM, name: SYSTEM_NAME });
      const ownerId = (await raw.query('select owner_character_id from maps where id = $1', [mapId])).rows[0].owner_character_id;
      // The owner's map key, as the API's authentication establishes it.
      const principal = { kind: 'map_key', keyId: 'bench', mapId, characterId: ownerId };
      const subs = [];
      for (let k = 0; k < 1 + (i % subsMax); k++) {
        const n = subSeq++;
        const sub = await platform.webhooks.create(principal, mapId, { url: `${receiverUrl}/s/${n}`, events: ['*'] });
        subs.push({ n, id: sub.id, path: `/s/${n}` });
        secrets[`/s/${n}`] = sub.secret;
        secrets[`/hang/${n}`] = sub.secret;
      }
      await platform.webhooks.toggle(principal, mapId, true);
      maps.push({ id: mapId, principal, subs });
    }
    await control('secrets', secrets);
    const subsPerEvent = subSeq / mapCount;
    log(`${mapCount} maps, ${subSeq} subscriptions (${fmt(subsPerEvent, 1)} per map), receiver ${receiverUrl} (pid ${receiver.child.pid})`);

    // The relay.
    const relayPort = await freePort();
    const relay = child(
      'relay',
      [path.join(DIST, 'cli.js'), 'serve', '--roles', 'api'],
      { ...env, PORT: String(relayPort), HOST: '127.0.0.1', OPS_PORT: '0', REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, EVENTS_RELAY_ENABLED: 'true' },
      { port: relayPort },
    );
    await waitReady(relay, `${relay.url}/readyz`);
    log(`relay: node ${path.relative(ROOT, DIST)}/cli.js serve --roles api (pid ${relay.child.pid})`);

    // The worker under test.
    let worker;
    const startWorker = async () => {
      const opsPort = await freePort();
      const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
      worker = child(
        'worker',
        [...prof, ...(process.env.BENCH_WORKER_ARGS?.split(' ').filter(Boolean) ?? []), path.join(DIST, 'cli.js'), 'serve', '--roles', 'worker'],
        {
          ...env,
          ...workerEnv,
          LOG_LEVEL: 'info',
          PORT: '0',
          HOST: '127.0.0.1',
          OPS_PORT: String(opsPort),
          OPS_HOST: '127.0.0.1',
          REDIS_URL: redisUrl,
          REDIS_KEY_PREFIX: prefix,
          SERVICE_WEBHOOKS_ENABLED: 'true',
        },
      );
      await waitForOutput(worker, /delivering webhooks/);
      worker.ops = `http://127.0.0.1:${opsPort}`;
      log(
        `worker: node ${path.relative(ROOT, DIST)}/cli.js serve --roles worker (pid ${worker.child.pid}), WEBHOOK_CONCURRENCY ${concurrency}, WEBHOOK_TIMEOUT_MS ${timeoutMs}`,
      );
    };
    /**
     * The worker's event-loop delay (ms) since the last call, from its metrics (prom-client's
     * monitorEventLoopDelay histogram, reset on every scrape).
     */
    const loopDelay = async (w) => {
      const text = await (await fetch(`${w.ops}/metrics`)).text();
      const gauge = (q) => Number(new RegExp(`^mapintel_nodejs_eventloop_lag_${q}_seconds\\S* (\\S+)$`, 'm').exec(text)?.[1]) * 1000;
      return { p50: gauge('p50'), p99: gauge('p99'), max: gauge('max') };
    };
    const pids = () => ({ worker: worker?.child.pid, receiver: receiver.child.pid, relay: relay.child.pid });

    // Writing: kills in transactions of the batch path, maps taken in turn.
    let killSeq = 160_000_000;
    let mapCursor = 0;
    /** Transactions of `sizes[j]` kills each, on the next maps; returns the kills and their maps. */
    const plan = (sizes) =>
      sizes.map((size) => {
        const map = maps[mapCursor++ % maps.length];
        return { map, kids: Array.from({ length: size }, () => killSeq++) };
      });
    /** Durations (ms) of the write transactions of the current paced run. */
    let txMs = [];
    const write = async (txs, rate) => {
      txMs = [];
      await drive({
        count: txs.length,
        writers,
        rate,
        op: async (j) => {
          const { map, kids } = txs[j];
          const began = nowMs();
          const res = await platform.kills.import(
            map.principal,
            map.id,
            kids.map((k) => toKillInput(killInput(k))),
          );
          txMs.push(nowMs() - began);
          if (res.inserted !== kids.length) throw new Error(`a batch of ${kids.length} kills stored ${res.inserted}`);
        },
      });
    };
    /** Every `<path> <killmail id>` the receiver should get for these transactions (healthy paths only). */
    const expectedKeys = (txs, hung = new Set()) => {
      const keys = [];
      for (const { map, kids } of txs) for (const s of map.subs) if (!hung.has(s.n)) for (const k of kids) keys.push(`${s.path} ${k}`);
      return keys;
    };
    /** Kills making `rate` deliveries/s for `seconds`, at most `txPerSecond` transactions/s. */
    const pacedPlan = (rate, seconds) => {
      const events = Math.round((rate / subsPerEvent) * seconds);
      const txs = Math.min(events, txPerSecond * seconds);
      return { txs: plan(Array.from({ length: txs }, (_, j) => Math.floor(((j + 1) * events) / txs) - Math.floor((j * events) / txs))), txRate: txs / seconds };
    };
    // The relay's per-map publication cursor says what is published (older builds marked each row).
    const cursors = (await raw.query(`select to_regclass('map_event_cursors') is not null as yes`)).rows[0].yes;
    const unpublishedSql = cursors
      ? `select count(*) as n from map_events e left join map_event_cursors c on c.map_id = e.map_id
         where e.event_id is null or e.event_id > coalesce(c.published_event_id, '')`
      : 'select count(*) as n from map_events where published_at is null';
    const unpublished = async () => Number((await raw.query(unpublishedSql)).rows[0].n);
    const waitPublished = async () => {
      const deadline = Date.now() + 60_000;
      while ((await unpublished()) > 0) {
        if (Date.now() > deadline || failed) throw new Error('the relay did not publish the events');
        await sleep(100);
      }
    };
    /**
     * Waits until the receiver has `expected` distinct deliveries of the phase (as long as they keep
     * coming: a slow worker is a figure, not a failure), then checks that every one arrived.
     */
    const collect = async (phase, expected) => {
      const deadline = Date.now() + drainSeconds * 1000;
      let seen = -1;
      let movedAt = Date.now();
      for (;;) {
        const c = await control(`count?phase=${phase}`);
        if (c.distinct >= expected.length) break;
        if (failed) throw new Error(`${phase}: ${problems.join('; ')}`);
        if (c.distinct !== seen) [seen, movedAt] = [c.distinct, Date.now()];
        if (Date.now() > deadline || Date.now() - movedAt > stallSeconds * 1000) break;
        await sleep(100);
      }
      const report = await control(`report?phase=${phase}&keys=1`);
      const got = new Set(report.keys);
      delete report.keys;
      const missing = expected.filter((k) => !got.has(k));
      report.expected = expected.length;
      report.missing = missing.length;
      if (missing.length) {
        const states = (await raw.query('select state, count(*)::int as n from webhook_deliveries group by state order by state')).rows.map(
          (r) => `${r.n} ${r.state}`,
        );
        broke(
          `${phase}: ${missing.length} of ${expected.length} deliveries did not arrive (none for ${stallSeconds} s, or ${drainSeconds} s in all; ` +
            `e.g. ${missing.slice(0, 3).join(', ')}); webhook_deliveries: ${states.join(', ')}`,
        );
      }
      if (report.distinct > expected.length) broke(`${phase}: ${report.distinct - expected.length} deliveries that were not planned`);
      if (report.verified.failed > 0) broke(`${phase}: ${report.verified.failed} of ${report.verified.checked} sampled signatures did not verify`);
      return report;
    };
    /**
     * Share of the latency, ms (p50, p99) over the deliveries planned since `sinceMs`: event→planned (the
     * relay, the worker's consumer and its planning: webhook_deliveries.inserted_at − event_at).
     */
    const shares = async (sinceMs) => {
      const rows = (
        await raw.query(
          `select extract(epoch from d.event_at) * 1000 as event_ms, extract(epoch from d.inserted_at) * 1000 as planned_ms, d.event_id
           from webhook_deliveries d where d.inserted_at >= to_timestamp($1 / 1000.0)`,
          [sinceMs],
        )
      ).rows;
      // The relay gives an event its id (a ULID, whose first 48 bits are the ms it was made) after the
      // writer's commit: event→id is the write transaction and the relay's wake-up; id→planned the relay's
      // update and XADD, the worker's read and its planning insert.
      const pair = (xs) => {
        const d = distribution(xs);
        return [d.p50, d.p99];
      };
      return {
        planned: pair(rows.map((r) => r.planned_ms - r.event_ms)),
        eventToId: pair(rows.map((r) => ulidMs(r.event_id) - r.event_ms)),
        idToPlanned: pair(rows.map((r) => r.planned_ms - ulidMs(r.event_id))),
        writeTx: pair(txMs),
      };
    };

    const results = { saturation: undefined, baseline: undefined, latency: [], isolation: undefined, quiet: undefined };

    // 1. Saturation.
    if (phases.has('saturation')) {
      // The worker's consumer delivers events committed after its registration: register it, then stop.
      await startWorker();
      await worker.stop();
      const sizes = [];
      for (let d = 0, m = mapCursor; d < backlog; m++) {
        sizes.push(batch);
        d += batch * maps[m % maps.length].subs.length;
      }
      const txs = plan(sizes);
      const expected = expectedKeys(txs);
      const t0 = nowMs();
      await write(txs);
      await waitPublished();
      log(`backlog: ${txs.length * batch} kills making ${expected.length} deliveries committed and published in ${fmt((nowMs() - t0) / 1000, 1)} s`);
      await control('phase', { name: 'saturation' });
      const pgBefore = await databaseBackends(raw);
      const startedAt = nowMs();
      await startWorker();
      const readyAt = nowMs();
      const cpu = cpuSnapshot(pids(), [...pgBefore]);
      const report = await collect('saturation', expected);
      report.cpu = cpuSince(cpu, pids(), await databaseBackends(raw), expected.length);
      const times = (
        await raw.query(
          `select extract(epoch from min(inserted_at)) * 1000 as first_planned, extract(epoch from max(inserted_at)) * 1000 as last_planned from webhook_deliveries`,
        )
      ).rows[0];
      report.workerStartToFirstMs = report.first - startedAt;
      report.workerBootMs = readyAt - startedAt;
      report.plannedSeconds = (times.last_planned - times.first_planned) / 1000;
      results.saturation = report;
      log(
        `saturation: ${report.distinct} deliveries at ${fmt(report.perSecond, 0)}/s (first to last received; planned within ${fmt(report.plannedSeconds, 2)} s); ` +
          `CPU worker ${fmt(report.cpu.workerPct, 0)} %, receiver ${fmt(report.cpu.receiverPct, 0)} %, postgres ${fmt(report.cpu.postgresPct, 0)} %, machine ${fmt(report.cpu.machineBusyPct, 0)} %`,
      );

      // 2. Baseline: the same bodies, paths and secrets.
      if (phases.has('baseline')) {
        const rows = (
          await raw.query(
            'select d.body, d.event_id, d.event_type, s.url from webhook_deliveries d join webhook_subscriptions s on s.id = d.subscription_id order by d.id',
          )
        ).rows;
        const jobFile = path.join(tmp, 'baseline-job.json');
        writeFileSync(
          jobFile,
          JSON.stringify({
            dist: DIST,
            concurrency,
            timeoutMs,
            // The sender's agent (src/webhooks/sender.ts agentFor): one per origin and address, the
            // worker's concurrency as its limit of sockets and of idle ones (src/worker/worker.role.ts).
            maxSockets: concurrency,
            userAgent: USER_AGENT,
            requests: rows.map((r) => ({ url: r.url, secret: secrets[new URL(r.url).pathname], body: r.body, eventId: r.event_id, eventType: r.event_type })),
          }),
        );
        await control('phase', { name: 'baseline' });
        const bcpu = cpuSnapshot(pids(), []);
        const loop = spawn(process.execPath, [path.join(ROOT, 'bench/webhooks-baseline.mjs'), jobFile], {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        loop.stdout.on('data', (c) => (out += c));
        const [code] = await new Promise((resolve) => loop.on('exit', (...a) => resolve(a)));
        if (code !== 0) broke(`baseline loop exited with ${code}`);
        const own = JSON.parse(out.trim() || '{}');
        const b = await collect('baseline', expected);
        b.cpu = cpuSince(bcpu, { receiver: receiver.child.pid }, [], expected.length);
        b.loop = own;
        if (own.failed) broke(`baseline: ${own.failed} requests failed`);
        results.baseline = b;
        log(`baseline: ${b.distinct} deliveries at ${fmt(b.perSecond, 0)}/s (its own clock: ${fmt(own.perSecond, 0)}/s)`);
      }
    } else {
      await startWorker();
    }

    // 3. Latency below saturation.
    const pacedRun = async (name, rate, hung = new Set()) => {
      const { txs, txRate } = pacedPlan(rate, rateSeconds);
      const expected = expectedKeys(txs, hung);
      await control('phase', { name });
      const since = Date.now();
      const cpu = cpuSnapshot(pids(), await databaseBackends(raw));
      await loopDelay(worker); // starts the worker's event-loop delay histogram afresh
      const writeStarted = nowMs();
      await write(txs, txRate);
      const writeSeconds = (nowMs() - writeStarted) / 1000;
      if (writeSeconds > rateSeconds * 1.1)
        log(`${name}: the writers fell behind (${fmt(writeSeconds, 1)} s for ${rateSeconds} s of writes): the machine is too busy for this rate`);
      const report = await collect(name, expected);
      report.loopDelay = await loopDelay(worker);
      report.writeSeconds = writeSeconds;
      report.offeredPerSecond = expected.length / writeSeconds;
      report.cpu = cpuSince(cpu, pids(), await databaseBackends(raw), expected.length);
      report.rate = rate;
      Object.assign(report, await shares(since));
      const l = report.latencyMs;
      log(
        `${name}: ${report.distinct} deliveries at ${fmt(report.perSecond, 0)}/s, event→receiver p50 ${fmt(l.p50, 1)} p99 ${fmt(l.p99, 1)} max ${fmt(l.max, 1)} ms ` +
          `(event→planned p50 ${fmt(report.planned[0], 1)} p99 ${fmt(report.planned[1], 1)} ms)${report.hangRequests ? `, ${report.hangRequests} requests to hanging paths` : ''}; ` +
          `CPU worker ${fmt(report.cpu.workerPct, 0)} %, machine ${fmt(report.cpu.machineBusyPct, 0)} %`,
      );
      return report;
    };
    // Below saturation: with the default rates, those above 80 % of the measured saturation give way to
    // 25, 50 and 75 % of it (latency above saturation only measures the queue).
    if (!process.env.BENCH_RATES && results.saturation) {
      const sat = results.saturation.perSecond;
      const below = rates.filter((r) => r <= 0.8 * sat);
      if (below.length < rates.length) {
        rates = below.length ? below : [0.25, 0.5, 0.75].map((f) => Math.max(10, Math.round((f * sat) / 10) * 10));
        log(`saturation is ${fmt(sat, 0)} deliveries/s: paced runs at ${rates.join(', ')} deliveries/s`);
      }
    }
    isolationRate ||= rates[0];
    if (phases.has('latency')) for (const rate of rates) results.latency.push(await pacedRun(`rate-${rate}`, rate));

    // 4. Isolation.
    if (phases.has('isolation')) {
      let healthy = results.latency.find((r) => r.rate === isolationRate);
      if (!healthy) healthy = await pacedRun(`rate-${isolationRate}`, isolationRate);
      const every = Math.max(1, Math.round(100 / hangPercent));
      const hung = new Set();
      for (const map of maps) {
        for (const s of map.subs) {
          if (s.n % every !== 0) continue;
          await platform.webhooks.update(map.principal, map.id, s.id, { url: `${receiverUrl}/hang/${s.n}` });
          hung.add(s.n);
        }
      }
      log(`isolation: ${hung.size} of ${subSeq} subscriptions now point at paths that never answer`);
      const report = await pacedRun(`isolation-${isolationRate}`, isolationRate, hung);
      report.hungSubscriptions = hung.size;
      report.healthyP99Ms = healthy.latencyMs.p99;
      results.isolation = report;
    }

    // 5. Quiet spells: one kill at a time, each after quietSeconds without writes.
    if (phases.has('quiet')) {
      const quiet = { seconds: quietSeconds, events: [] };
      for (let i = 1; i <= quietEvents; i++) {
        await sleep(quietSeconds * 1000);
        const name = `quiet-${i}`;
        const txs = plan([1]);
        await control('phase', { name });
        const since = Date.now();
        await write(txs, 1);
        const report = await collect(name, expectedKeys(txs));
        const { eventToId, idToPlanned } = await shares(since);
        quiet.events.push({
          deliveries: report.distinct,
          maxMs: report.latencyMs.max,
          writeTxMs: txMs[0],
          eventToIdMs: eventToId[1],
          idToPlannedMs: idToPlanned[1],
        });
        log(
          `${name}: ${report.distinct} deliveries, event→receiver max ${fmt(report.latencyMs.max, 1)} ms (write transaction ${fmt(txMs[0], 1)} ms, ` +
            `event→id ${fmt(eventToId[1], 1)} ms, id→planned ${fmt(idToPlanned[1], 1)} ms)`,
        );
      }
      results.quiet = quiet;
    }

    // Report.
    const s = results.saturation;
    const b = results.baseline;
    const iso = results.isolation;
    const ratio = s && b ? s.perSecond / b.perSecond : NaN;
    const verdict = (ok) => (ok ? 'met' : 'MISSED');
    const rows = [];
    if (s) rows.push([`saturation: ${s.distinct} deliveries (backlog), deliveries/s`, fmt(s.perSecond, 0), '≥ 3,000', verdict(s.perSecond >= 3000)]);
    if (b) rows.push([`baseline (sign + POST loop, ${concurrency} in flight), deliveries/s`, fmt(b.perSecond, 0), '', '']);
    if (s && b) rows.push(['worker / baseline', fmt(ratio, 2), '≥ 0.7', verdict(ratio >= 0.7)]);
    for (const r of results.latency) {
      rows.push([
        `${fmt(r.rate, 0)} deliveries/s offered (${fmt(r.perSecond, 0)} received/s): event→receiver p50 / p99`,
        `${fmt(r.latencyMs.p50, 1)} / ${fmt(r.latencyMs.p99, 1)} ms`,
        '≤ 50 ms p99',
        s && r.rate > s.perSecond ? `${verdict(r.latencyMs.p99 <= 50)} (above saturation)` : verdict(r.latencyMs.p99 <= 50),
      ]);
    }
    if (iso) {
      rows.push([
        `${fmt(iso.rate, 0)}/s with ${iso.hungSubscriptions} of ${subSeq} subscriptions timing out: healthy p50 / p99 (all healthy: p99 ${fmt(iso.healthyP99Ms, 1)} ms)`,
        `${fmt(iso.latencyMs.p50, 1)} / ${fmt(iso.latencyMs.p99, 1)} ms (×${fmt(iso.latencyMs.p99 / iso.healthyP99Ms, 1)})`,
        '≤ 2×',
        iso.healthyP99Ms > 50
          ? `${verdict(iso.latencyMs.p99 <= 2 * iso.healthyP99Ms)} (against an all-healthy p99 that misses its own target)`
          : verdict(iso.latencyMs.p99 <= 2 * iso.healthyP99Ms),
      ]);
    }
    if (results.quiet) {
      const q = results.quiet;
      const worst = q.events.map((e) => e.maxMs).sort((x, y) => x - y);
      rows.push([
        `${q.events.length} single events, each after ${q.seconds} s without writes: event→receiver median / max`,
        `${fmt(worst[worst.length >> 1], 1)} / ${fmt(worst.at(-1), 1)} ms`,
        '≤ 50 ms p99',
        verdict(worst.at(-1) <= 50),
      ]);
    }
    const header = ['measure', 'figure', 'target', ''];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells) => `| ${cells.map((c, i) => (i === 1 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
    const cpuLine = (name, r) =>
      `  ${name}: CPU % of one core: worker ${fmt(r.cpu.workerPct, 0)}, receiver ${fmt(r.cpu.receiverPct, 0)}, relay ${fmt(r.cpu.relayPct, 0)}, ` +
      `postgres ${fmt(r.cpu.postgresPct, 0)}, bench ${fmt(r.cpu.benchPct, 0)}, machine busy ${fmt(r.cpu.machineBusyPct, 0)} % of ${machine.cores} cores; ` +
      `CPU ms per delivery: worker ${fmt(r.cpu.workerMsPerDelivery, 3)}, postgres ${fmt(r.cpu.postgresMsPerDelivery, 3)}, receiver ${fmt(r.cpu.receiverMsPerDelivery, 3)}\n` +
      `  ${name}: waiting for a core, % of the time: worker ${fmt(r.cpu.workerWaitPct, 1)}, relay ${fmt(r.cpu.relayWaitPct, 1)}, ` +
      `receiver ${fmt(r.cpu.receiverWaitPct, 1)}, postgres ${fmt(r.cpu.postgresWaitPct, 1)} (main threads; postgres: its backends summed)`;
    const out = [
      '',
      `machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, ${machine.os}; node ${machine.node}; PostgreSQL ${machine.postgres}`,
      `load average before/after: ${loadBefore.join(' ')} / ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (other processes share the cores)`,
      `one worker process (WEBHOOK_CONCURRENCY ${concurrency}, WEBHOOK_TIMEOUT_MS ${timeoutMs}${
        Object.keys(workerEnv).length > 2
          ? `, ${Object.entries(workerEnv)
              .slice(2)
              .map(([k, v]) => `${k}=${v}`)
              .join(', ')}`
          : ''
      }${env.DATABASE_PREPARED_STATEMENTS ? `, DATABASE_PREPARED_STATEMENTS=${env.DATABASE_PREPARED_STATEMENTS}` : ''}); ` +
        `${mapCount} maps, ${subSeq} subscriptions (1–${subsMax} per map), one receiver process; latency = envelope ts → whole request at the receiver`,
      '',
      line(header),
      line(widths.map((w) => '-'.repeat(w))),
      ...rows.map(line),
      '',
      'detail:',
      ...(s
        ? [
            `  saturation: planning (events → deliveries) spanned ${fmt(s.plannedSeconds, 2)} s; first delivery ${fmt(s.workerStartToFirstMs, 0)} ms after the worker process was spawned (delivering from ${fmt(s.workerBootMs, 0)} ms); ` +
              `${s.connections} connections opened; ${s.duplicates} duplicates; signatures sampled ${s.verified.checked}, all verified: ${s.verified.failed === 0}`,
            cpuLine('saturation', s),
            `  saturation: received per second from the first: ${s.perSecondTimeline.join(' ')}; after the first third ${fmt(s.steadyPerSecond, 0)}/s`,
            // What this machine allows at these costs: a figure below the target with a ceiling below it too
            // says the machine, not the worker, set the limit.
            `  saturation: ceilings at these costs: the worker's one thread ${fmt(1000 / s.cpu.workerMsPerDelivery, 0)}/s; ` +
              `all ${machine.cores} cores for worker, postgres and receiver ${fmt((machine.cores * 1000) / (s.cpu.workerMsPerDelivery + s.cpu.postgresMsPerDelivery + s.cpu.receiverMsPerDelivery), 0)}/s`,
          ]
        : []),
      ...(b
        ? [
            `  baseline: ${fmt(b.loop.perSecond, 0)}/s on its own clock; ${b.connections} connections opened; CPU % of one core: loop ${fmt((b.loop.cpuSeconds / b.loop.seconds) * 100, 0)}, ` +
              `receiver ${fmt(b.cpu.receiverPct, 0)}, machine busy ${fmt(b.cpu.machineBusyPct, 0)} %; CPU ms per delivery: loop ${fmt((b.loop.cpuSeconds * 1000) / b.loop.sent, 3)}`,
            `  baseline: received per second from the first: ${b.perSecondTimeline.join(' ')}; after the first third ${fmt(b.steadyPerSecond, 0)}/s`,
          ]
        : []),
      ...results.latency.map(
        (r) =>
          `  rate ${r.rate}: written at ${fmt(r.offeredPerSecond, 0)} deliveries/s over ${fmt(r.writeSeconds, 1)} s; p90 ${fmt(r.latencyMs.p90, 1)} max ${fmt(r.latencyMs.max, 1)} ms; ` +
          `event→planned p50 ${fmt(r.planned[0], 1)} p99 ${fmt(r.planned[1], 1)} ms (event→id ${fmt(r.eventToId[0], 1)} / ${fmt(r.eventToId[1], 1)}, ` +
          `id→planned ${fmt(r.idToPlanned[0], 1)} / ${fmt(r.idToPlanned[1], 1)}; write transactions ${fmt(r.writeTx[0], 1)} / ${fmt(r.writeTx[1], 1)}); ` +
          `${r.connections} connections opened; signatures sampled ${r.verified.checked}, failed ${r.verified.failed}\n` +
          `  rate ${r.rate}: worker event-loop delay p50 ${fmt(r.loopDelay.p50, 1)} p99 ${fmt(r.loopDelay.p99, 1)} max ${fmt(r.loopDelay.max, 1)} ms\n${cpuLine(`rate ${r.rate}`, r)}`,
      ),
      ...(iso
        ? [
            `  isolation: ${iso.hangRequests} requests reached hanging paths; ${iso.connections} connections opened; healthy p90 ${fmt(iso.latencyMs.p90, 1)} max ${fmt(iso.latencyMs.max, 1)} ms; ` +
              `event→planned p50 ${fmt(iso.planned[0], 1)} p99 ${fmt(iso.planned[1], 1)} ms`,
            cpuLine('isolation', iso),
          ]
        : []),
      ...(results.quiet
        ? [
            `  quiet: per event (deliveries, event→receiver max, write transaction, event→id, id→planned): ${results.quiet.events
              .map((e) => `${e.deliveries}, ${fmt(e.maxMs, 1)}, ${fmt(e.writeTxMs, 1)}, ${fmt(e.eventToIdMs, 1)}, ${fmt(e.idToPlannedMs, 1)} ms`)
              .join('; ')}`,
          ]
        : []),
      '',
    ];
    console.log(out.join('\n'));
    if (process.env.BENCH_JSON) {
      writeFileSync(
        process.env.BENCH_JSON,
        JSON.stringify(
          { date: new Date().toISOString(), machine, loadBefore, loadAfter: os.loadavg(), mapCount, subscriptions: subSeq, workerEnv, results },
          null,
          2,
        ),
      );
    }
  } finally {
    for (const close of closers.reverse()) await close().catch((err) => log(`cleanup: ${err.message}`));
    if (process.env.BENCH_KEEP_DB === '1') log(`database ${db.name} kept`);
    else await dropDatabase(db.admin, db.name).catch((err) => log(`could not drop ${db.name}: ${err.message}`));
  }
  if (failed) throw new Error(`the benchmark broke: ${problems.join('; ')}`);
}

try {
  await main();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
}
