#!/usr/bin/env node
// Event pipeline benchmark: committed write → outbox (map_events) → relay → Redis XADD, measured end to end
// against the built product (dist/), with a raw `pg` INSERT + node-redis XADD loop as the baseline.
//
//   make bench-events                    (builds, then runs this script)
//   BENCH_EVENTS=5000 BENCH_RATE_SECONDS=5 node bench/events.mjs
//
// Phases (in this order, one process tree, one database, one Redis key prefix):
//   backlog  BENCH_BACKLOG kills committed before the relay runs (the write path alone), then the relay starts
//      and its drain rate over that backlog is measured (first to last XADD).
//   A  throughput: BENCH_WRITERS concurrent async loops in this process, each committing kills through the
//      product's write path (platform.mapContent.addKill: one transaction = the map_kills row + its map_kill
//      event) on BENCH_MAPS maps, BENCH_EVENTS events in all (capped at BENCH_MAX_SECONDS). The relay runs
//      in a separate process (`node dist/cli.js serve` with REDIS_URL). events/s = events from the first
//      commit to the last event read from Redis.
//   B  latency at a fixed rate: BENCH_RATE events/s for BENCH_RATE_SECONDS, paced over the same writers.
//      Per event: commit time (right after COMMIT returns, in the writer) → time it is read from the
//      `<prefix>events:all` stream by an XREAD BLOCK loop that keeps the last id seen. Cross-checks: the
//      stream entry id's millisecond (XADD time on Redis's clock, same machine) and the relay's own
//      histogram mapintel_events_publish_latency_seconds (from its /metrics, insert → publish).
//   Baseline of A and B: the same writers and pacing, each event = one INSERT into a plain table with the
//      columns of map_events (autocommit: its own transaction) then one XADD of the same envelope.
//
// Targets (issue): ≥ 2,000 events/s end to end (A); p99 commit→XADD ≤ 20 ms at 500 events/s (B).
// A miss is reported, not an error: the exit code is non-zero only when the benchmark itself breaks
// (lost events, failed writes, a child that dies).
//
// Environment (all optional):
//   BENCH_DATABASE_URL   database to drop and recreate    postgres://postgres@127.0.0.1:5432/mapintel_bench_events
//   BENCH_REDIS_URL      Redis for the transport and the baseline (default redis://127.0.0.1:6379)
//   BENCH_EVENTS         events of scenario A, product and baseline each (default 20000)
//   BENCH_MAX_SECONDS    cap on each scenario-A run (default 20)
//   BENCH_WRITERS        concurrent writers (default 8)
//   BENCH_MAPS           maps written to (default 4)
//   BENCH_RATE           events/s of scenario B (default 500)
//   BENCH_RATE_SECONDS   seconds of scenario B (default 10)
//   BENCH_BACKLOG        events written before the relay starts (write path alone, then relay drain rate) (default 5000)
//   BENCH_WARMUP_EVENTS  unmeasured events before A and B, product and baseline each (default 500)
//   BENCH_RELAY          child (default: `node dist/cli.js serve` as its own process) | inprocess (serve() of the api role +
//                        relay.start() inside this process)
//   EVENTS_RELAY_BATCH, EVENTS_RELAY_POLL_MS, EVENTS_RELAY_PARTITIONS   passed to the relay when set
//   BENCH_BATCH=20       kills per transaction in scenario A2 (the batch write path of POST /kills)
//   BENCH_DIST=dir       build output to benchmark (default dist/; e.g. a copy built from another commit, to compare)
//   BENCH_CPU_PROF=dir   run the relay process with --cpu-prof into dir (written when it stops)
//   BENCH_KEEP_DB=1      keep the database after the run
//   BENCH_JSON=path      also write the results as JSON
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import {
  backendsCpu,
  backendsDelta,
  databaseBackends,
  deleteKeys,
  distribution,
  drive,
  dropDatabase,
  freePort,
  intEnv,
  killInput,
  machineCpu,
  nowMs,
  procCpu,
  recreateDatabase,
  seedSolarSystem,
  sleep,
  SOLAR_SYSTEM,
  startChild,
  SYSTEM_NAME,
  toKillInput,
  waitReady,
} from './support.mjs';
import { createClient } from 'redis';
import { ulid } from 'ulid';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (msg) => process.stderr.write(`[bench-events] ${msg}\n`);
const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

