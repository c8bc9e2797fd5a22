#!/usr/bin/env node
// make bench-scale: stream processes (`node dist/cli.js serve --roles stream`) against a 3-master Redis
// Cluster started on loopback ports for the run (test/support/redis-cluster.ts, no replicas), over the
// machine's PostgreSQL. Events come from the product's own Redis publisher in this process (as the
// relay publishes them), paced over the maps.
//
//   scale runs      1, 2, 4 processes (BENCH_PROCESSES), each serving its own share of BENCH_MAPS maps
//                   (map k on process k mod n) with BENCH_CLIENTS_PER_MAP connections each, at BENCH_RATE
//                   events/s over all the maps (enough to saturate one process on the lead's machine):
//                   deliveries/s in all and per process, the ratio to linear (n × the 1-process figure of
//                   the same run; target ≥ 0.8), events and bytes each process received beyond its own
//                   maps' (target about 0), Redis CPU per delivery (INFO cpu of the masters, before/after).
//   isolation run   one process with clients on 1 map while BENCH_OTHER_RATE events/s (8,000) go to
//                   BENCH_OTHER_MAPS (1,000) other maps: its CPU (% of a core, /proc/<pid>/stat) and the
//                   bytes of those events it received (targets: under 1 % of a core, under 1 % of the bytes).
//
// Figures are printed (JSON lines on stdout, a summary on stderr); nothing fails on a slow machine.
//
//   BENCH_DATABASE_URL     database to (re)create and seed   postgres://postgres@127.0.0.1:5432/mapintel_bench_scale
//   BENCH_MAPS             maps served in the scale runs    400
//   BENCH_CLIENTS_PER_MAP  connections per map              10
//   BENCH_RATE             events/s of the scale runs       4000
//   BENCH_RATE_PER_PROCESS events/s per process instead (a run of n processes offers n times it), so that
//                          every run saturates its processes alike   (off)
//   BENCH_PROCESS_CPU      cores each stream process may use: a CFS quota in a cgroup of its own, as a
//                          pod's CPU limit (root; cgroup v2 cpu.max or v1 cpu), so that processes added
//                          bring capacity of their own on a machine with fewer cores   (off)
//   BENCH_PROCESSES        process counts                   1,2,4
//   BENCH_OTHER_RATE       events/s of the isolation run    8000
//   BENCH_OTHER_MAPS       maps they go to                  1000
//   BENCH_SECONDS          seconds measured per run         15
//   BENCH_SETTLE_SECONDS   seconds the isolated process's connections are open before its window   5
//   BENCH_MAX_SECONDS      the whole bench is ended after   900
//   BENCH_DIST=dir         build output to benchmark (default dist/)
//   BENCH_CPU_PROF=dir     run the stream processes with --cpu-prof into dir (one profile per process,
//                          written when it stops); BENCH_PROCESSES=0 runs the isolation run alone
//   BENCH_REDIS_URL        a single Redis server to use instead of the cluster (checking the bench itself)
// A quick check that it runs: BENCH_MAPS=8 BENCH_CLIENTS_PER_MAP=2 BENCH_RATE=50 BENCH_OTHER_RATE=100
// BENCH_OTHER_MAPS=20 BENCH_SECONDS=2 BENCH_PROCESSES=1,2 make bench-scale
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { dropDatabase, recreateDatabase } from './support.mjs';
import { databaseUrl, dist, log, MAPS, MAX_SECONDS, PROCESSES, rateOf, SECONDS } from './scale/settings.mjs';
import { startPublisher } from './scale/publisher.mjs';
import { isolationRun, scaleRun } from './scale/runs.mjs';
import { RedisClusterServer } from '../test/support/redis-cluster.ts';

const closers = [];
const close = async () => {
  for (const c of closers.splice(0).reverse()) await c().catch((err) => log(`cleanup: ${err.message}`));
};
const guard = setTimeout(() => {
  log(`!!! BENCH_MAX_SECONDS (${MAX_SECONDS}) passed: stopping`);
  void close().finally(() => process.exit(2));
}, MAX_SECONDS * 1000);

const print = (name, figures) => process.stdout.write(`${JSON.stringify({ run: name, ...figures })}\n`);

