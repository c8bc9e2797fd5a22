// Set-up of bench/webhooks.mjs: the run's context, its child processes (receiver, relay, worker), and the
// maps and subscriptions created through the product's services.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { deleteRedisKeys, freePort, recreateDatabase, seedSolarSystem, SOLAR_SYSTEM, startChild, SYSTEM_NAME, waitForOutput, waitReady } from '../support.mjs';
import { fmt, log, ROOT } from './settings.mjs';

/** The product's modules the bench uses, from the build output `DIST`. */
export async function loadProduct(DIST) {
  const dist = (p) => import(pathToFileURL(path.join(DIST, p)).href);
  const { loadConfig } = await dist('common/config.js');
  const { buildCore } = await dist('core/core.js');
  const { createApiServices } = await dist('api/services.js');
  const { createLogger } = await dist('common/log.js');
  const { USER_AGENT } = await dist('webhooks/sender.js');
  return { loadConfig, buildCore, createApiServices, createLogger, USER_AGENT };
}

/**
 * The run's context: the settings, the product's modules, the machine, the recreated database, the
 * environments of the children, and what is closed at the end (`closers`, in reverse).
 */
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
  ctx.loadBefore = os.loadavg().map((l) => l.toFixed(1));

  ctx.db = await recreateDatabase(ctx.databaseUrl);
  ctx.machine.postgres = ctx.db.version;
  log(`database ${ctx.db.name} recreated (PostgreSQL ${ctx.db.version})`);
  ctx.prefix = `mapintel-bench-webhooks:${process.pid}-${randomBytes(3).toString('hex')}:`;
  ctx.env = {
    DATABASE_URL: ctx.databaseUrl,
    SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SERVICE_ADMIN_TOKEN: `adm_${randomBytes(24).toString('base64url')}`,
    SERVICE_WEBHOOKS_ALLOW_INSECURE_URLS: 'true',
    LOG_LEVEL: 'warn',
  };
  // For the relay, the worker and the bench's in-process writers alike.
  if (process.env.DATABASE_PREPARED_STATEMENTS) ctx.env.DATABASE_PREPARED_STATEMENTS = process.env.DATABASE_PREPARED_STATEMENTS;
  ctx.childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production' };
  ctx.workerEnv = { WEBHOOK_CONCURRENCY: String(ctx.concurrency), WEBHOOK_TIMEOUT_MS: String(ctx.timeoutMs) };
  for (const k of ['WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION', 'WEBHOOK_CONCURRENCY_PER_MAP', 'WEBHOOK_RETRY_WAITS', 'DATABASE_POOL_MAX'])
    if (process.env[k]) ctx.workerEnv[k] = process.env[k];
  if (process.env.BENCH_WORKER_NODE_OPTIONS !== undefined) ctx.workerEnv.NODE_OPTIONS = process.env.BENCH_WORKER_NODE_OPTIONS;

  ctx.closers = [];
  ctx.failed = false;
  ctx.problems = [];
  ctx.tmp = mkdtempSync(path.join(os.tmpdir(), 'mapintel-bench-webhooks-'));
  ctx.closers.push(async () => rmSync(ctx.tmp, { recursive: true, force: true }));
  ctx.closers.push(async () => log(`deleted ${await deleteRedisKeys(ctx.redisUrl, ctx.prefix)} Redis keys under ${ctx.prefix}`));
  return ctx;
}

/** Marks the run as broken (the exit code says so at the end). */
export function broke(ctx, msg) {
  ctx.failed = true;
  ctx.problems.push(msg);
  log(`BROKEN: ${msg}`);
}

/** Starts a child whose early exit breaks the run. */
function child(ctx, name, args, extraEnv, opts) {
  const srv = startChild(name, args, { ...ctx.childEnv, ...extraEnv }, { cwd: ROOT, ...opts });
  let stopping = false;
  srv.exited.then(({ code, signal }) => {
    if (!stopping) broke(ctx, `${name} process exited early (code ${code}, signal ${signal})`);
  });
  const stop = () => {
    stopping = true;
    return srv.stop();
  };
  ctx.closers.push(stop);
  return { ...srv, stop };
}