function cpuStart(relayPid, pgPids) {
  const u = process.cpuUsage();
  return { wall: nowMs(), bench: (u.user + u.system) / 1e6, relay: relayPid ? procCpu(relayPid) : NaN, pg: backendsCpu(pgPids), machine: machineCpu() };
}

/**
 * CPU use since `s`: % of one core per process group (machine: % of all cores busy), and CPU milliseconds
 * per event (less sensitive to other load on the machine than the rates).
 */
function cpuSince(s, relayPid, pgPids, events) {
  const e = cpuStart(relayPid, pgPids);
  const wall = (e.wall - s.wall) / 1000;
  const pct = (a, b) => ((b - a) / wall) * 100;
  const per = (a, b) => ((b - a) * 1000) / events;
  const pg = backendsDelta(s.pg, e.pg);
  return {
    benchPct: pct(s.bench, e.bench),
    relayPct: relayPid ? pct(s.relay, e.relay) : NaN,
    pgPct: pct(0, pg),
    machineBusyPct: (1 - (e.machine.idle - s.machine.idle) / (e.machine.total - s.machine.total)) * 100,
    benchMsPerEvent: per(s.bench, e.bench),
    relayMsPerEvent: relayPid ? per(s.relay, e.relay) : NaN,
    pgMsPerEvent: per(0, pg),
  };
}

// ---------------------------------------------------------------------------------------------------
// Workload
// ---------------------------------------------------------------------------------------------------