try {
  log(
    `machine: ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  let target;
  if (process.env.BENCH_REDIS_URL) {
    // A single server named by the caller (a check of the bench itself; its CPU is shared with others).
    target = { url: process.env.BENCH_REDIS_URL, cluster: false, masters: async () => [process.env.BENCH_REDIS_URL] };
    log(`Redis: the single server ${target.url} (BENCH_REDIS_URL), not a cluster`);
  } else {
    const cluster = await RedisClusterServer.start({ masters: 3, replicas: 0 });
    closers.push(() => cluster.stop());
    target = { url: cluster.url, cluster: true, masters: async () => (await cluster.masters()).map((p) => `redis://127.0.0.1:${p}`) };
    log(`Redis Cluster: 3 masters on ${cluster.url} and its peers`);
  }
  const db = await recreateDatabase(databaseUrl);
  closers.push(() => dropDatabase(db.admin, db.name));
  const env = { DATABASE_URL: databaseUrl, SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'warn' };
  const { loadConfig } = await dist('common/config.js');
  const { buildCore } = await dist('core/core.js');
  const { createApiServices } = await dist('api/services.js');
  const core = await buildCore(loadConfig({ ...env, REDIS_URL: '' }), { migrations: 'apply' });
  const services = createApiServices(core);
  await services.admin.upsertCharacter({ eve_id: '2119900002', name: 'Bench Scale', corporation_id: '98900004', corporation_ticker: 'BENCH' });
  const maps = [];
  for (let i = 0; i < Math.max(1, MAPS); i++) {
    const created = await services.admin.createMap({ slug: `bench-scale-${i}`, name: `Scale ${i}`, owner_eve_id: '2119900002' });
    maps.push({ id: created.map.id, key: created.api_key.api_key });
  }
  await core.close();
  log(`seeded ${maps.length} maps`);

  const { connectRedis } = await dist('redis/redis.js');
  const { createLogger } = await dist('common/log.js');
  const redis = await connectRedis({ url: target.url, cluster: target.cluster, purpose: 'bench-publisher', log: createLogger('warn'), failFast: false });
  const prefix = `mapintel-bench-scale:${process.pid}-${randomBytes(3).toString('hex')}:`;
  const publisher = await startPublisher(redis, prefix);
  closers.push(async () => {
    await publisher.stop();
    const { deleteKeys } = await import('./support.mjs');
    if (!target.cluster) await deleteKeys(redis, prefix);
    await redis.close();
  });
  const ctx = { redis: target, env, prefix, maps, publisher };

  const scale = [];
  for (const n of PROCESSES) {
    const r = await scaleRun(ctx, n);
    const one = scale.find((s) => s.processes === 1);
    const base = n === 1 ? r : one;
    r.ratioToLinear = base?.deliveriesPerSecond ? +(r.deliveriesPerSecond / (n * base.deliveriesPerSecond)).toFixed(3) : null;
    scale.push(r);
    print(`scale_${n}`, r);
    log(
      `${n} process(es), ${rateOf(n)} events/s offered: ${r.deliveriesPerSecond} deliveries/s (${r.perProcess.map((p) => p.deliveriesPerSecond).join(' + ')}), ` +
        `ratio to linear ${r.ratioToLinear ?? 'n/a (no 1-process run)'}, foreign events ${r.perProcess.map((p) => p.foreignEvents).join('/')}, ` +
        `Redis CPU ${r.redisCpuUsPerDelivery} µs/delivery; opened ${r.opened}, failed ${r.failed}`,
    );
  }
  const iso = await isolationRun(ctx);
  print('isolation', iso);
  log(
    `isolation: ${iso.otherEventsPerSecond} events/s to other maps; process CPU ${iso.cpuPercentOfCore} % of a core; ` +
      `received ${iso.receivedEvents} events, ${iso.receivedBytes} of ${iso.sentBytes} bytes (${iso.receivedShareOfSentPercent} %)`,
  );
  print('publisher', publisher.stats());
  log(`${SECONDS} s per run; events not published (the publisher fell behind): ${publisher.stats().skipped}, failed publishes: ${publisher.stats().failed}`);
} catch (err) {
  log(`failed: ${err.stack ?? err}`);
  process.exitCode = 1;
} finally {
  await close();
  clearTimeout(guard);
}
