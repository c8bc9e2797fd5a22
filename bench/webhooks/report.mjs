// The summary of bench/webhooks.mjs: the table of measures against their targets and the detail on stdout,
// and the JSON of BENCH_JSON.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fmt } from './settings.mjs';

export function report(ctx) {
  const { results, concurrency, timeoutMs, subSeq, machine, loadBefore, workerEnv, env, mapCount, subsMax } = ctx;
  const s = results.saturation;
  const b = results.baseline;
  const iso = results.isolation;
  const st = results.stalled;
  const ratio = s && b ? s.perSecond / b.perSecond : NaN;
  const verdict = (ok) => (ok ? 'met' : 'MISSED');
  const rows = [];
  if (s) rows.push([`saturation: ${s.distinct} deliveries (backlog), deliveries/s`, fmt(s.perSecond, 0), '≥ 3,000', verdict(s.perSecond >= 3000)]);
  if (b) rows.push([`baseline (sign + POST loop, ${concurrency} in flight), deliveries/s`, fmt(b.perSecond, 0), '', '']);
  if (s && b) rows.push(['worker / baseline', fmt(ratio, 2), '≥ 0.7', verdict(ratio >= 0.7)]);
  for (const r of results.latency) {
    rows.push([
      `${fmt(r.rate, 0)} deliveries/s offered (${fmt(r.perSecond, 0)} received/s): event→receiver p50 / p99`,
      `${fmt(r.latencyMs.p50, 1)} / ${fmt(r.latencyMs.p99, 1)} ms`,
      '≤ 50 ms p99',
      s && r.rate > s.perSecond ? `${verdict(r.latencyMs.p99 <= 50)} (above saturation)` : verdict(r.latencyMs.p99 <= 50),
    ]);
  }
  if (iso) {
    rows.push([
      `${fmt(iso.rate, 0)}/s with ${iso.hungSubscriptions} of ${subSeq} subscriptions timing out: healthy p50 / p99 (all healthy: p99 ${fmt(iso.healthyP99Ms, 1)} ms)`,
      `${fmt(iso.latencyMs.p50, 1)} / ${fmt(iso.latencyMs.p99, 1)} ms (×${fmt(iso.latencyMs.p99 / iso.healthyP99Ms, 1)})`,
      '≤ 2×',
      iso.healthyP99Ms > 50
        ? `${verdict(iso.latencyMs.p99 <= 2 * iso.healthyP99Ms)} (against an all-healthy p99 that misses its own target)`
        : verdict(iso.latencyMs.p99 <= 2 * iso.healthyP99Ms),
    ]);
  }
  if (st) {
    rows.push([
      `${fmt(st.rate, 0)}/s beside ${st.stalledMaps} map(s) whose ${st.stalledSubscriptions} subscriptions answer 200 and stall: other maps' p50 / p99 (all healthy: p99 ${fmt(st.healthyP99Ms, 1)} ms)`,
      `${fmt(st.latencyMs.p50, 1)} / ${fmt(st.latencyMs.p99, 1)} ms (×${fmt(st.latencyMs.p99 / st.healthyP99Ms, 1)})`,
      '≤ 2×',
      verdict(st.latencyMs.p99 <= 2 * st.healthyP99Ms),
    ]);
  }
  if (results.quiet) {
    const q = results.quiet;
    const worst = q.events.map((e) => e.maxMs).sort((x, y) => x - y);
    rows.push([
      `${q.events.length} single events, each after ${q.seconds} s without writes: event→receiver median / max`,
      `${fmt(worst[worst.length >> 1], 1)} / ${fmt(worst.at(-1), 1)} ms`,
      '≤ 50 ms p99',
      verdict(worst.at(-1) <= 50),
    ]);
  }
  const header = ['measure', 'figure', 'target', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 1 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const cpuLine = (name, r) =>
    `  ${name}: CPU % of one core: worker ${fmt(r.cpu.workerPct, 0)}, receiver ${fmt(r.cpu.receiverPct, 0)}, relay ${fmt(r.cpu.relayPct, 0)}, ` +
    `postgres ${fmt(r.cpu.postgresPct, 0)}, bench ${fmt(r.cpu.benchPct, 0)}, machine busy ${fmt(r.cpu.machineBusyPct, 0)} % of ${machine.cores} cores; ` +
    `CPU ms per delivery: worker ${fmt(r.cpu.workerMsPerDelivery, 3)}, postgres ${fmt(r.cpu.postgresMsPerDelivery, 3)}, receiver ${fmt(r.cpu.receiverMsPerDelivery, 3)}\n` +
    `  ${name}: waiting for a core, % of the time: worker ${fmt(r.cpu.workerWaitPct, 1)}, relay ${fmt(r.cpu.relayWaitPct, 1)}, ` +
    `receiver ${fmt(r.cpu.receiverWaitPct, 1)}, postgres ${fmt(r.cpu.postgresWaitPct, 1)} (main threads; postgres: its backends summed)`;
  const out = [
    '',
    `machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, ${machine.os}; node ${machine.node}; PostgreSQL ${machine.postgres}`,
    `load average before/after: ${loadBefore.join(' ')} / ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (other processes share the cores)`,
    `one worker process (WEBHOOK_CONCURRENCY ${concurrency}, WEBHOOK_TIMEOUT_MS ${timeoutMs}${
      Object.keys(workerEnv).length > 2
        ? `, ${Object.entries(workerEnv)
            .slice(2)
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')}`
        : ''
    }${env.DATABASE_PREPARED_STATEMENTS ? `, DATABASE_PREPARED_STATEMENTS=${env.DATABASE_PREPARED_STATEMENTS}` : ''}); ` +
      `${mapCount} maps, ${subSeq} subscriptions (1–${subsMax} per map), one receiver process; latency = envelope ts → whole request at the receiver`,
    '',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    'detail:',
    ...(s
      ? [
          `  saturation: planning (events → deliveries) spanned ${fmt(s.plannedSeconds, 2)} s; first delivery ${fmt(s.workerStartToFirstMs, 0)} ms after the worker process was spawned (delivering from ${fmt(s.workerBootMs, 0)} ms); ` +
            `${s.connections} connections opened; ${s.duplicates} duplicates; signatures sampled ${s.verified.checked}, all verified: ${s.verified.failed === 0}`,
          cpuLine('saturation', s),
          ...(s.sequence ? [`  saturation: ${seqLine(s.sequence)}`] : []),
          `  saturation: received per second from the first: ${s.perSecondTimeline.join(' ')}; after the first third ${fmt(s.steadyPerSecond, 0)}/s`,
          // What this machine allows at these costs: a figure below the target with a ceiling below it too
          // says the machine, not the worker, set the limit.
          `  saturation: ceilings at these costs: the worker's one thread ${fmt(1000 / s.cpu.workerMsPerDelivery, 0)}/s; ` +
            `all ${machine.cores} cores for worker, postgres and receiver ${fmt((machine.cores * 1000) / (s.cpu.workerMsPerDelivery + s.cpu.postgresMsPerDelivery + s.cpu.receiverMsPerDelivery), 0)}/s`,
        ]
      : []),
    ...(b
      ? [
          `  baseline: ${fmt(b.loop.perSecond, 0)}/s on its own clock; ${b.connections} connections opened; CPU % of one core: loop ${fmt((b.loop.cpuSeconds / b.loop.seconds) * 100, 0)}, ` +
            `receiver ${fmt(b.cpu.receiverPct, 0)}, machine busy ${fmt(b.cpu.machineBusyPct, 0)} %; CPU ms per delivery: loop ${fmt((b.loop.cpuSeconds * 1000) / b.loop.sent, 3)}`,
          `  baseline: received per second from the first: ${b.perSecondTimeline.join(' ')}; after the first third ${fmt(b.steadyPerSecond, 0)}/s`,
        ]
      : []),
    ...results.latency.map(
      (r) =>
        `  rate ${r.rate}: written at ${fmt(r.offeredPerSecond, 0)} deliveries/s over ${fmt(r.writeSeconds, 1)} s; p90 ${fmt(r.latencyMs.p90, 1)} max ${fmt(r.latencyMs.max, 1)} ms; ` +
        `event→planned p50 ${fmt(r.planned[0], 1)} p99 ${fmt(r.planned[1], 1)} ms (event→id ${fmt(r.eventToId[0], 1)} / ${fmt(r.eventToId[1], 1)}, ` +
        `id→planned ${fmt(r.idToPlanned[0], 1)} / ${fmt(r.idToPlanned[1], 1)}; write transactions ${fmt(r.writeTx[0], 1)} / ${fmt(r.writeTx[1], 1)}); ` +
        `${r.connections} connections opened; signatures sampled ${r.verified.checked}, failed ${r.verified.failed}\n` +
        (r.sequence ? `  rate ${r.rate}: ${seqLine(r.sequence)}\n` : '') +
        `  rate ${r.rate}: worker event-loop delay p50 ${fmt(r.loopDelay.p50, 1)} p99 ${fmt(r.loopDelay.p99, 1)} max ${fmt(r.loopDelay.max, 1)} ms\n${cpuLine(`rate ${r.rate}`, r)}`,
    ),
    ...(iso
      ? [
          `  isolation: ${iso.hangRequests} requests reached hanging paths; ${iso.connections} connections opened; healthy p90 ${fmt(iso.latencyMs.p90, 1)} max ${fmt(iso.latencyMs.max, 1)} ms; ` +
            `event→planned p50 ${fmt(iso.planned[0], 1)} p99 ${fmt(iso.planned[1], 1)} ms`,
          cpuLine('isolation', iso),
        ]
      : []),
    ...(st
      ? [
          `  stalled: ${st.stallRequests} requests reached stalling paths; healthy p90 ${fmt(st.latencyMs.p90, 1)} max ${fmt(st.latencyMs.max, 1)} ms; ` +
            `event→planned p50 ${fmt(st.planned[0], 1)} p99 ${fmt(st.planned[1], 1)} ms`,
          cpuLine('stalled', st),
        ]
      : []),
    ...(results.quiet
      ? [
          `  quiet: per event (deliveries, event→receiver max, write transaction, event→id, id→planned): ${results.quiet.events
            .map((e) => `${e.deliveries}, ${fmt(e.maxMs, 1)}, ${fmt(e.writeTxMs, 1)}, ${fmt(e.eventToIdMs, 1)}, ${fmt(e.idToPlannedMs, 1)} ms`)
            .join('; ')}`,
        ]
      : []),
    '',
  ];
  console.log(out.join('\n'));
  if (process.env.BENCH_JSON) {
    writeFileSync(
      process.env.BENCH_JSON,
      JSON.stringify(
        { date: new Date().toISOString(), machine, loadBefore, loadAfter: os.loadavg(), mapCount, subscriptions: subSeq, workerEnv, results },
        null,
        2,
      ),
    );
  }
}

/** The receiver's check of `webhook-sequence`: every subscription numbered 1, 2, 3… without a number given twice. */
function seqLine(q) {
  return `webhook-sequence over ${q.subscriptions} subscriptions: ${q.missing} numbers missing inside the ranges received, ${q.conflicts} given to two events, ${q.without} deliveries without one`;
}