/** The payload the product's map_kill event carries (src/maps/event-payloads.ts), for the baseline. */
function killPayload(k, systemName) {
  return {
    killmail_id: k.killmailId,
    system_name: systemName,
    solar_system_id: k.solarSystemId,
    kill_time: new Date(Math.round(k.killTime.getTime() / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    victim: { name: k.victimCharName, ship: k.victimShipName, corporation: k.victimCorpTicker },
    value: k.totalValue,
  };
}

/**
 * One XREAD BLOCK loop over the product's all-stream and the baseline stream, keeping the last id of each
 * (re-issuing XREAD with `$` would lose entries added between calls). Records receipt time and XADD time.
 */
class StreamReader {
  constructor(redis, keys) {
    this.redis = redis;
    this.keys = keys;
    this.last = Object.fromEntries(Object.values(keys).map((k) => [k, '0-0']));
    /** tag → { recv, xadd } */
    this.arrivals = new Map();
    this.entries = 0;
    this.stopped = false;
  }

  start() {
    this.loop = this.run();
  }

  async run() {
    while (!this.stopped) {
      const res = await this.redis.xRead(
        Object.values(this.keys).map((key) => ({ key, id: this.last[key] })),
        { BLOCK: 100, COUNT: 10_000 },
      );
      const recv = nowMs();
      for (const stream of res ?? []) {
        for (const m of stream.messages) {
          this.last[stream.name] = m.id;
          this.entries++;
          const xadd = Number(m.id.split('-')[0]);
          let tag;
          if (stream.name === this.keys.baseline) tag = `b:${m.message.n}`;
          else if (m.message.type === 'map_kill') tag = `k:${JSON.parse(m.message.envelope).payload.killmail_id}`;
          if (tag) this.arrivals.set(tag, { recv, xadd });
        }
      }
    }
  }

  async stop() {
    this.stopped = true;
    await this.loop;
  }

  async waitFor(tags, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const missing = tags.filter((t) => !this.arrivals.has(t)).length;
      if (missing === 0) return 0;
      if (Date.now() > deadline) return missing;
      await sleep(20);
    }
  }
}

/** Summarizes one run: commits (tag → commit time) against the reader's arrivals. */
function summarize(name, commits, reader, started) {
  const lat = [];
  const latXadd = [];
  let firstCommit = Infinity;
  let lastCommit = -Infinity;
  let lastSeen = -Infinity;
  let lastXadd = -Infinity;
  for (const [tag, commit] of commits) {
    const a = reader.arrivals.get(tag);
    firstCommit = Math.min(firstCommit, commit);
    lastCommit = Math.max(lastCommit, commit);
    if (!a) continue;
    lat.push(a.recv - commit);
    latXadd.push(a.xadd - commit);
    lastSeen = Math.max(lastSeen, a.recv);
    lastXadd = Math.max(lastXadd, a.xadd);
  }
  const n = commits.size;
  return {
    scenario: name,
    events: n,
    seen: lat.length,
    // From the first commit to the last event read from Redis (the issue's definition).
    seconds: (lastSeen - firstCommit) / 1000,
    eventsPerSec: n > 1 ? (n - 1) / ((lastSeen - firstCommit) / 1000) : NaN,
    // Commits per second over the same window start (what the writers achieved).
    writeRate: n > 1 ? (n - 1) / ((lastCommit - firstCommit) / 1000) : NaN,
    // From the first operation's start, for reference.
    eventsPerSecFromStart: n / ((lastSeen - started) / 1000),
    latency: distribution(lat),
    latencyXaddClock: distribution(latXadd),
    lastXaddAfterLastCommitMs: lastXadd - lastCommit,
  };
}

// ---------------------------------------------------------------------------------------------------
// The relay under test
// ---------------------------------------------------------------------------------------------------

/** Cumulative buckets of mapintel_events_publish_latency_seconds from Prometheus text. */
function parseHistogram(text) {
  const buckets = new Map();
  let count = 0;
  let sum = 0;
  for (const line of text.split('\n')) {
    let m = /^mapintel_events_publish_latency_seconds_bucket\{le="([^"]+)"\} (\S+)/.exec(line);
    if (m) buckets.set(m[1], Number(m[2]));
    m = /^mapintel_events_publish_latency_seconds_count (\S+)/.exec(line);
    if (m) count = Number(m[1]);
    m = /^mapintel_events_publish_latency_seconds_sum (\S+)/.exec(line);
    if (m) sum = Number(m[1]);
  }
  return { buckets, count, sum };
}

/** Upper bucket bounds (ms) holding p50/p99 of the observations between two snapshots. */
function histogramDelta(before, after) {
  const count = after.count - before.count;
  const q = (p) => {
    for (const [le, c] of after.buckets) {
      if (c - (before.buckets.get(le) ?? 0) >= p * count) return le === '+Inf' ? Infinity : Number(le) * 1000;
    }
    return NaN;
  };
  return { count, meanMs: count ? ((after.sum - before.sum) / count) * 1000 : NaN, p50LeMs: q(0.5), p99LeMs: q(0.99) };
}

// ---------------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------------

