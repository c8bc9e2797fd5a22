// Shared by the benchmark scripts: their own database, free ports, their Redis keys, child processes, CPU accounting, figures, and the kill workload.
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import pg from 'pg';

/** Drops and recreates the database named by `url` (never postgres or a template); returns its name, the admin URL and the server version. */
export async function recreateDatabase(url) {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`BENCH_DATABASE_URL must name a lower-case database (got "${name}")`);
  if (['postgres', 'template0', 'template1'].includes(name)) throw new Error(`refusing to drop database "${name}"`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
    await client.query(`create database "${name}"`);
    const version = (await client.query('show server_version')).rows[0].server_version;
    return { name, admin: admin.toString(), version };
  } finally {
    await client.end();
  }
}

export async function dropDatabase(adminUrl, name) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await client.end();
  }
}

/** Deletes every key under `prefix` with a connected node-redis client; returns how many. */
export async function deleteKeys(redis, prefix) {
  let deleted = 0;
  const batch = [];
  for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
    batch.push(...(Array.isArray(keys) ? keys : [keys]));
  }
  for (let i = 0; i < batch.length; i += 500) deleted += await redis.del(batch.slice(i, i + 500));
  return deleted;
}

/** Deletes every key under `prefix`, with a client of its own. */
export async function deleteRedisKeys(url, prefix) {
  const { createClient } = await import('redis');
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await deleteKeys(client, prefix);
  } finally {
    await client.close();
  }
}

/** A free TCP port on 127.0.0.1. */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts `node <args>` (or `command <args>`) as a child with its output kept (the last 20 kB, stderr
 * echoed with a `[name]` prefix); `stop()` sends SIGTERM, then SIGKILL after 15 s.
 */
export function startChild(name, args, env, { cwd, port, command = process.execPath } = {}) {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-20_000);
  };
  child.stdout.on('data', keep);
  // BENCH_ECHO_STDOUT=1 shows the children's stdout too (e.g. node --trace-gc).
  if (process.env.BENCH_ECHO_STDOUT) child.stdout.on('data', (c) => process.stderr.write(`[${name}:stdout] ${c}`));
  child.stderr.on('data', (c) => {
    keep(c);
    process.stderr.write(`[${name}] ${c}`);
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    name,
    child,
    url: port ? `http://127.0.0.1:${port}` : undefined,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * Starts bench/ok-receiver.mjs (a node:http receiver answering every request 200) in a process of
 * its own on loopback; resolves its port, its pid and a way to stop it.
 */
export async function startOkReceiver(keepAliveTimeoutMs) {
  const child = fork(new URL('./ok-receiver.mjs', import.meta.url), [String(keepAliveTimeoutMs)]);
  const port = await new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`the receiver exited (code ${code}) before listening`)));
  });
  return { port, pid: child.pid, kill: () => child.kill() };
}

/** Polls `url` until it answers 2xx (or `accept(response)`); fails with the child's output when it exits or 60 s pass. */
export async function waitReady(srv, url, timeoutMs = 60_000, accept = (r) => r.ok) {
  const deadline = Date.now() + timeoutMs;
  let dead = false;
  srv.exited.then(() => (dead = true));
  while (Date.now() < deadline && !dead) {
    try {
      const r = await fetch(url);
      await r.arrayBuffer();
      if (accept(r)) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${srv.name} did not become ready:\n${srv.output()}`);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Wall-clock milliseconds with sub-millisecond resolution (comparable with Redis stream ids and PostgreSQL times on this machine). */
export const nowMs = () => performance.timeOrigin + performance.now();

/** An integer setting from the environment, `def` when unset. */
export function intEnv(name, def, min = 1) {
  const text = process.env[name];
  if (text === undefined || text === '') return def;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min} (got "${text}")`);
  return n;
}

/** Waits until the child's output matches `pattern`; fails with its output when it exits or `timeoutMs` pass. */
export async function waitForOutput(srv, pattern, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let dead = false;
  srv.exited.then(() => (dead = true));
  while (Date.now() < deadline && !dead) {
    if (pattern.test(srv.output())) return;
    await sleep(50);
  }
  throw new Error(`${srv.name} did not print ${pattern}:\n${srv.output()}`);
}

// ---------------------------------------------------------------------------------------------------
// CPU accounting (Linux /proc; figures are NaN elsewhere)
// ---------------------------------------------------------------------------------------------------

/** CPU seconds so far of process `pid` (user + system). */
export function procCpu(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

/**
 * Seconds so far that the main thread of process `pid` spent runnable but waiting for a core
 * (/proc/<pid>/schedstat, second field, in ns): the scheduling delay that every hop of a pipeline adds when
 * more processes want to run than there are cores.
 */
export function procRunDelay(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
  } catch {
    return NaN;
  }
}

/** CPU seconds so far of each PostgreSQL backend in `pids` (`measure`: another per-process figure, e.g. procRunDelay). */
export function backendsCpu(pids, measure = procCpu) {
  const out = new Map();
  for (const pid of pids) {
    const c = measure(pid);
    if (Number.isFinite(c)) out.set(pid, c);
  }
  return out;
}

/** CPU seconds the backends used between two snapshots (a backend that appeared since counts in full). */
export function backendsDelta(before, after) {
  let total = 0;
  for (const [pid, c] of after) total += c - (before.get(pid) ?? 0);
  return total;
}

/** Machine-wide busy and total jiffies from /proc/stat. */
export function machineCpu() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3] + (f[4] ?? 0);
    const total = f.reduce((a, b) => a + b, 0);
    return { idle, total };
  } catch {
    return { idle: NaN, total: NaN };
  }
}

