// The phases of bench/webhooks.mjs (saturation, baseline, latency, isolation, stalled, quiet); each takes the run's
// context and puts its figures in `ctx.results`.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { databaseBackends, nowMs, sleep } from '../support.mjs';
import { cpuSince, cpuSnapshot } from './cpu.mjs';
import { fmt, log, ROOT } from './settings.mjs';
import { broke, control, loopDelay, pids, startWorker } from './setup.mjs';
import { collect, expectedKeys, pacedPlan, plan, shares, waitPublished, write } from './workload.mjs';

/** 1. Saturation: a backlog committed while the worker is stopped, then delivered; returns the expected keys. */
export async function saturation(ctx) {
  const { raw, maps, backlog, batch } = ctx;
  // The worker's consumer delivers events committed after its registration: register it, then stop.
  await startWorker(ctx);
  await ctx.worker.stop();
  const sizes = [];
  for (let d = 0, m = ctx.mapCursor; d < backlog; m++) {
    sizes.push(batch);
    d += batch * maps[m % maps.length].subs.length;
  }
  const txs = plan(ctx, sizes);
  const expected = expectedKeys(txs);
  const t0 = nowMs();
  await write(ctx, txs);
  await waitPublished(ctx);
  log(`backlog: ${txs.length * batch} kills making ${expected.length} deliveries committed and published in ${fmt((nowMs() - t0) / 1000, 1)} s`);
  await control(ctx, 'phase', { name: 'saturation' });
  const pgBefore = await databaseBackends(raw);
  const startedAt = nowMs();
  await startWorker(ctx);
  const readyAt = nowMs();
  const cpu = cpuSnapshot(pids(ctx), [...pgBefore]);
  const report = await collect(ctx, 'saturation', expected);
  report.cpu = cpuSince(cpu, pids(ctx), await databaseBackends(raw), expected.length);
  const times = (
    await raw.query(
      `select extract(epoch from min(inserted_at)) * 1000 as first_planned, extract(epoch from max(inserted_at)) * 1000 as last_planned from webhook_deliveries`,
    )
  ).rows[0];
  report.workerStartToFirstMs = report.first - startedAt;
  report.workerBootMs = readyAt - startedAt;
  report.plannedSeconds = (times.last_planned - times.first_planned) / 1000;
  ctx.results.saturation = report;
  log(
    `saturation: ${report.distinct} deliveries at ${fmt(report.perSecond, 0)}/s (first to last received; planned within ${fmt(report.plannedSeconds, 2)} s); ` +
      `CPU worker ${fmt(report.cpu.workerPct, 0)} %, receiver ${fmt(report.cpu.receiverPct, 0)} %, postgres ${fmt(report.cpu.postgresPct, 0)} %, machine ${fmt(report.cpu.machineBusyPct, 0)} %`,
  );
  return expected;
}

