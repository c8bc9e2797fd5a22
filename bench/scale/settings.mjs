// The BENCH_* settings of bench/scale.mjs (documented in its header), read once, and the helpers its
// parts share.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const int = (name, def) => {
  const v = Number(process.env[name] || def);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a number ≥ 0`);
  return v;
};
export const MAPS = int('BENCH_MAPS', 400);
export const CLIENTS_PER_MAP = int('BENCH_CLIENTS_PER_MAP', 10);
export const RATE = int('BENCH_RATE', 4000);
/** Events/s per stream process of a run (n processes: n times this), instead of BENCH_RATE for every run. */
export const RATE_PER_PROCESS = int('BENCH_RATE_PER_PROCESS', 0);
/** Cores each stream process may use (a CFS quota, as a pod's CPU limit); 0: no limit. */
export const PROCESS_CPU = int('BENCH_PROCESS_CPU', 0);
/** The offered rate of a run of `n` processes. */
export const rateOf = (n) => (RATE_PER_PROCESS > 0 ? n * RATE_PER_PROCESS : RATE);
export const PROCESSES = (process.env.BENCH_PROCESSES || '1,2,4')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
export const OTHER_RATE = int('BENCH_OTHER_RATE', 8000);
export const OTHER_MAPS = int('BENCH_OTHER_MAPS', 1000);
export const SECONDS = int('BENCH_SECONDS', 15);
/** Seconds between the isolated process's connections opening and its measured window. */
export const SETTLE_SECONDS = int('BENCH_SETTLE_SECONDS', 5);
export const MAX_SECONDS = int('BENCH_MAX_SECONDS', 900);
/** Partition streams of the product's transport (EVENTS_PARTITIONS of every process). */
export const PARTITIONS = 16;
export const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/mapintel_bench_scale';
export const DIST = path.resolve(ROOT, process.env.BENCH_DIST || 'dist');
export const dist = (p) => import(pathToFileURL(path.join(DIST, p)).href);
export const log = (m) => process.stderr.write(`[bench-scale] ${m}\n`);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const envelope = (nextId, mapId) => ({ id: nextId(), type: 'map_kill', map_id: mapId, ts: new Date().toISOString(), payload: { sent_at: Date.now() } });
