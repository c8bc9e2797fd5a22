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
//   BENCH_STATIC_DIR     static data folder (default ../shared/data/eve-static, else assets/eve-static-sample)
//   BENCH_KEEP_DB=1      keep the database after the run (it is dropped and recreated at the next start anyway)
//   BENCH_JSON=path      also write the results as JSON
//   BENCH_ENDPOINTS      comma-separated subset to measure, e.g. systems,connections (default: all three)
//   BENCH_CPU_PROF=dir   run both servers with --cpu-prof into dir (profiles are written when they stop)
//
// The same file is the baseline server: `node bench/api.mjs --baseline` (spawned by the benchmark).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { deleteRedisKeys, dropDatabase, freePort, recreateDatabase, startChild, waitReady } from './support.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------------------------------------------
// Baseline: the SQL of the map repositories (src/maps/*/*.repository.ts), src/maps/map.repository.ts and src/api/token.service.ts,
// copied as text (`?` → `$n`), with the same key check (sha256 lookup, cached 3 s like TokenService) and
// map check (map row by id, must be the key's map), answering JSON.stringify({ data }).
// ---------------------------------------------------------------------------------------------------

const tsMicro = (c) => `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const tsSeconds = (c) => `to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

const SYSTEM_COLUMNS = `s.id, s.name, s.status::int as status, s.tag, s.visible, s.description, s.labels,
  ${tsMicro('s.inserted_at')} as inserted_at, ${tsMicro('s.updated_at')} as updated_at, s.locked,
  s.solar_system_id, s.map_id, s.custom_name, s.position_x, s.position_y`;

const CONNECTION_COLUMNS = `c.id, c.type::int as type, c.mass_status::int as mass_status, c.ship_size_type::int as ship_size_type,
  c.time_status::int as time_status, c.map_id, ${tsMicro('c.inserted_at')} as inserted_at, ${tsMicro('c.updated_at')} as updated_at,
  c.solar_system_source, c.solar_system_target, c.wormhole_type`;

const KILL_COLUMNS = `k.killmail_id::float8 as killmail_id, ${tsSeconds('k.kill_time')} as kill_time, k.solar_system_id, k.attacker_count,
  k.npc, k.total_value, k.final_blow_alliance_id::float8 as final_blow_alliance_id, k.final_blow_char_id::float8 as final_blow_char_id,
  k.final_blow_corp_id::float8 as final_blow_corp_id, k.final_blow_ship_type_id::float8 as final_blow_ship_type_id,
  k.final_blow_alliance_ticker, k.final_blow_char_name, k.final_blow_corp_ticker, k.final_blow_ship_name,
  k.victim_alliance_id::float8 as victim_alliance_id, k.victim_char_id::float8 as victim_char_id,
  k.victim_corp_id::float8 as victim_corp_id, k.victim_ship_type_id::float8 as victim_ship_type_id,
  k.victim_char_name, k.victim_corp_ticker, k.victim_ship_name, k.zkb`;

const SQL = {
  key: 'select id, map_id, character_id, key_hash from map_api_keys where key_hash = $1 and revoked_at is null',
  map: 'select id, slug, owner_character_id, webhooks_enabled from maps where id = $1',
  systems: `select ${SYSTEM_COLUMNS} from map_systems s where s.map_id = $1 and s.visible order by s.name, s.solar_system_id`,
  connections: `select ${CONNECTION_COLUMNS} from map_connections c where c.map_id = $1 order by c.inserted_at, c.id`,
  killSystems: 'select solar_system_id from map_systems where map_id = $1 and visible order by solar_system_id',
  kills: `select ${KILL_COLUMNS} from (
         select k.*, row_number() over (partition by k.solar_system_id order by k.kill_time desc, k.killmail_id desc) as rank
         from map_kills k
         join map_systems s on s.map_id = k.map_id and s.solar_system_id = k.solar_system_id and s.visible
         where k.map_id = $1 and k.kill_time >= now() - make_interval(hours => 24)
       ) k
       where k.rank <= 100
       order by k.kill_time desc, k.killmail_id desc
       limit 1000`,
};

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOKEN_RE = /^[A-Za-z0-9_\-.~+/=]{16,256}$/;