async function main() {
  const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/mapintel_bench_events';
  const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
  const N = intEnv('BENCH_EVENTS', 20_000);
  const maxSeconds = intEnv('BENCH_MAX_SECONDS', 20);
  const writers = intEnv('BENCH_WRITERS', 8);
  const mapCount = intEnv('BENCH_MAPS', 4);
  const rate = intEnv('BENCH_RATE', 500);
  const rateSeconds = intEnv('BENCH_RATE_SECONDS', 10);
  const warmupEvents = intEnv('BENCH_WARMUP_EVENTS', 500, 0);
  const backlogEvents = intEnv('BENCH_BACKLOG', 5000);
  const relayMode = process.env.BENCH_RELAY || 'child';
  if (!['child', 'inprocess'].includes(relayMode)) throw new Error('BENCH_RELAY must be child or inprocess');
  const DIST = path.resolve(ROOT, process.env.BENCH_DIST || 'dist');
  if (!existsSync(path.join(DIST, 'cli.js'))) throw new Error(`${DIST} is missing: run \`make build\` (or \`make bench-events\`)`);
  const dist = (p) => import(pathToFileURL(path.join(DIST, p)).href);
  const { loadConfig } = await dist('config.js');
  const { buildCore } = await dist('core/core.js');
  const { createApiServices } = await dist('api/services.js');
  const { serve } = await dist('main.js');
  const { apiRole } = await dist('api/api.role.js');
  const { createLogger } = await dist('log.js');

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
  const prefix = `mapintel-bench-events:${process.pid}-${randomBytes(3).toString('hex')}:`;
  const env = {
    DATABASE_URL: databaseUrl,
    SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SERVICE_ADMIN_TOKEN: `adm_${randomBytes(24).toString('base64url')}`,
    LOG_LEVEL: 'warn',
  };
  const relayEnv = {};
  for (const k of ['EVENTS_RELAY_BATCH', 'EVENTS_RELAY_POLL_MS', 'EVENTS_RELAY_PARTITIONS']) if (process.env[k]) relayEnv[k] = process.env[k];

  const closers = [];
  const redis = createClient({ url: redisUrl });
  redis.on('error', (err) => log(`redis: ${err.message}`));
  const readerRedis = redis.duplicate();
  readerRedis.on('error', (err) => log(`redis (reader): ${err.message}`));
  let failed = false;
  try {
    await redis.connect();
    closers.push(async () => {
      const n = await deleteKeys(redis, prefix);
      log(`deleted ${n} Redis keys under ${prefix}`);
      await redis.close();
    });
    await readerRedis.connect();
    closers.push(() => readerRedis.close());

    // The writers' platform: migrates, no relay, no Redis (the relay under test owns the transport).
    const writerCore = await buildCore(loadConfig({ ...env, REDIS_URL: '', EVENTS_RELAY_ENABLED: 'false', DATABASE_POOL_MAX: String(writers + 2) }), {
      migrations: 'apply',
      logger: createLogger('warn'),
    });
    const platform = { orm: writerCore.db.orm, outbox: writerCore.outbox, ...createApiServices(writerCore) };
    closers.push(() => writerCore.close());
    const em = () => platform.orm.em.fork();
    const owner = {
      eve_id: '2119500001',
      name: 'Bench Events Owner',
      corporation_id: '98900002',
      corporation_ticker: 'BENCH',
      alliance_id: null,
      alliance_ticker: null,
    };
    await platform.admin.upsertCharacter(owner);
    await seedSolarSystem(em());
    const maps = [];
    for (let i = 0; i < mapCount; i++) {
      const created = await platform.admin.createMap({ slug: `bench-events-${i}`, name: `Events ${i}`, owner_eve_id: owner.eve_id });
      maps.push(created.map.id);
      await platform.mapContent.addSystem(created.map.id, { solarSystemId: SOLAR_SYSTEM, name: SYSTEM_NAME });
    }
    // Baseline table: the columns of map_events, no trigger, no secondary index.
    const raw = new pg.Pool({ connectionString: databaseUrl, max: writers, idleTimeoutMillis: 0 });
    closers.push(() => raw.end());
    await raw.query(`create table bench_raw_events (seq bigserial primary key, map_id uuid not null, type varchar(64) not null,
      payload jsonb not null, event_id varchar(26) null, created_at timestamptz(6) not null default clock_timestamp(), published_at timestamptz(6) null)`);
    const notify = true;
    log(`seeded ${mapCount} maps through AdminService/MapContentService; Redis prefix ${prefix}${notify ? '' : '; NOTIFY trigger DISABLED (diagnostic)'}`);

    const allKey = `${prefix}events:all`;
    const baselineKey = `${prefix}baseline:all`;
    const reader = new StreamReader(readerRedis, { all: allKey, baseline: baselineKey });
    reader.start();
    closers.push(() => reader.stop());

    // The relay under test (started after the backlog phase).
    let relayPid;
    let metricsText;
    const startRelay = async () => {
      if (relayMode === 'child') {
        const port = await freePort();
        const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
        const srv = startChild(
          'relay',
          [...prof, path.join(DIST, 'cli.js'), 'serve'],
          {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? '',
            NODE_ENV: 'production',
            ...env,
            ...relayEnv,
            PORT: String(port),
            HOST: '127.0.0.1',
            OPS_PORT: '0',
            REDIS_URL: redisUrl,
            REDIS_KEY_PREFIX: prefix,
            EVENTS_RELAY_ENABLED: 'true',
          },
          { cwd: ROOT, port },
        );
        let stopping = false;
        closers.push(() => {
          stopping = true;
          return srv.stop();
        });
        srv.exited.then(({ code, signal }) => {
          if (!stopping) {
            log(`relay process exited early (code ${code}, signal ${signal})`);
            failed = true;
          }
        });
        await waitReady(srv, `${srv.url}/readyz`);
        relayPid = srv.child.pid;
        metricsText = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        log(`relay: node ${path.relative(ROOT, DIST) || DIST}/cli.js serve (pid ${relayPid}, port ${port})`);
      } else {
        const relayConfig = loadConfig({
          ...env,
          ...relayEnv,
          PORT: '0',
          HOST: '127.0.0.1',
          OPS_PORT: '0',
          REDIS_URL: redisUrl,
          REDIS_KEY_PREFIX: prefix,
          EVENTS_RELAY_ENABLED: 'true',
        });
        const serving = await serve(relayConfig, { roles: [apiRole], logger: createLogger('warn') });
        closers.push(() => serving.shutdown());
        metricsText = () => serving.core.metrics.registry.metrics();
        log('relay: the api role (with its relay) in this process');
      }
    };

    // Builds before map_event_cursors marked each event row published; later ones keep a cursor per map.
    const cursors = (await raw.query(`select to_regclass('map_event_cursors') is not null as yes`)).rows[0].yes;
    const unpublishedSql = cursors
      ? `select count(*) as n from map_events e left join map_event_cursors c on c.map_id = e.map_id
         where e.event_id is null or e.event_id > coalesce(c.published_event_id, '')`
      : 'select count(*) as n from map_events where published_at is null';
    const unpublished = async () => Number((await raw.query(unpublishedSql)).rows[0].n);
    const waitDrained = async (timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while ((await unpublished()) > 0) {
        if (Date.now() > deadline || failed) throw new Error('the relay did not drain the outbox');
        await sleep(50);
      }
    };
    // Relay rounds (assign steps): scans of the unassigned-events index, which only the relay reads.
    const relayRounds = async () =>
      Number((await raw.query(`select idx_scan from pg_stat_user_indexes where indexrelname = 'map_events_unassigned_idx'`)).rows[0]?.idx_scan ?? NaN);
    let killSeq = 140_000_000;
    let rawSeq = 0;
    const productOp = (commits) => async (i) => {
      const id = killSeq++;
      const ok = await platform.mapContent.addKill(maps[i % maps.length], killInput(id, SOLAR_SYSTEM));
      const t = nowMs();
      if (!ok) throw new Error(`kill ${id} was not new`);
      commits.set(`k:${id}`, t);
    };
    // The same write path as POST /api/maps/{map_id}/kills: one transaction stores a batch of killmails
    // and their map_kill events (a killboard feed delivers kills in batches).
    // The map key of each map, as the API's authentication would establish it (imports are not attributed).
    const keyOf = (mapId) => ({ kind: 'map_key', keyId: 'bench', mapId, characterId: '' });
    const batchSize = intEnv('BENCH_BATCH', 20);
    const productBatchOp = (commits) => async (i) => {
      const ids = Array.from({ length: batchSize }, () => killSeq++);
      const mapId = maps[i % maps.length];
      const res = await platform.kills.import(
        keyOf(mapId),
        mapId,
        ids.map((id) => toKillInput(killInput(id, SOLAR_SYSTEM))),
      );
      const t = nowMs();
      if (res.inserted !== batchSize) throw new Error(`batch of ${batchSize} kills stored ${res.inserted}`);
      for (const id of ids) commits.set(`k:${id}`, t);
    };
    const baselineOp = (commits) => async (i) => {
      const n = rawSeq++;
      const mapId = maps[i % maps.length];
      const payload = killPayload(killInput(150_000_000 + n, SOLAR_SYSTEM), SYSTEM_NAME);
      const json = JSON.stringify(payload);
      await raw.query('insert into bench_raw_events (map_id, type, payload) values ($1, $2, $3::jsonb)', [mapId, 'map_kill', json]);
      const t = nowMs();
      commits.set(`b:${n}`, t);
      const envelope = JSON.stringify({ id: ulid(), type: 'map_kill', map_id: mapId, ts: new Date().toISOString(), payload });
      await redis.xAdd(baselineKey, '*', { n: String(n), map_id: mapId, type: 'map_kill', envelope });
    };

    /** One measured run; waits until every committed event is in Redis. */
    const run = async (name, makeOp, opts) => {
      if (failed) throw new Error('the relay process died');
      const commits = new Map();
      const loopDelay = monitorEventLoopDelay({ resolution: 5 });
      loopDelay.enable();
      const scans0 = await relayRounds();
      const cpu = cpuStart(relayPid, await databaseBackends(raw));
      const started = nowMs();
      const done = await drive({ writers, ...opts, op: makeOp(commits) });
      const missing = await reader.waitFor([...commits.keys()], 60_000);
      const usage = cpuSince(cpu, relayPid, await databaseBackends(raw), commits.size);
      loopDelay.disable();
      if (missing) throw new Error(`${name}: ${missing} of ${commits.size} committed events never reached Redis`);
      const s = summarize(name, commits, reader, started);
      s.done = done;
      s.cpu = usage;
      s.loopDelayP99Ms = loopDelay.percentile(99) / 1e6;
      log(
        `${name}: ${s.events} events, ${fmt(s.eventsPerSec, 0)} events/s end to end (writes ${fmt(s.writeRate, 0)}/s), ` +
          `commit→read p50 ${fmt(s.latency.p50, 2)} p99 ${fmt(s.latency.p99, 2)} max ${fmt(s.latency.max, 2)} ms; ` +
          `CPU bench ${fmt(usage.benchPct, 0)} % relay ${fmt(usage.relayPct, 0)} % postgres ${fmt(usage.pgPct, 0)} % machine ${fmt(usage.machineBusyPct, 0)} %`,
      );
      await waitDrained();
      await sleep(1100); // PostgreSQL flushes backend statistics at most once a second
      s.relayRounds = (await relayRounds()) - scans0;
      s.eventsPerRound = s.events / s.relayRounds;
      return s;
    };

    // Backlog phase: the write path alone (no relay running), then the relay's drain rate over that backlog.
    let backlog;
    {
      const commits = new Map();
      const cpu = cpuStart(undefined, await databaseBackends(raw));
      const started = nowMs();
      await drive({ writers, count: backlogEvents, op: productOp(commits) });
      const wrote = nowMs();
      const usage = cpuSince(cpu, undefined, await databaseBackends(raw), commits.size);
      await startRelay();
      const missing = await reader.waitFor([...commits.keys()], 120_000);
      if (missing) throw new Error(`backlog: ${missing} of ${commits.size} committed events never reached Redis`);
      const xadds = [...commits.keys()].map((t) => reader.arrivals.get(t).xadd);
      const span = (Math.max(...xadds) - Math.min(...xadds)) / 1000;
      backlog = { events: commits.size, writeRate: commits.size / ((wrote - started) / 1000), cpu: usage, drainSeconds: span, drainRate: commits.size / span };
      log(
        `backlog: ${backlog.events} kills written with no relay running at ${fmt(backlog.writeRate, 0)}/s ` +
          `(CPU ms/event bench ${fmt(usage.benchMsPerEvent, 2)}, postgres ${fmt(usage.pgMsPerEvent, 2)}); the relay published them at ${fmt(backlog.drainRate, 0)} events/s`,
      );
      await waitDrained();
    }

    if (warmupEvents > 0) {
      await run('warm-up product', productOp, { count: warmupEvents });
      await run('warm-up baseline', baselineOp, { count: warmupEvents });
    }
    const deadline = () => nowMs() + maxSeconds * 1000;
    const results = [];
    results.push(await run('A product  (addKill, 8 writers)'.replace('8', writers), productOp, { count: N, deadline: deadline() }));
    results.push(await run('A baseline (INSERT+XADD)', baselineOp, { count: N, deadline: deadline() }));
    const batched = await run(`A2 product (kills in batches of ${batchSize})`, productBatchOp, { count: Math.ceil(N / batchSize), deadline: deadline() });
    const before = parseHistogram(await metricsText());
    const paced = { count: rate * rateSeconds, rate };
    results.push(await run(`B product  @ ${rate}/s`, productOp, paced));
    const relayHistogram = histogramDelta(before, parseHistogram(await metricsText()));
    results.push(await run(`B baseline @ ${rate}/s`, baselineOp, paced));
    const [aP, , bP] = results;
    results.push(batched);

    // Report.
    const header = ['scenario', 'events', 'events/s', 'p50 ms', 'p99 ms', 'max ms', 'vs baseline'];
    const lines = results.map((r, i) => {
      const base = i === 4 ? results[1] : i % 2 === 0 ? results[i + 1] : undefined;
      const vs =
        i === 0 || i === 4
          ? `${fmt((r.eventsPerSec / base.eventsPerSec) * 100, 0)} % of events/s`
          : i === 2
            ? `p99 ×${fmt(r.latency.p99 / base.latency.p99, 1)}`
            : '';
      return [r.scenario, String(r.events), fmt(r.eventsPerSec, 0), fmt(r.latency.p50, 2), fmt(r.latency.p99, 2), fmt(r.latency.max, 2), vs];
    });
    const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
    const row = (cells) => `| ${cells.map((c, i) => (i === 0 || i === 6 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
    const throughputOk = aP.eventsPerSec >= 2000;
    const latencyOk = bP.latency.p99 <= 20;
    const out = [
      '',
      `machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, ${machine.os}; node ${machine.node}; PostgreSQL ${machine.postgres}`,
      `load average before/after: ${loadBefore} / ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (other processes share the cores)`,
      `relay: ${relayMode === 'child' ? `separate process (node ${path.relative(ROOT, DIST) || DIST}/cli.js serve)` : 'in the bench process'}, batch ${relayEnv.EVENTS_RELAY_BATCH ?? 'default'}; ` +
        `${notify ? '' : 'NOTIFY trigger disabled (diagnostic), '}poll ${relayEnv.EVENTS_RELAY_POLL_MS ?? 'default'} ms; ` +
        `${writers} writers, ${mapCount} maps; latency = commit returned → entry read from Redis (XREAD BLOCK, last id kept)`,
      '',
      row(header),
      row(widths.map((w) => '-'.repeat(w))),
      ...lines.map(row),
      '',
      `targets: ≥ 2000 events/s end to end: ${throughputOk ? 'PASS' : 'MISS'} (one change per transaction ${fmt(aP.eventsPerSec, 0)}; ` +
        `batches of ${batchSize}: ${batched.eventsPerSec >= 2000 ? 'PASS' : 'MISS'} ${fmt(batched.eventsPerSec, 0)}); ` +
        `p99 commit→XADD ≤ 20 ms at ${rate}/s: ${latencyOk ? 'PASS' : 'MISS'} (${fmt(bP.latency.p99, 2)} ms)`,
      '',
      `where the time goes: the product write path alone (relay not running) committed ${backlog.events} kills at ${fmt(backlog.writeRate, 0)}/s ` +
        `(CPU ms/event: bench ${fmt(backlog.cpu.benchMsPerEvent, 2)}, postgres ${fmt(backlog.cpu.pgMsPerEvent, 2)}); ` +
        `the relay then published that backlog at ${fmt(backlog.drainRate, 0)} events/s (first to last XADD, ${fmt(backlog.drainSeconds, 2)} s)`,
      '',
      'detail:',
      ...results.map(
        (r) =>
          `  ${r.scenario}: write rate ${fmt(r.writeRate, 0)}/s; last XADD ${fmt(r.lastXaddAfterLastCommitMs, 0)} ms after the last commit; ` +
          `XADD clock (stream id ms − commit, 1 ms resolution) p50 ${fmt(r.latencyXaddClock.p50, 0)} p99 ${fmt(r.latencyXaddClock.p99, 0)} max ${fmt(r.latencyXaddClock.max, 0)} ms; ` +
          `CPU (% of one core) bench ${fmt(r.cpu.benchPct, 0)}, relay ${fmt(r.cpu.relayPct, 0)}, postgres ${fmt(r.cpu.pgPct, 0)}, machine busy ${fmt(r.cpu.machineBusyPct, 0)} % of ${machine.cores} cores; ` +
          `CPU ms/event bench ${fmt(r.cpu.benchMsPerEvent, 2)}, relay ${fmt(r.cpu.relayMsPerEvent, 2)}, postgres ${fmt(r.cpu.pgMsPerEvent, 2)}; ` +
          `bench event-loop delay p99 ${fmt(r.loopDelayP99Ms, 1)} ms` +
          (r.scenario.includes('product') ? `; relay rounds ${r.relayRounds} (${fmt(r.eventsPerRound, 1)} events per round)` : ''),
      ),
      `  relay histogram over B product (insert → publish, bucket bounds): ${relayHistogram.count} events, mean ${fmt(relayHistogram.meanMs, 2)} ms, ` +
        `p50 ≤ ${fmt(relayHistogram.p50LeMs, 1)} ms, p99 ≤ ${fmt(relayHistogram.p99LeMs, 1)} ms`,
      '',
    ];
    console.log(out.join('\n'));
    if (process.env.BENCH_JSON) {
      writeFileSync(
        process.env.BENCH_JSON,
        JSON.stringify(
          {
            date: new Date().toISOString(),
            machine,
            loadBefore,
            loadAfter: os.loadavg(),
            relayMode,
            relayEnv,
            notify,
            writers,
            mapCount,
            rate,
            rateSeconds,
            backlog,
            results,
            relayHistogram,
          },
          null,
          2,
        ),
      );
    }
    if (aP.events < N) log(`scenario A product stopped at the ${maxSeconds} s cap after ${aP.events} events`);
    if (reader.entries === 0) throw new Error('the reader saw no stream entries');
  } finally {
    for (const close of closers.reverse()) await close().catch((err) => log(`cleanup: ${err.message}`));
    if (process.env.BENCH_KEEP_DB === '1') log(`database ${db.name} kept`);
    else await dropDatabase(db.admin, db.name).catch((err) => log(`could not drop ${db.name}: ${err.message}`));
  }
  if (failed) throw new Error('the relay process died during the run');
}

try {
  await main();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
}
