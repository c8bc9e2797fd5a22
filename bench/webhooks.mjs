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
//   5 stalled     every subscription of BENCH_STALL_MAPS maps with the most subscriptions (5 with the
//       defaults) is pointed at `/stall/<n>` (the receiver answers 200 and never ends the body, so each
//       attempt lasts the worker's WEBHOOK_TIMEOUT_MS), then kills are paced at BENCH_ISOLATION_RATE
//       deliveries/s: p99 of the other maps against the all-healthy p99 of phase 3 at the same rate.
//   6 quiet       (only when named in BENCH_PHASES) BENCH_QUIET_EVENTS single kills, each after BENCH_QUIET_SECONDS
//       without any write: event→receiver latency of the first event after a quiet spell, when idle
//       connections (the writers', the relay's, the worker's) may have been closed.
// Every phase checks that every planned delivery (to a healthy path) arrived at least once, and one
// request in BENCH_VERIFY_EVERY has its signature verified by the receiver.
//
// Targets: ≥ 3,000 deliveries/s; p99 ≤ 50 ms below saturation; worker/baseline ≥ 0.7; healthy p99 with
// some subscriptions timing out ≤ 2× the all-healthy p99, and beside a map whose receivers stall ≤ 2×. A miss is reported, not an error: the exit code
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
//   BENCH_STALL_MAPS       maps whose every subscription stalls in phase 5 (default 1)
//   BENCH_TX_PER_SECOND    most write transactions per second in paced runs (default 50)
//   BENCH_WRITERS          concurrent writers (default 8)
//   BENCH_CONCURRENCY      WEBHOOK_CONCURRENCY of the worker and requests in flight of the baseline (default 128)
//   BENCH_TIMEOUT_MS       WEBHOOK_TIMEOUT_MS of the worker and the baseline (default 2000)
//   BENCH_VERIFY_EVERY     the receiver verifies the signature of one request in this many (default 20)
//   BENCH_STALL_SECONDS    a phase whose deliveries stop arriving for this long counts the missing ones as lost (default 30)
//   BENCH_DRAIN_SECONDS    and so does a phase that takes longer than this in all (default 600)
//   BENCH_PHASES           phases to run, comma list of saturation,baseline,latency,isolation,stalled,quiet (default all
//                          but quiet; baseline needs saturation)
//   BENCH_QUIET_EVENTS     events of the quiet phase (default 5)
//   BENCH_QUIET_SECONDS    seconds without writes before each of them (default 40)
//   WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION, WEBHOOK_CONCURRENCY_PER_MAP, WEBHOOK_RETRY_WAITS, DATABASE_POOL_MAX   passed to the worker when set
//   DATABASE_PREPARED_STATEMENTS   passed to the relay, the worker and the bench's writers when set (printed in the summary)
//   BENCH_WORKER_NODE_OPTIONS  NODE_OPTIONS of the worker process (default: none), e.g. "--max-semi-space-size=1"
//   BENCH_WORKER_ARGS      node flags of the worker process that NODE_OPTIONS refuses, space-separated, e.g. "--trace-gc"
//                          (with BENCH_ECHO_STDOUT=1 to see what they print)
//   BENCH_DIST=dir         build output to benchmark (default dist/), a folder inside the project so that its imports resolve
//   BENCH_CPU_PROF=dir     run the worker with --cpu-prof into dir (one profile per worker process, written when it stops)
//   BENCH_KEEP_DB=1        keep the database after the run
//   BENCH_JSON=path        also write the results as JSON
import { existsSync } from 'node:fs';
import path from 'node:path';
import { dropDatabase } from './support.mjs';
import { baseline, chooseRates, isolation, latency, quiet, saturation, stalled } from './webhooks/phases.mjs';
import { report } from './webhooks/report.mjs';
import { log, readSettings } from './webhooks/settings.mjs';
import { createContext, loadProduct, setUp, startWorker } from './webhooks/setup.mjs';

async function main() {
  const settings = readSettings();
  const { DIST, phases } = settings;
  if (!existsSync(path.join(DIST, 'cli.js'))) throw new Error(`${DIST} is missing: run \`make build\` (or \`make bench-webhooks\`)`);
  const ctx = await createContext(settings, await loadProduct(DIST));
  const { db } = ctx;
  try {
    await setUp(ctx);
    ctx.results = { saturation: undefined, baseline: undefined, latency: [], isolation: undefined, stalled: undefined, quiet: undefined };
    if (phases.has('saturation')) {
      const expected = await saturation(ctx);
      if (phases.has('baseline')) await baseline(ctx, expected);
    } else {
      await startWorker(ctx);
    }
    chooseRates(ctx);
    if (phases.has('latency')) await latency(ctx);
    if (phases.has('isolation')) await isolation(ctx);
    if (phases.has('stalled')) await stalled(ctx);
    if (phases.has('quiet')) await quiet(ctx);
    report(ctx);
  } finally {
    for (const close of ctx.closers.reverse()) await close().catch((err) => log(`cleanup: ${err.message}`));
    if (process.env.BENCH_KEEP_DB === '1') log(`database ${db.name} kept`);
    else await dropDatabase(db.admin, db.name).catch((err) => log(`could not drop ${db.name}: ${err.message}`));
  }
  if (ctx.failed) throw new Error(`the benchmark broke: ${ctx.problems.join('; ')}`);
}

try {
  await main();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
}
