// The summary of bench/events.mjs: the table and the lines after it on stdout, and the JSON of BENCH_JSON.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmt, log, ROOT } from './measure.mjs';

/** `ctx` with the run's `backlog`, `results`, `batched` and `relayHistogram`. */
export function report(ctx) {
  const { machine, loadBefore, relayMode, DIST, relayEnv, notify, writers, mapCount, batchSize, rate, rateSeconds, N, maxSeconds, reader } = ctx;
  const { backlog, results, batched, relayHistogram } = ctx;
  const [aP, , bP] = results;
  const header = ['scenario', 'events', 'events/s', 'p50 ms', 'p99 ms', 'max ms', 'vs baseline'];
  const lines = results.map((r, i) => {
    const base = i === 4 ? results[1] : i % 2 === 0 ? results[i + 1] : undefined;
    const vs =
      i === 0 || i === 4
        ? `${fmt((r.eventsPerSec / base.eventsPerSec) * 100, 0)} % of events/s`
        : i === 2
          ? `p99 ×${fmt(r.latency.p99 / base.latency.p99, 1)}`
          : '';
    return [r.scenario, String(r.events), fmt(r.eventsPerSec, 0), fmt(r.latency.p50, 2), fmt(r.latency.p99, 2), fmt(r.latency.max, 2), vs];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (cells) => `| ${cells.map((c, i) => (i === 0 || i === 6 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const throughputOk = aP.eventsPerSec >= 2000;
  const latencyOk = bP.latency.p99 <= 20;
  const out = [
    '',
    `machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, ${machine.os}; node ${machine.node}; PostgreSQL ${machine.postgres}`,
    `load average before/after: ${loadBefore} / ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (other processes share the cores)`,
    `relay: ${relayMode === 'child' ? `separate process (node ${path.relative(ROOT, DIST) || DIST}/cli.js serve)` : 'in the bench process'}, batch ${relayEnv.EVENTS_RELAY_BATCH ?? 'default'}; ` +
      `${notify ? '' : 'NOTIFY trigger disabled (diagnostic), '}poll ${relayEnv.EVENTS_RELAY_POLL_MS ?? 'default'} ms; ` +
      `${writers} writers, ${mapCount} maps; latency = commit returned → entry read from Redis (XREAD BLOCK, last id kept)`,
    '',
    row(header),
    row(widths.map((w) => '-'.repeat(w))),
    ...lines.map(row),
    '',
    `targets: ≥ 2000 events/s end to end: ${throughputOk ? 'PASS' : 'MISS'} (one change per transaction ${fmt(aP.eventsPerSec, 0)}; ` +
      `batches of ${batchSize}: ${batched.eventsPerSec >= 2000 ? 'PASS' : 'MISS'} ${fmt(batched.eventsPerSec, 0)}); ` +
      `p99 commit→XADD ≤ 20 ms at ${rate}/s: ${latencyOk ? 'PASS' : 'MISS'} (${fmt(bP.latency.p99, 2)} ms)`,
    '',
    `where the time goes: the product write path alone (relay not running) committed ${backlog.events} kills at ${fmt(backlog.writeRate, 0)}/s ` +
      `(CPU ms/event: bench ${fmt(backlog.cpu.benchMsPerEvent, 2)}, postgres ${fmt(backlog.cpu.pgMsPerEvent, 2)}); ` +
      `the relay then published that backlog at ${fmt(backlog.drainRate, 0)} events/s (first to last XADD, ${fmt(backlog.drainSeconds, 2)} s)`,
    '',
    'detail:',
    ...results.map(
      (r) =>
        `  ${r.scenario}: write rate ${fmt(r.writeRate, 0)}/s; last XADD ${fmt(r.lastXaddAfterLastCommitMs, 0)} ms after the last commit; ` +
        `XADD clock (stream id ms − commit, 1 ms resolution) p50 ${fmt(r.latencyXaddClock.p50, 0)} p99 ${fmt(r.latencyXaddClock.p99, 0)} max ${fmt(r.latencyXaddClock.max, 0)} ms; ` +
        `CPU (% of one core) bench ${fmt(r.cpu.benchPct, 0)}, relay ${fmt(r.cpu.relayPct, 0)}, postgres ${fmt(r.cpu.pgPct, 0)}, machine busy ${fmt(r.cpu.machineBusyPct, 0)} % of ${machine.cores} cores; ` +
        `CPU ms/event bench ${fmt(r.cpu.benchMsPerEvent, 2)}, relay ${fmt(r.cpu.relayMsPerEvent, 2)}, postgres ${fmt(r.cpu.pgMsPerEvent, 2)}; ` +
        `bench event-loop delay p99 ${fmt(r.loopDelayP99Ms, 1)} ms` +
        (r.scenario.includes('product') ? `; relay rounds ${r.relayRounds} (${fmt(r.eventsPerRound, 1)} events per round)` : ''),
    ),
    `  relay histogram over B product (insert → publish, bucket bounds): ${relayHistogram.count} events, mean ${fmt(relayHistogram.meanMs, 2)} ms, ` +
      `p50 ≤ ${fmt(relayHistogram.p50LeMs, 1)} ms, p99 ≤ ${fmt(relayHistogram.p99LeMs, 1)} ms`,
    '',
  ];
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
          relayMode,
          relayEnv,
          notify,
          writers,
          mapCount,
          rate,
          rateSeconds,
          backlog,
          results,
          relayHistogram,
        },
        null,
        2,
      ),
    );
  }
  if (aP.events < N) log(`scenario A product stopped at the ${maxSeconds} s cap after ${aP.events} events`);
  if (reader.entries === 0) throw new Error('the reader saw no stream entries');
}
