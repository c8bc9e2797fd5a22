// Set-up of bench/events.mjs: the settings, the run's context, Redis, the writers' platform and maps, the
// baseline table, the stream reader, and the relay under test.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { createClient } from 'redis';
import { deleteKeys, freePort, intEnv, recreateDatabase, seedSolarSystem, sleep, SOLAR_SYSTEM, startChild, SYSTEM_NAME, waitReady } from '../support.mjs';
import { log, ROOT, StreamReader } from './measure.mjs';

/** Partition streams of the product's transport (EVENTS_PARTITIONS of the relay process). */
const EVENT_PARTITIONS = 16;

/** Every BENCH_* setting read before the run starts (BENCH_BATCH is read with the workload). */
export function readSettings() {
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
  return { databaseUrl, redisUrl, N, maxSeconds, writers, mapCount, rate, rateSeconds, warmupEvents, backlogEvents, relayMode, DIST };
}

/** The product's modules the bench uses, from the build output `DIST`. */
export async function loadProduct(DIST) {
  const dist = (p) => import(pathToFileURL(path.join(DIST, p)).href);
  const { loadConfig } = await dist('common/config.js');
  const { buildCore } = await dist('core/core.js');
  const { createApiServices } = await dist('api/services.js');
  const { serve } = await dist('cli/serve.js');
  const { apiRole } = await dist('api/api.role.js');
  const { createLogger } = await dist('common/log.js');
  return { loadConfig, buildCore, createApiServices, serve, apiRole, createLogger };
}