/** 2. Baseline: the same bodies, paths and secrets, signed and POSTed by bench/webhooks-baseline.mjs. */
export async function baseline(ctx, expected) {
  const { raw, secrets, concurrency, timeoutMs } = ctx;
  const rows = (
    await raw.query(
      'select d.body, d.event_id, d.event_type, s.url from webhook_deliveries d join webhook_subscriptions s on s.id = d.subscription_id order by d.id',
    )
  ).rows;
  const jobFile = path.join(ctx.tmp, 'baseline-job.json');
  writeFileSync(
    jobFile,
    JSON.stringify({
      dist: ctx.DIST,
      concurrency,
      timeoutMs,
      // The sender's agent (src/webhooks/sender.ts agentFor): one per origin and address, the
      // worker's concurrency as its limit of sockets and of idle ones (src/worker/worker.role.ts).
      maxSockets: concurrency,
      userAgent: ctx.product.USER_AGENT,
      requests: rows.map((r) => ({ url: r.url, secret: secrets[new URL(r.url).pathname], body: r.body, eventId: r.event_id, eventType: r.event_type })),
    }),
  );
  await control(ctx, 'phase', { name: 'baseline' });
  const bcpu = cpuSnapshot(pids(ctx), []);
  const loop = spawn(process.execPath, [path.join(ROOT, 'bench/webhooks-baseline.mjs'), jobFile], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  loop.stdout.on('data', (c) => (out += c));
  const [code] = await new Promise((resolve) => loop.on('exit', (...a) => resolve(a)));
  if (code !== 0) broke(ctx, `baseline loop exited with ${code}`);
  const own = JSON.parse(out.trim() || '{}');
  const b = await collect(ctx, 'baseline', expected);
  b.cpu = cpuSince(bcpu, { receiver: ctx.receiver.child.pid }, [], expected.length);
  b.loop = own;
  if (own.failed) broke(ctx, `baseline: ${own.failed} requests failed`);
  ctx.results.baseline = b;
  log(`baseline: ${b.distinct} deliveries at ${fmt(b.perSecond, 0)}/s (its own clock: ${fmt(own.perSecond, 0)}/s)`);
}

/** A paced run of `rate` deliveries/s for BENCH_RATE_SECONDS (`hung`: subscriptions that never answer). */
export async function pacedRun(ctx, name, rate, hung = new Set()) {
  const { raw, rateSeconds } = ctx;
  const { txs, txRate } = pacedPlan(ctx, rate, rateSeconds);
  const expected = expectedKeys(txs, hung);
  await control(ctx, 'phase', { name });
  const since = Date.now();
  const cpu = cpuSnapshot(pids(ctx), await databaseBackends(raw));
  await loopDelay(ctx.worker); // starts the worker's event-loop delay histogram afresh
  const writeStarted = nowMs();
  await write(ctx, txs, txRate);
  const writeSeconds = (nowMs() - writeStarted) / 1000;
  if (writeSeconds > rateSeconds * 1.1)
    log(`${name}: the writers fell behind (${fmt(writeSeconds, 1)} s for ${rateSeconds} s of writes): the machine is too busy for this rate`);
  const report = await collect(ctx, name, expected);
  report.loopDelay = await loopDelay(ctx.worker);
  report.writeSeconds = writeSeconds;
  report.offeredPerSecond = expected.length / writeSeconds;
  report.cpu = cpuSince(cpu, pids(ctx), await databaseBackends(raw), expected.length);
  report.rate = rate;
  Object.assign(report, await shares(ctx, since));
  const l = report.latencyMs;
  log(
    `${name}: ${report.distinct} deliveries at ${fmt(report.perSecond, 0)}/s, event→receiver p50 ${fmt(l.p50, 1)} p99 ${fmt(l.p99, 1)} max ${fmt(l.max, 1)} ms ` +
      `(event→planned p50 ${fmt(report.planned[0], 1)} p99 ${fmt(report.planned[1], 1)} ms)${report.hangRequests ? `, ${report.hangRequests} requests to hanging paths` : ''}` +
      `${report.stallRequests ? `, ${report.stallRequests} requests to stalling paths` : ''}; ` +
      `CPU worker ${fmt(report.cpu.workerPct, 0)} %, machine ${fmt(report.cpu.machineBusyPct, 0)} %`,
  );
  return report;
}

/**
 * Below saturation: with the default rates, those above 80 % of the measured saturation give way to
 * 25, 50 and 75 % of it (latency above saturation only measures the queue). Sets `ctx.rates` and `ctx.isolationRate`.
 */
export function chooseRates(ctx) {
  const { results } = ctx;
  if (!process.env.BENCH_RATES && results.saturation) {
    const sat = results.saturation.perSecond;
    const below = ctx.rates.filter((r) => r <= 0.8 * sat);
    if (below.length < ctx.rates.length) {
      ctx.rates = below.length ? below : [0.25, 0.5, 0.75].map((f) => Math.max(10, Math.round((f * sat) / 10) * 10));
      log(`saturation is ${fmt(sat, 0)} deliveries/s: paced runs at ${ctx.rates.join(', ')} deliveries/s`);
    }
  }
  ctx.isolationRate ||= ctx.rates[0];
}

/** 3. Latency below saturation, at each rate. */
export async function latency(ctx) {
  for (const rate of ctx.rates) ctx.results.latency.push(await pacedRun(ctx, `rate-${rate}`, rate));
}

/** 4. Isolation: a share of the subscriptions pointed at paths that never answer. */
export async function isolation(ctx) {
  const { results, isolationRate, platform } = ctx;
  let healthy = results.latency.find((r) => r.rate === isolationRate);
  if (!healthy) healthy = await pacedRun(ctx, `rate-${isolationRate}`, isolationRate);
  const every = Math.max(1, Math.round(100 / ctx.hangPercent));
  const hung = new Set();
  for (const map of ctx.maps) {
    for (const s of map.subs) {
      if (s.n % every !== 0) continue;
      await platform.webhooks.update(map.principal, map.id, s.id, { url: `${ctx.receiverUrl}/hang/${s.n}` });
      hung.add(s.n);
    }
  }
  ctx.hung = hung;
  log(`isolation: ${hung.size} of ${ctx.subSeq} subscriptions now point at paths that never answer`);
  const report = await pacedRun(ctx, `isolation-${isolationRate}`, isolationRate, hung);
  report.hungSubscriptions = hung.size;
  report.healthyP99Ms = healthy.latencyMs.p99;
  results.isolation = report;
}

/**
 * 5. Stalled: every subscription of the BENCH_STALL_MAPS maps with the most subscriptions pointed at paths
 * that answer 200 and never end their body (each attempt a "success" that lasts the whole timeout); the
 * other maps' p99 against the all-healthy p99 at the same rate. Subscriptions left hanging by phase 4 stay so.
 */
export async function stalled(ctx) {
  const { results, isolationRate, platform } = ctx;
  let healthy = results.latency.find((r) => r.rate === isolationRate);
  if (!healthy) healthy = await pacedRun(ctx, `rate-${isolationRate}`, isolationRate);
  const most = Math.max(...ctx.maps.map((m) => m.subs.length));
  const chosen = ctx.maps.filter((m) => m.subs.length === most).slice(0, ctx.stallMaps);
  const hung = new Set(ctx.hung ?? []);
  for (const map of chosen) {
    for (const s of map.subs) {
      await platform.webhooks.update(map.principal, map.id, s.id, { url: `${ctx.receiverUrl}/stall/${s.n}` });
      hung.add(s.n);
    }
  }
  log(`stalled: ${chosen.length} maps with ${most} subscriptions each now point at paths that answer 200 and never end the body`);
  const report = await pacedRun(ctx, `stalled-${isolationRate}`, isolationRate, hung);
  report.stalledMaps = chosen.length;
  report.stalledSubscriptions = chosen.length * most;
  report.healthyP99Ms = healthy.latencyMs.p99;
  results.stalled = report;
}

/** 6. Quiet spells: one kill at a time, each after quietSeconds without writes. */
export async function quiet(ctx) {
  const { quietSeconds, quietEvents } = ctx;
  const spells = { seconds: quietSeconds, events: [] };
  for (let i = 1; i <= quietEvents; i++) {
    await sleep(quietSeconds * 1000);
    const name = `quiet-${i}`;
    const txs = plan(ctx, [1]);
    await control(ctx, 'phase', { name });
    const since = Date.now();
    await write(ctx, txs, 1);
    const report = await collect(ctx, name, expectedKeys(txs));
    const { eventToId, idToPlanned } = await shares(ctx, since);
    const txMs = ctx.txMs;
    spells.events.push({
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
  ctx.results.quiet = spells;
}
