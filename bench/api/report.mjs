// The summary of bench/api.mjs: the table and the lines after it on stdout, the JSON of BENCH_JSON, the exit code.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { CONNECTIONS, fmt, KILLS, log, SYSTEMS } from './common.mjs';

/** `ctx`: { machine, loadBefore, duration, warmup, connections, checks, results, revalidated, pacedRows, mixed, memory, heaps }. */
export function report(ctx) {
  const { machine, loadBefore, duration, warmup, connections, checks, results, revalidated, pacedRows, mixed, memory, heaps } = ctx;
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
}