async function runBaseline() {
  const pool = new pg.Pool({ connectionString: process.env.BASELINE_DATABASE_URL, max: Number(process.env.BASELINE_POOL_MAX ?? 10) });
  const keyCache = new Map();
  const send = (res, status, body) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const principal = async (header) => {
    const m = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
    if (!m || !TOKEN_RE.test(m[1])) return null;
    const hash = createHash('sha256').update(m[1], 'utf8').digest('hex');
    const now = Date.now();
    const hit = keyCache.get(hash);
    if (hit && hit.expires > now) return hit.mapId;
    const { rows } = await pool.query(SQL.key, [hash]);
    const mapId = rows[0]?.map_id ?? null;
    keyCache.set(hash, { mapId, expires: now + 3000 });
    return mapId;
  };
  const handlers = {
    '/api/map/systems': async (mapId) => (await pool.query(SQL.systems, [mapId])).rows,
    '/api/map/connections': async (mapId) => (await pool.query(SQL.connections, [mapId])).rows,
    '/api/map/systems-kills': async (mapId) => {
      const [systems, kills] = [(await pool.query(SQL.killSystems, [mapId])).rows, (await pool.query(SQL.kills, [mapId])).rows];
      const bySystem = new Map();
      for (const s of systems) bySystem.set(s.solar_system_id, []);
      for (const k of kills) bySystem.get(k.solar_system_id)?.push(k);
      return [...bySystem].map(([solar_system_id, list]) => ({ solar_system_id, kills: list }));
    },
  };
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://x');
      if (url.pathname === '/healthz') return send(res, 200, { status: 'ok' });
      const handler = handlers[url.pathname];
      if (!handler || req.method !== 'GET') return send(res, 404, { error: 'not_found' });
      const keyMapId = await principal(req.headers.authorization);
      if (!keyMapId) return send(res, 401, { error: 'unauthorized' });
      const mapId = url.searchParams.get('map_id')?.trim();
      if (!mapId || !UUID_RE.test(mapId)) return send(res, 400, { error: 'invalid_map_id' });
      const map = (await pool.query(SQL.map, [mapId])).rows[0];
      if (!map || map.id !== keyMapId) return send(res, 404, { error: 'map_not_found' });
      send(res, 200, { data: await handler(map.id) });
    } catch (err) {
      console.error(err);
      if (!res.headersSent) send(res, 503, { error: 'unavailable' });
    }
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.env.BASELINE_PORT), '127.0.0.1', () => console.log('baseline listening'));
  // Requests still queued when the load stops would hit an ended pool: just exit.
  const stop = () => process.exit(0);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

// ---------------------------------------------------------------------------------------------------
// Benchmark driver
// ---------------------------------------------------------------------------------------------------

const ENDPOINTS = ['/api/map/systems', '/api/map/connections', '/api/map/systems-kills'];
const SYSTEMS = 500;
const CONNECTIONS = 800;
const KILLS = 2000;

const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

/** Deterministic PRNG (mulberry32) so every run seeds the same map. */
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

/** Runs `tasks` (functions returning promises) with at most `n` in flight. */
async function inPool(n, tasks) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, tasks.length) }, async () => {
      while (next < tasks.length) await tasks[next++]();
    }),
  );
}

