#!/usr/bin/env node
// make bench-stream: one stream process (`node dist/cli.js serve --roles stream`) under SSE load from a
// load generator in its own process (bench/stream-load.mjs), side by side with two peers:
//   (a) a minimal node:http SSE fan-out of the same frames with no auth, caps or Redis
//       (bench/stream-baseline.mjs): the floor of Node itself;
//   (b) Centrifugo v5.4.9, the open-source real-time server, built from the Go module proxy into
//       .cache/bin/ on first use (bench/build-centrifugo.mjs): uni-directional SSE, its Redis engine
//       on a key prefix of its own with history on, a JWT naming the client's channel (one per map), fed
//       through its server API (/api/batch). When it cannot be built the bench says so and goes on.
// Events reach the product through Redis: this script publishes them with the product's own publisher
// (map streams and channels, as the relay does) at the set rate, each carrying `sent_at` (publish time, ms); Centrifugo gets the same envelopes at the same rate.
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
//   BENCH_FANOUT_SETTLE_SECONDS  seconds a fan-out run waits     3 (events flow meanwhile; 0: measure from
//                        after its connections opened, before    the last connect; each run's p99BySecond
//                        measuring                               counts from then either way)
//   BENCH_PEERS          which servers                        product,baseline,centrifugo
//   BENCH_COMMIT_RATE    writes/s of the commit phase (0:     500
//                        none): kills POSTed to an api process, each timed from its commit to the first
//                        byte of its frame at an SSE client of the product (bench/stream/commit.mjs)
//   BENCH_COMMIT_WARMUP_SECONDS  seconds of writes at that rate before the measured ones, not   2
//                        counted (the api process's JIT, pools and caches warm up, as a serving one is)
//   BENCH_CPU_PROF=dir   run the product with --cpu-prof into dir (written when it stops)
//   BENCH_DIST=dir       build output to benchmark (default dist/; e.g. a copy built from another commit, to compare)
//   BENCH_NODE_ARGS      more node flags for the product, e.g. "--trace-gc" (its output goes to stdout)
//   BENCH_PRODUCT_ENV    more settings of the product as JSON, e.g. '{"STREAM_HEAP_GROWTH_PERCENT":"0"}'
//   BENCH_STREAM_NODE_OPTIONS  NODE_OPTIONS of the product (default: the chart's stream.nodeOptions,
//                        --max-semi-space-size=16, as a stream pod runs; '' = Node's defaults)
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { createClient } from 'redis';
import { monotonicFactory } from 'ulid';
import { startBaseline, startCentrifugo, startProduct } from './stream/peers.mjs';
import { COMMIT_MAPS, COMMIT_RATE, commitRun } from './stream/commit.mjs';
import { fanoutRuns, idleRuns, report } from './stream/runs.mjs';
import { databaseUrl, dist, log, MAPS, PEERS, redisUrl, sleep } from './stream/settings.mjs';
import { deleteKeys, recreateDatabase, seedSolarSystem } from './support.mjs';

/** What the parts share: the environment of the product, Redis, the maps, the peers, what to close at the end. */
const ctx = { closers: [], peers: new Map(), results: {}, centrifugoNote: '' };

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
  const { loadConfig } = await dist('common/config.js');
  const { buildCore } = await dist('core/core.js');
  const { createApiServices } = await dist('api/services.js');
  const core = await buildCore(loadConfig({ ...env, REDIS_URL: '' }), { migrations: 'apply' });
  const services = createApiServices(core);
  await services.admin.upsertCharacter({ eve_id: '2119900001', name: 'Bench Stream', corporation_id: '98900003', corporation_ticker: 'BENCH' });
  // The kills of the commit phase name this system (the write path checks kills against static data).
  await seedSolarSystem(core.db.orm.em.fork());
  const maps = [];
  for (let i = 0; i < MAPS; i++) {
    const created = await services.admin.createMap({ slug: `bench-stream-${i}`, name: `Stream ${i}`, owner_eve_id: '2119900001' });
    maps.push({ id: created.map.id, key: created.api_key.api_key });
  }
  // The commit phase's maps: none of the fan-out's (bench/stream/commit.mjs).
  const commitMaps = [];
  if (COMMIT_RATE > 0)
    for (let i = 0; i < COMMIT_MAPS; i++) {
      const created = await services.admin.createMap({ slug: `bench-stream-commit-${i}`, name: `Commit ${i}`, owner_eve_id: '2119900001' });
      commitMaps.push({ id: created.map.id, key: created.api_key.api_key });
    }
  await core.close();
  log(`seeded ${MAPS} maps (+ ${commitMaps.length} for the commit phase)`);

  const redis = createClient({ url: redisUrl });
  await redis.connect();
  ctx.closers.push(async () => {
    await deleteKeys(redis, prefix);
    await redis.close();
  });
  Object.assign(ctx, { env, prefix, redis, maps, commitMaps, nextId: monotonicFactory() });
  if (PEERS.includes('product')) await startProduct(ctx);
  if (PEERS.includes('baseline')) await startBaseline(ctx);
  ctx.centrifugoNote = PEERS.includes('centrifugo') ? await startCentrifugo(ctx) : 'baseline (b) not selected (BENCH_PEERS)';
  for (const p of ctx.peers.values()) await p.ready();
  await sleep(1500);

  await idleRuns(ctx);
  await fanoutRuns(ctx);
  await commitRun(ctx);
  report(ctx);
} finally {
  for (const c of ctx.closers.reverse()) await c().catch(() => undefined);
}
process.exit(0);