/** A request to the receiver's control API (`/_bench/<p>`; a POST of `body` when given). */
export async function control(ctx, p, body) {
  const r = await fetch(`${ctx.receiverUrl}/_bench/${p}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`receiver ${p}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** The writers' platform, the receiver, the maps and subscriptions, and the relay (the worker starts later). */
export async function setUp(ctx) {
  const { env, databaseUrl, redisUrl, prefix, mapCount, subsMax, DIST } = ctx;
  const { loadConfig, buildCore, createApiServices, createLogger } = ctx.product;
  // The writers' platform: migrates; no relay and no Redis (the relay process owns the transport).
  const writerCore = await buildCore(
    loadConfig({ ...env, REDIS_URL: '', EVENTS_RELAY_ENABLED: 'false', SERVICE_WEBHOOKS_ENABLED: 'true', DATABASE_POOL_MAX: String(ctx.writers + 2) }),
    { migrations: 'apply', logger: createLogger('warn') },
  );
  ctx.closers.push(() => writerCore.close());
  const platform = { orm: writerCore.db.orm, ...createApiServices(writerCore) };
  ctx.platform = platform;
  const raw = new pg.Pool({ connectionString: databaseUrl, max: 2, idleTimeoutMillis: 0 });
  ctx.raw = raw;
  ctx.closers.push(() => raw.end());

  // The receiver.
  const receiverPort = await freePort();
  ctx.receiver = child(ctx, 'receiver', [path.join(ROOT, 'bench/webhooks-receiver.mjs'), String(receiverPort)], {
    BENCH_VERIFY_EVERY: String(ctx.verifyEvery),
  });
  await waitForOutput(ctx.receiver, /receiver listening/);
  const receiverUrl = `http://127.0.0.1:${receiverPort}`;
  ctx.receiverUrl = receiverUrl;

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
  await control(ctx, 'secrets', secrets);
  Object.assign(ctx, { maps, secrets, subSeq, subsPerEvent: subSeq / mapCount });
  log(`${mapCount} maps, ${subSeq} subscriptions (${fmt(ctx.subsPerEvent, 1)} per map), receiver ${receiverUrl} (pid ${ctx.receiver.child.pid})`);

  // The relay.
  const relayPort = await freePort();
  ctx.relay = child(
    ctx,
    'relay',
    [path.join(DIST, 'cli.js'), 'serve', '--roles', 'api'],
    { ...env, PORT: String(relayPort), HOST: '127.0.0.1', OPS_PORT: '0', REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, EVENTS_RELAY_ENABLED: 'true' },
    { port: relayPort },
  );
  await waitReady(ctx.relay, `${ctx.relay.url}/readyz`);
  log(`relay: node ${path.relative(ROOT, DIST)}/cli.js serve --roles api (pid ${ctx.relay.child.pid})`);

  // Writing: kills in transactions of the batch path, maps taken in turn (bench/webhooks/workload.mjs).
  ctx.killSeq = 160_000_000;
  ctx.mapCursor = 0;
  /** Durations (ms) of the write transactions of the current paced run. */
  ctx.txMs = [];
  // The relay's per-map publication cursor says what is published (older builds marked each row).
  const cursors = (await raw.query(`select to_regclass('map_event_cursors') is not null as yes`)).rows[0].yes;
  ctx.unpublishedSql = cursors
    ? `select count(*) as n from map_events e left join map_event_cursors c on c.map_id = e.map_id
         where e.event_id is null or e.event_id > coalesce(c.published_event_id, '')`
    : 'select count(*) as n from map_events where published_at is null';
}

/** Starts the worker under test (`ctx.worker`); resolves once it delivers. */
export async function startWorker(ctx) {
  const { DIST } = ctx;
  const opsPort = await freePort();
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : [];
  const worker = child(
    ctx,
    'worker',
    [...prof, ...(process.env.BENCH_WORKER_ARGS?.split(' ').filter(Boolean) ?? []), path.join(DIST, 'cli.js'), 'serve', '--roles', 'worker'],
    {
      ...ctx.env,
      ...ctx.workerEnv,
      LOG_LEVEL: 'info',
      PORT: '0',
      HOST: '127.0.0.1',
      OPS_PORT: String(opsPort),
      OPS_HOST: '127.0.0.1',
      REDIS_URL: ctx.redisUrl,
      REDIS_KEY_PREFIX: ctx.prefix,
      SERVICE_WEBHOOKS_ENABLED: 'true',
    },
  );
  ctx.worker = worker;
  await waitForOutput(worker, /delivering webhooks/);
  worker.ops = `http://127.0.0.1:${opsPort}`;
  log(
    `worker: node ${path.relative(ROOT, DIST)}/cli.js serve --roles worker (pid ${worker.child.pid}), WEBHOOK_CONCURRENCY ${ctx.concurrency}, WEBHOOK_TIMEOUT_MS ${ctx.timeoutMs}`,
  );
}

/**
 * The worker's event-loop delay (ms) since the last call, from its metrics (prom-client's
 * monitorEventLoopDelay histogram, reset on every scrape).
 */
export async function loopDelay(w) {
  const text = await (await fetch(`${w.ops}/metrics`)).text();
  const gauge = (q) => Number(new RegExp(`^mapintel_nodejs_eventloop_lag_${q}_seconds\\S* (\\S+)$`, 'm').exec(text)?.[1]) * 1000;
  return { p50: gauge('p50'), p99: gauge('p99'), max: gauge('max') };
}

/** The pids of the processes under watch. */
export const pids = (ctx) => ({ worker: ctx.worker?.child.pid, receiver: ctx.receiver.child.pid, relay: ctx.relay.child.pid });
