// Loaded into a process under test (`node --import ./scripts/bench-stalls.mjs …`, e.g.
// `BENCH_WORKER_ARGS="--import $PWD/scripts/bench-stalls.mjs" BENCH_ECHO_STDOUT=1 node scripts/bench-webhooks.mjs`):
// prints to stdout, with wall-clock times, every event-loop stall above BENCH_STALL_MS (default 15; a
// 5 ms interval timer that ran that much late) and every garbage collection of 4 ms or more (`gc`
// performance entries: minor, major, incremental marking, weak callbacks), so that the slow moments of
// a run can be put next to its collections.
import { PerformanceObserver, constants } from 'node:perf_hooks';

const origin = performance.timeOrigin;
const threshold = Number(process.env.BENCH_STALL_MS || 15);
const kinds = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak-callbacks',
};
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.duration >= 4)
      process.stdout.write(`GC ${new Date(origin + e.startTime).toISOString()} ${kinds[e.detail?.kind] ?? e.detail?.kind} ${e.duration.toFixed(1)} ms\n`);
  }
}).observe({ entryTypes: ['gc'] });
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  const late = now - last - 5;
  if (late > threshold) process.stdout.write(`STALL ${new Date(origin + last + 5).toISOString()} ${late.toFixed(1)} ms\n`);
  last = now;
}, 5).unref();