/** Migrates and seeds through the product's own code (dist/): the core, static data import, admin and map content services. */
async function seed(env) {
  const { loadConfig } = await import(pathToFileURL(path.join(ROOT, 'dist/config.js')).href);
  const { buildCore } = await import(pathToFileURL(path.join(ROOT, 'dist/core/core.js')).href);
  const { createApiServices } = await import(pathToFileURL(path.join(ROOT, 'dist/api/services.js')).href);
  const { importStaticData } = await import(pathToFileURL(path.join(ROOT, 'dist/static-data/sde-importer.js')).href);
  const { dbOf } = await import(pathToFileURL(path.join(ROOT, 'dist/db/db.js')).href);
  const config = loadConfig({ ...env, REDIS_URL: '' });
  const core = await buildCore(config, { migrations: 'apply' });
  const platform = { orm: core.db.orm, ...createApiServices(core), close: () => core.close() };
  try {
    const shared = path.resolve(ROOT, '../shared/data/eve-static');
    const staticDir = process.env.BENCH_STATIC_DIR || (existsSync(shared) ? shared : path.join(ROOT, 'assets/eve-static-sample'));
    const imported = await importStaticData(dbOf(platform.orm), staticDir, {});
    log(`static data: ${imported.systems} systems from ${path.relative(ROOT, staticDir) || staticDir}`);

    const em = () => platform.orm.em.fork();
    const owner = {
      eve_id: '2119000001',
      name: 'Bench Owner',
      corporation_id: '98900001',
      corporation_ticker: 'BENCH',
      alliance_id: null,
      alliance_ticker: null,
    };
    await platform.admin.upsertCharacter(owner);
    const created = await platform.admin.createMap({
      slug: 'bench',
      name: 'Benchmark chain',
      description: 'seeded by bench/api.mjs',
      owner_eve_id: owner.eve_id,
    });
    const mapId = created.map.id;
    const apiKey = created.api_key.api_key;

    const rnd = prng(20261122);
    const real = await em().getConnection().execute('select solar_system_id from solar_systems order by md5(solar_system_id::text) limit ?', [SYSTEMS]);
    const ids = real.map((r) => r.solar_system_id);
    const synthetic = SYSTEMS - ids.length;
    for (let i = 0; ids.length < SYSTEMS; i++) ids.push(32_900_000 + i); // not in any static data: named below
    const started = performance.now();
    await inPool(
      8,
      ids.map(
        (sid, i) => () =>
          platform.mapContent.addSystem(mapId, {
            solarSystemId: sid,
            name: `BENCH-${sid}`,
            positionX: 100 + (i % 25) * 180,
            positionY: 80 + Math.floor(i / 25) * 120,
            status: i % 7 === 0 ? 1 : 0,
            tag: i % 11 === 0 ? `T${i}` : null,
            description: i % 5 === 0 ? `System note ${i}` : null,
            labels: i % 9 === 0 ? JSON.stringify({ customLabel: 'Static', labels: ['la'] }) : null,
          }),
      ),
    );

    // Connections: a spanning tree (each system links to an earlier one), then random extra links.
    const pairs = new Set();
    const conns = [];
    const addPair = (a, b) => {
      const k = a < b ? `${a}:${b}` : `${b}:${a}`;
      if (a === b || pairs.has(k)) return false;
      pairs.add(k);
      conns.push([a, b]);
      return true;
    };
    for (let i = 1; i < ids.length && conns.length < CONNECTIONS; i++) addPair(ids[Math.floor(rnd() * i)], ids[i]);
    while (conns.length < CONNECTIONS) addPair(ids[Math.floor(rnd() * ids.length)], ids[Math.floor(rnd() * ids.length)]);
    const wormholes = ['K162', 'B274', 'E545', 'N110', 'H296', 'Q003', 'D382', 'C247', 'X877', null];
    await inPool(
      8,
      conns.map(
        ([a, b], i) =>
          () =>
            platform.mapContent.addConnection(mapId, {
              solarSystemSource: a,
              solarSystemTarget: b,
              type: i % 20 === 0 ? 1 : 0,
              massStatus: i % 3,
              timeStatus: i % 4 === 0 ? 1 : 0,
              shipSizeType: i % 5 === 0 ? 1 : 2,
              wormholeType: wormholes[i % wormholes.length],
            }),
      ),
    );

    // Kills spread over the systems (skewed: some systems see many), within the last 24 h.
    const now = Date.now();
    const ships = [
      ['Gila', 17715],
      ['Loki', 29990],
      ['Sabre', 22456],
      ['Tengu', 29984],
      ['Anathema', 11188],
      ['Procurer', 17480],
    ];
    await inPool(
      8,
      Array.from({ length: KILLS }, (_, i) => () => {
        const sid = ids[Math.floor(rnd() ** 2 * ids.length)];
        const [fbShip, fbShipId] = ships[i % ships.length];
        const [vShip, vShipId] = ships[(i * 7 + 3) % ships.length];
        const value = Math.round(1e6 + rnd() * 5e9);
        return platform.mapContent.addKill(mapId, {
          killmailId: 130_000_000 + i,
          killTime: new Date(now - Math.floor(rnd() * 23.5 * 3600_000)),
          solarSystemId: sid,
          attackerCount: 1 + Math.floor(rnd() * 30),
          npc: i % 13 === 0,
          totalValue: value,
          finalBlowAllianceId: i % 3 ? 99000001 + (i % 50) : null,
          finalBlowCharId: 2118000000 + (i % 400),
          finalBlowCorpId: 98000001 + (i % 80),
          finalBlowShipTypeId: fbShipId,
          finalBlowAllianceTicker: i % 3 ? `AL${i % 50}` : null,
          finalBlowCharName: `Hunter ${i % 400}`,
          finalBlowCorpTicker: `C${i % 80}`,
          finalBlowShipName: fbShip,
          victimAllianceId: i % 2 ? 99100001 + (i % 70) : null,
          victimCharId: 2117500000 + i,
          victimCorpId: 98100001 + (i % 120),
          victimShipTypeId: vShipId,
          victimCharName: `Victim ${i}`,
          victimCorpTicker: `V${i % 120}`,
          victimShipName: vShip,
          zkb: {
            awox: i % 97 === 0,
            destroyedValue: Math.round(value * 0.7),
            droppedValue: Math.round(value * 0.3),
            fittedValue: Math.round(value * 0.6),
            hash: createHash('sha1').update(String(i)).digest('hex'),
            labels: i % 4 === 0 ? ['solo', 'pvp'] : ['pvp'],
            locationID: 40_000_000 + i,
            npc: i % 13 === 0,
            points: 1 + (i % 50),
            solo: i % 4 === 0,
            totalValue: value,
          },
        });
      }),
    );
    await em().getConnection().execute('analyze'); // what autovacuum would have done by now
    log(
      `seeded map ${mapId}: ${ids.length} systems (${synthetic} synthetic), ${conns.length} connections, ${KILLS} kills ` +
        `through MapContentService in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    return { mapId, apiKey, staticSystems: imported.systems, synthetic };
  } finally {
    await platform.close();
  }
}

/** CPU seconds used so far by a process (Linux /proc; undefined elsewhere). */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ (100)
  } catch {
    return undefined;
  }
}

/**
 * After a load run the servers still answer the requests that were queued when the client stopped;
 * wait until every server is idle again (< 5 % of a core over 300 ms) so the next run starts clean.
 */
async function drain(servers, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  if (cpuSeconds(process.pid) === undefined) return sleep(3000);
  while (Date.now() < deadline) {
    const before = servers.map((s) => cpuSeconds(s.child.pid) ?? 0);
    await sleep(300);
    const used = servers.map((s, i) => (cpuSeconds(s.child.pid) ?? 0) - before[i]);
    if (used.every((u) => u < 0.015)) return;
  }
  log('servers still busy after the drain timeout');
}

function summarize(body) {
  const data = body.data;
  const kills = Array.isArray(data) && data.length && Array.isArray(data[0]?.kills) ? data.reduce((n, s) => n + s.kills.length, 0) : undefined;
  return { items: Array.isArray(data) ? data.length : -1, kills };
}

/** Fetches every endpoint from both servers; returns the item counts and whether the bodies are equal. */
async function sanity(product, baseline, query, headers) {
  const rows = [];
  for (const ep of ENDPOINTS) {
    const [p, b] = await Promise.all([product, baseline].map((s) => fetch(`${s.url}${ep}${query}`, { headers })));
    const [pt, bt] = await Promise.all([p.text(), b.text()]);
    if (p.status !== 200 || b.status !== 200) throw new Error(`${ep}: product ${p.status}, baseline ${b.status}\n${pt.slice(0, 500)}\n${bt.slice(0, 500)}`);
    const [pj, bj] = [JSON.parse(pt), JSON.parse(bt)];
    const [ps, bs] = [summarize(pj), summarize(bj)];
    if (ps.items !== bs.items || ps.kills !== bs.kills) throw new Error(`${ep}: product returns ${JSON.stringify(ps)}, baseline ${JSON.stringify(bs)}`);
    const identical = JSON.stringify(pj) === JSON.stringify(bj);
    rows.push({ endpoint: ep, items: ps.items, kills: ps.kills, bytes: Buffer.byteLength(pt), baselineBytes: Buffer.byteLength(bt), identical });
    log(
      `sanity ${ep}: ${ps.items} items${ps.kills !== undefined ? ` (${ps.kills} kills)` : ''}, ${Buffer.byteLength(pt)} bytes; ` +
        `bodies ${identical ? 'identical' : 'DIFFER'} to the baseline`,
    );
  }
  return rows;
}

async function load(autocannon, url, headers, duration, connections) {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections, duration, pipelining: 1, timeout: 30 }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** Paced load: `rate` requests/s in all, for latency at a rate below saturation. */
async function paced(autocannon, url, headers, duration, connections, rate) {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections, duration, pipelining: 1, timeout: 30, overallRate: rate }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** Resident memory of a process in MiB (Linux), or NaN. */
function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The product's V8 heap in use and in all (MiB), from its /metrics. */
async function heapMiB(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (name) => Number(new RegExp(`^mapintel_nodejs_heap_size_${name}_bytes (\\d+)`, 'm').exec(text)?.[1]) / 2 ** 20;
  return { used: read('used'), total: read('total') };
}

/** The product's read-cache counters (mapintel_map_read_cache_total by result) from its /metrics. */
async function cacheCounters(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = {};
  for (const m of text.matchAll(/^mapintel_map_read_cache_total\{result="(\w+)"\} (\d+)/gm)) out[m[1]] = Number(m[2]);
  return out;
}

function statusSummary(res) {
  const codes = Object.entries(res.statusCodeStats ?? {})
    .map(([code, s]) => `${code}:${s.count}`)
    .join(' ');
  return codes || 'none';
}

const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

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

    const results = [];
    const only = (process.env.BENCH_ENDPOINTS ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    const measured = only.length ? ENDPOINTS.filter((ep) => only.some((o) => ep === o || ep === `/api/map/${o}`)) : ENDPOINTS;
    if (!measured.length) throw new Error(`BENCH_ENDPOINTS names none of ${ENDPOINTS.join(', ')}`);
    for (const [i, ep] of measured.entries()) {
      const row = { endpoint: ep };
      // Alternate which server goes first, so neither always runs right after the other's load.
      const order = [
        ['product', product],
        ['baseline', baseline],
      ];
      for (const [key, srv] of i % 2 ? order.reverse() : order) {
        const url = `${srv.url}${ep}${query}`;
        await drain(servers);
        if (warmup > 0) {
          await load(autocannon, url, headers, warmup, connections);
          await drain(servers);
        }
        log(`measuring ${key} ${ep} (${connections} connections, ${duration} s)`);
        const cpu0 = [cpuSeconds(srv.child.pid), process.cpuUsage()];
        const t0 = performance.now();
        const res = await load(autocannon, url, headers, duration, connections);
        const wall = (performance.now() - t0) / 1000;
        const serverCpu = cpu0[0] === undefined ? NaN : cpuSeconds(srv.child.pid) - cpu0[0];
        const d = process.cpuUsage(cpu0[1]);
        const loaderCpu = (d.user + d.system) / 1e6;
        row[key] = {
          rps: res.requests.average,
          total: res.requests.total,
          p50: res.latency.p50,
          p99: res.latency.p99,
          mbps: res.throughput.average / 2 ** 20,
          non2xx: res.non2xx,
          errors: res.errors,
          timeouts: res.timeouts,
          statuses: statusSummary(res),
          serverCpuPct: (serverCpu / wall) * 100,
          loaderCpuPct: (loaderCpu / wall) * 100,
          cpuMsPerReq: (serverCpu * 1000) / res.requests.total,
        };
      }
      row.ratio = row.product.rps / row.baseline.rps;
      results.push(row);
    }

    // Beyond the table: revalidation (If-None-Match → 304), latency at half the baseline's saturation, and
    // reads under 1 write/s to the map (hit rate, and a read right after each write must see it), with the
    // product's resident memory sampled between phases.
    const memory = [rssMiB(product.child.pid)];
    const heaps = [await heapMiB(product.url)];
    const sampleMemory = async () => {
      memory.push(rssMiB(product.child.pid));
      heaps.push(await heapMiB(product.url));
    };
    const revalidated = [];
    for (const r of results) {
      const etag = (await fetch(`${product.url}${r.endpoint}${query}`, { headers })).headers.get('etag');
      await drain(servers);
      const res = await load(autocannon, `${product.url}${r.endpoint}${query}`, { ...headers, 'if-none-match': etag ?? '' }, duration, connections);
      revalidated.push({ endpoint: r.endpoint, rps: res.requests.average, p99: res.latency.p99, statuses: statusSummary(res), errors: res.errors });
      await sampleMemory();
    }
    const pacedRows = [];
    for (const r of results.filter((x) => x.endpoint !== '/api/map/systems-kills')) {
      const rate = Math.max(1, Math.round(r.baseline.rps * 0.5));
      const row = { endpoint: r.endpoint, rate };
      for (const [key, srv] of [
        ['product', product],
        ['baseline', baseline],
      ]) {
        await drain(servers);
        const res = await paced(autocannon, `${srv.url}${r.endpoint}${query}`, headers, duration, connections, rate);
        row[key] = { rps: res.requests.average, p50: res.latency.p50, p99: res.latency.p99, non2xx: res.non2xx, errors: res.errors };
      }
      pacedRows.push(row);
      await sampleMemory();
    }
    // Mixed: the readers of the table's first endpoint, while a writer moves one system once a second through
    // the editing API and reads the map right after each write (staleness = reads that miss the write).
    const mixedEndpoint = measured.includes('/api/map/systems') ? '/api/map/systems' : measured[0];
    const firstSystem = ((await (await fetch(`${product.url}/api/map/systems${query}`, { headers })).json()).data ?? [])[0];
    const mixed = { endpoint: mixedEndpoint, writes: 0, stale: 0, checked: 0 };
    if (firstSystem) {
      await drain(servers);
      const before = await cacheCounters(product.url);
      let writing = true;
      const writer = (async () => {
        while (writing) {
          const x = 1000 + mixed.writes;
          const w = await fetch(`${product.url}/api/maps/${seeded.mapId}/systems/${firstSystem.solar_system_id}`, {
            method: 'PATCH',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ position_x: x }),
          });
          if (w.status !== 200) throw new Error(`mixed: write answered ${w.status}`);
          mixed.writes++;
          const read = await (await fetch(`${product.url}/api/map/systems${query}`, { headers })).json();
          mixed.checked++;
          if (read.data.find((sys) => sys.solar_system_id === firstSystem.solar_system_id)?.position_x !== x) mixed.stale++;
          await new Promise((r) => setTimeout(r, 1000));
        }
      })();
      const res = await load(autocannon, `${product.url}${mixedEndpoint}${query}`, headers, duration, connections);
      writing = false;
      await writer;
      const after = await cacheCounters(product.url);
      const delta = (k) => (after[k] ?? 0) - (before[k] ?? 0);
      Object.assign(mixed, {
        rps: res.requests.average,
        p99: res.latency.p99,
        non2xx: res.non2xx,
        hits: delta('hit'),
        misses: delta('miss'),
        uncached: delta('uncached'),
      });
      mixed.hitRate = mixed.hits / Math.max(1, mixed.hits + mixed.misses + mixed.uncached);
      await sampleMemory();
    }

    const header = ['endpoint', 'product req/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'p50 ms', 'p99 ms', 'product/baseline'];
    const lines = results.map((r) => [
      r.endpoint,
      fmt(r.product.rps),
      fmt(r.product.p50),
      fmt(r.product.p99),
      fmt(r.baseline.rps),
      fmt(r.baseline.p50),
      fmt(r.baseline.p99),
      `${fmt(r.ratio * 100, 0)} %`,
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
    const row = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
    const out = [
      '',
      `machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, ${machine.os}; node ${machine.node}; PostgreSQL ${machine.postgres}`,
      `load:    autocannon, ${connections} connections, ${duration} s per endpoint and server after ${warmup} s warm-up; ` +
        `map: ${SYSTEMS} systems, ${CONNECTIONS} connections, ${KILLS} kills`,
      '',
      row(header),
      row(widths.map((w) => '-'.repeat(w))),
      ...lines.map(row),
      '',
      'server CPU (of one core) while loaded, and server CPU time per request (less sensitive to other load on the machine):',
      ...results.map(
        (r) =>
          `  ${r.endpoint.padEnd(widths[0])}  product ${fmt(r.product.serverCpuPct, 0)} % CPU, ${fmt(r.product.cpuMsPerReq, 2)} ms/req; ` +
          `baseline ${fmt(r.baseline.serverCpuPct, 0)} % CPU, ${fmt(r.baseline.cpuMsPerReq, 2)} ms/req; ` +
          `load generator ${fmt(r.product.loaderCpuPct, 0)} % / ${fmt(r.baseline.loaderCpuPct, 0)} %; ` +
          `CPU-efficiency ratio ${fmt((r.baseline.cpuMsPerReq / r.product.cpuMsPerReq) * 100, 0)} %`,
      ),
      '',
      'If-None-Match with the current ETag (product, 304 Not Modified):',
      ...revalidated.map((r) => `  ${r.endpoint.padEnd(widths[0])}  ${fmt(r.rps)} req/s, p99 ${fmt(r.p99)} ms; status codes ${r.statuses}, errors ${r.errors}`),
      '',
      `paced at 50 % of the baseline's saturation (${connections} connections):`,
      ...pacedRows.map(
        (r) =>
          `  ${r.endpoint.padEnd(widths[0])}  ${r.rate} req/s: product p50 ${fmt(r.product.p50)} p99 ${fmt(r.product.p99)} ms (non-2xx ${r.product.non2xx}); ` +
          `baseline p50 ${fmt(r.baseline.p50)} p99 ${fmt(r.baseline.p99)} ms (non-2xx ${r.baseline.non2xx})`,
      ),
      '',
      `mixed, ${mixed.endpoint} under load with 1 write/s to the map: ${fmt(mixed.rps)} req/s, p99 ${fmt(mixed.p99)} ms, non-2xx ${mixed.non2xx ?? '-'}; ` +
        `${mixed.writes} writes; cache hits ${mixed.hits ?? '-'}, misses ${mixed.misses ?? '-'}, uncached ${mixed.uncached ?? '-'} ` +
        `(hit rate ${fmt((mixed.hitRate ?? NaN) * 100, 1)} %); stale reads right after a write: ${mixed.stale} of ${mixed.checked}`,
      `product resident memory between phases (MiB): ${memory.map((m) => fmt(m, 0)).join(', ')}`,
      `product V8 heap used / total between phases (MiB): ${heaps.map((h) => `${fmt(h.used, 0)}/${fmt(h.total, 0)}`).join(', ')}`,
      '',
      ...results.map(
        (r) =>
          `${r.endpoint}: status codes product ${r.product.statuses} (non-2xx ${r.product.non2xx}, errors ${r.product.errors}, timeouts ${r.product.timeouts}); ` +
          `baseline ${r.baseline.statuses} (non-2xx ${r.baseline.non2xx}, errors ${r.baseline.errors}, timeouts ${r.baseline.timeouts}); ` +
          `MiB/s product ${fmt(r.product.mbps)} baseline ${fmt(r.baseline.mbps)}`,
      ),
      '',
    ];
    out.splice(
      3,
      0,
      `machine load average before/after: ${loadBefore} / ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} (other processes share the cores)`,
    );
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
            duration,
            warmup,
            connections,
            checks,
            results,
            revalidated,
            paced: pacedRows,
            mixed,
            memory,
            heaps,
          },
          null,
          2,
        ),
      );
    }
    const bad = results.filter((r) => r.product.non2xx || r.baseline.non2xx || r.product.errors || r.baseline.errors);
    if (mixed.stale) {
      log(`${mixed.stale} reads right after a write did not see it`);
      process.exitCode = 1;
    }
    if (bad.length) {
      log(`non-2xx responses or errors during the run on ${bad.map((r) => r.endpoint).join(', ')}`);
      process.exitCode = 1;
    }
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
