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
//      partition streams (`<prefix>{p:<n>}:events`) by an XREAD BLOCK loop that keeps the last id seen. Cross-checks: the
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
import { existsSync } from 'node:fs';
import path from 'node:path';
import { report } from './events/report.mjs';
import { log } from './events/measure.mjs';
import { createContext, loadProduct, readSettings, setUp } from './events/setup.mjs';
import { backlogPhase, scenarios } from './events/workload.mjs';
import { dropDatabase, intEnv } from './support.mjs';

async function main() {
  const settings = readSettings();
  const { DIST } = settings;
  if (!existsSync(path.join(DIST, 'cli.js'))) throw new Error(`${DIST} is missing: run \`make build\` (or \`make bench-events\`)`);
  const ctx = await createContext(settings, await loadProduct(DIST));
  const { db } = ctx;
  try {
    await setUp(ctx);
    ctx.killSeq = 140_000_000;
    ctx.rawSeq = 0;
    ctx.batchSize = intEnv('BENCH_BATCH', 20);
    ctx.backlog = await backlogPhase(ctx);
    Object.assign(ctx, await scenarios(ctx));
    report(ctx);
  } finally {
    for (const close of ctx.closers.reverse()) await close().catch((err) => log(`cleanup: ${err.message}`));
    if (process.env.BENCH_KEEP_DB === '1') log(`database ${db.name} kept`);
    else await dropDatabase(db.admin, db.name).catch((err) => log(`could not drop ${db.name}: ${err.message}`));
  }
  if (ctx.failed) throw new Error('the relay process died during the run');
}

try {
  await main();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
}