/** Backend pids of the pool's database (every session but the asking one). */
export async function databaseBackends(pool) {
  return (await pool.query('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')).rows.map((r) => r.pid);
}

// ---------------------------------------------------------------------------------------------------
// Figures
// ---------------------------------------------------------------------------------------------------

export function percentile(sorted, q) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function distribution(values) {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 0.5), p99: percentile(s, 0.99), max: s.at(-1) ?? NaN };
}

// ---------------------------------------------------------------------------------------------------
// Workload: kills written through the product's write paths
// ---------------------------------------------------------------------------------------------------

export const SOLAR_SYSTEM = 31_000_001;
export const SYSTEM_NAME = 'BENCH-J100001';

/** The kills' solar system as static data (the batch write path checks kills against it); `em` is a MikroORM EntityManager. */
export async function seedSolarSystem(em) {
  await em.getConnection().execute(
    `insert into solar_systems (solar_system_id, solar_system_name, solar_system_name_lc, region_id, region_name, constellation_id,
       constellation_name, true_security, security, system_class, class_title, type_description, sun_type_id)
     values (?, ?, lower(?), 11000001, 'A-R00001', 21000001, 'A-C00001', -0.99, '-1.0', 1, 'C1', 'Class 1', 34)
     on conflict (solar_system_id) do nothing`,
    [SOLAR_SYSTEM, SYSTEM_NAME, SYSTEM_NAME],
  );
}

/** A kill as test/support/factories.ts killInput() builds it (the same shape and sizes). */
export function killInput(killmailId, solarSystemId = SOLAR_SYSTEM) {
  return {
    killmailId,
    killTime: new Date(Date.now() - 3600_000),
    solarSystemId,
    attackerCount: 3,
    npc: false,
    totalValue: 150_000_000.5,
    finalBlowAllianceId: 99000001,
    finalBlowCharId: 2112000001,
    finalBlowCorpId: 98000001,
    finalBlowShipTypeId: 17715,
    finalBlowAllianceTicker: 'ALLY',
    finalBlowCharName: 'Killer',
    finalBlowCorpTicker: 'CORP',
    finalBlowShipName: 'Gila',
    victimAllianceId: null,
    victimCharId: 2112000002,
    victimCorpId: 98000002,
    victimShipTypeId: 11188,
    victimCharName: 'Victim',
    victimCorpTicker: 'VICT',
    victimShipName: 'Anathema',
    zkb: {
      awox: false,
      destroyedValue: 100_000_000,
      droppedValue: 50_000_000.5,
      fittedValue: 120_000_000,
      hash: 'abc123',
      labels: ['pvp', 'solo'],
      locationID: 40000001,
      npc: false,
      points: 12,
      solo: true,
      totalValue: 150_000_000.5,
    },
  };
}

/** A killInput() as the body of POST /api/maps/{map_id}/kills carries it (KillsService.import). */
export function toKillInput(k) {
  return {
    killmail_id: k.killmailId,
    kill_time: k.killTime,
    solar_system_id: k.solarSystemId,
    attacker_count: k.attackerCount,
    npc: k.npc,
    total_value: k.totalValue,
    final_blow_alliance_id: k.finalBlowAllianceId,
    final_blow_char_id: k.finalBlowCharId,
    final_blow_corp_id: k.finalBlowCorpId,
    final_blow_ship_type_id: k.finalBlowShipTypeId,
    final_blow_alliance_ticker: k.finalBlowAllianceTicker,
    final_blow_char_name: k.finalBlowCharName,
    final_blow_corp_ticker: k.finalBlowCorpTicker,
    final_blow_ship_name: k.finalBlowShipName,
    victim_alliance_id: k.victimAllianceId,
    victim_char_id: k.victimCharId,
    victim_corp_id: k.victimCorpId,
    victim_ship_type_id: k.victimShipTypeId,
    victim_char_name: k.victimCharName,
    victim_corp_ticker: k.victimCorpTicker,
    victim_ship_name: k.victimShipName,
    zkb: k.zkb,
  };
}

/**
 * Runs `count` operations over `writers` concurrent loops. With `rate`, operation i starts no earlier than
 * t0 + i/rate (paced; a late loop catches up at once). Stops early at `deadline` (ms, nowMs clock).
 */
export async function drive({ count, writers, rate, deadline, op }) {
  let next = 0;
  let done = 0;
  const t0 = nowMs() + 5;
  const interval = rate ? 1000 / rate : 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (;;) {
        const i = next++;
        if (i >= count || (deadline && nowMs() > deadline)) return;
        if (rate) {
          // Timer resolution (~1 ms) is enough at these rates; no busy-wait (it would take a core from the system under test).
          const wait = t0 + i * interval - nowMs();
          if (wait > 0) await sleep(Math.round(wait));
        }
        await op(i);
        done++;
      }
    }),
  );
  return done;
}