/** The run's context: settings, product modules, machine, the recreated database, environments, Redis clients. */
export async function createContext(settings, product) {
  const ctx = { ...settings, product };
  const cpus = os.cpus();
  ctx.machine = {
    cores: cpus.length,
    cpu: cpus[0]?.model?.trim() ?? 'unknown',
    memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
  ctx.loadBefore = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

  ctx.db = await recreateDatabase(ctx.databaseUrl);
  ctx.machine.postgres = ctx.db.version;
  log(`database ${ctx.db.name} recreated (PostgreSQL ${ctx.db.version})`);
  ctx.prefix = `mapintel-bench-events:${process.pid}-${randomBytes(3).toString('hex')}:`;
  ctx.env = {
    DATABASE_URL: ctx.databaseUrl,
    SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SERVICE_ADMIN_TOKEN: `adm_${randomBytes(24).toString('base64url')}`,
    LOG_LEVEL: 'warn',
  };
  ctx.relayEnv = {};
  for (const k of ['EVENTS_RELAY_BATCH', 'EVENTS_RELAY_POLL_MS', 'EVENTS_RELAY_PARTITIONS']) if (process.env[k]) ctx.relayEnv[k] = process.env[k];

  ctx.closers = [];
  ctx.redis = createClient({ url: ctx.redisUrl });
  ctx.redis.on('error', (err) => log(`redis: ${err.message}`));
  ctx.readerRedis = ctx.redis.duplicate();
  ctx.readerRedis.on('error', (err) => log(`redis (reader): ${err.message}`));
  ctx.failed = false;
  return ctx;
}

/** Connects Redis, builds the writers' platform, seeds the maps and the baseline table, starts the reader. */
export async function setUp(ctx) {
  const { redis, readerRedis, prefix, env, writers, mapCount } = ctx;
  const { loadConfig, buildCore, createApiServices, createLogger } = ctx.product;
  await redis.connect();
  ctx.closers.push(async () => {
    const n = await deleteKeys(redis, prefix);
    log(`deleted ${n} Redis keys under ${prefix}`);
    await redis.close();
  });
  await readerRedis.connect();
  ctx.closers.push(() => readerRedis.close());

  // The writers' platform: migrates, no relay, no Redis (the relay under test owns the transport).
  const writerCore = await buildCore(loadConfig({ ...env, REDIS_URL: '', EVENTS_RELAY_ENABLED: 'false', DATABASE_POOL_MAX: String(writers + 2) }), {
    migrations: 'apply',
    logger: createLogger('warn'),
  });
  const platform = { orm: writerCore.db.orm, outbox: writerCore.outbox, ...createApiServices(writerCore) };
  ctx.platform = platform;
  ctx.closers.push(() => writerCore.close());
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
  ctx.maps = maps;
  // Baseline table: the columns of map_events, no trigger, no secondary index.
  const raw = new pg.Pool({ connectionString: ctx.databaseUrl, max: writers, idleTimeoutMillis: 0 });
  ctx.raw = raw;
  ctx.closers.push(() => raw.end());
  await raw.query(`create table bench_raw_events (seq bigserial primary key, map_id uuid not null, type varchar(64) not null,
      payload jsonb not null, event_id varchar(26) null, created_at timestamptz(6) not null default clock_timestamp(), published_at timestamptz(6) null)`);
  ctx.notify = true;
  log(`seeded ${mapCount} maps through AdminService/MapContentService; Redis prefix ${prefix}${ctx.notify ? '' : '; NOTIFY trigger DISABLED (diagnostic)'}`);

  // The relay copies each event to its map's partition stream: the reader reads them all (one node here).
  ctx.partitionKeys = Array.from({ length: EVENT_PARTITIONS }, (_, n) => `${prefix}{p:${n}}:events`);
  ctx.baselineKey = `${prefix}baseline:all`;
  const reader = new StreamReader(readerRedis, { ...Object.fromEntries(ctx.partitionKeys.map((k, n) => [`p${n}`, k])), baseline: ctx.baselineKey });
  ctx.reader = reader;
  reader.start();
  ctx.closers.push(() => reader.stop());

  // Builds before map_event_cursors marked each event row published; later ones keep a cursor per map.
  const cursors = (await raw.query(`select to_regclass('map_event_cursors') is not null as yes`)).rows[0].yes;
  ctx.unpublishedSql = cursors
    ? `select count(*) as n from map_events e left join map_event_cursors c on c.map_id = e.map_id
         where e.event_id is null or e.event_id > coalesce(c.published_event_id, '')`
    : 'select count(*) as n from map_events where published_at is null';
}

/** The relay under test (started after the backlog phase): sets `ctx.relayPid` (child mode) and `ctx.metricsText`. */
export async function startRelay(ctx) {
  const { env, relayEnv, redisUrl, prefix, DIST } = ctx;
  const { loadConfig, serve, apiRole, createLogger } = ctx.product;
  if (ctx.relayMode === 'child') {
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
        // The bench reads the relay's publish-latency histogram from /metrics on this port.
        SERVICE_METRICS_PUBLIC: 'true',
        REDIS_URL: redisUrl,
        REDIS_KEY_PREFIX: prefix,
        EVENTS_PARTITIONS: String(EVENT_PARTITIONS),
        EVENTS_RELAY_ENABLED: 'true',
      },
      { cwd: ROOT, port },
    );
    let stopping = false;
    ctx.closers.push(() => {
      stopping = true;
      return srv.stop();
    });
    srv.exited.then(({ code, signal }) => {
      if (!stopping) {
        log(`relay process exited early (code ${code}, signal ${signal})`);
        ctx.failed = true;
      }
    });
    await waitReady(srv, `${srv.url}/readyz`);
    ctx.relayPid = srv.child.pid;
    ctx.metricsText = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    log(`relay: node ${path.relative(ROOT, DIST) || DIST}/cli.js serve (pid ${ctx.relayPid}, port ${port})`);
  } else {
    const relayConfig = loadConfig({
      ...env,
      ...relayEnv,
      PORT: '0',
      HOST: '127.0.0.1',
      OPS_PORT: '0',
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
      EVENTS_PARTITIONS: String(EVENT_PARTITIONS),
      EVENTS_RELAY_ENABLED: 'true',
    });
    const serving = await serve(relayConfig, { roles: [apiRole], logger: createLogger('warn') });
    ctx.closers.push(() => serving.shutdown());
    ctx.metricsText = () => serving.core.metrics.registry.metrics();
    log('relay: the api role (with its relay) in this process');
  }
}

/** Waits until the relay has published every event in the outbox. */
export async function waitDrained(ctx, timeoutMs = 60_000) {
  const unpublished = async () => Number((await ctx.raw.query(ctx.unpublishedSql)).rows[0].n);
  const deadline = Date.now() + timeoutMs;
  while ((await unpublished()) > 0) {
    if (Date.now() > deadline || ctx.failed) throw new Error('the relay did not drain the outbox');
    await sleep(50);
  }
}

/** Relay rounds (assign steps): scans of the unassigned-events index, which only the relay reads. */
export async function relayRounds(ctx) {
  return Number((await ctx.raw.query(`select idx_scan from pg_stat_user_indexes where indexrelname = 'map_events_unassigned_idx'`)).rows[0]?.idx_scan ?? NaN);
}
