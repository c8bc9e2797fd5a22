// The BENCH_* settings of bench/webhooks.mjs (documented in its header), and small helpers its parts share.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { intEnv } from '../support.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const log = (msg) => process.stderr.write(`[bench-webhooks] ${msg}\n`);
export const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '-');

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** The ms timestamp of a ULID (its first ten characters). */
export function ulidMs(id) {
  let ms = 0;
  for (const c of id.slice(0, 10)) ms = ms * 32 + CROCKFORD.indexOf(c);
  return ms;
}

function listEnv(name, def) {
  const text = process.env[name];
  if (!text) return def;
  const values = text.split(',').map((s) => Number(s.trim()));
  if (values.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`${name} must be a comma list of positive integers (got "${text}")`);
  return values;
}

/** Every BENCH_* setting, checked; `rates` and `isolationRate` may change once saturation is known. */
export function readSettings() {
  const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/mapintel_bench_webhooks';
  const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
  const mapCount = intEnv('BENCH_MAPS', 100);
  const subsMax = intEnv('BENCH_SUBS_MAX', 5);
  if (subsMax > 5) throw new Error('BENCH_SUBS_MAX is at most 5 (a map has at most 5 subscriptions)');
  const backlog = intEnv('BENCH_BACKLOG', 30_000);
  const batch = intEnv('BENCH_BATCH', 20);
  const rates = listEnv('BENCH_RATES', [1000, 2000, 3000]);
  const rateSeconds = intEnv('BENCH_RATE_SECONDS', 10);
  const quietEvents = intEnv('BENCH_QUIET_EVENTS', 5);
  const quietSeconds = intEnv('BENCH_QUIET_SECONDS', 40);
  const isolationRate = intEnv('BENCH_ISOLATION_RATE', 0, 0);
  const hangPercent = intEnv('BENCH_HANG_PERCENT', 10);
  const stallMaps = intEnv('BENCH_STALL_MAPS', 1);
  const txPerSecond = intEnv('BENCH_TX_PER_SECOND', 50);
  const writers = intEnv('BENCH_WRITERS', 8);
  const concurrency = intEnv('BENCH_CONCURRENCY', 128);
  const timeoutMs = intEnv('BENCH_TIMEOUT_MS', 2000, 100);
  const verifyEvery = intEnv('BENCH_VERIFY_EVERY', 20);
  const drainSeconds = intEnv('BENCH_DRAIN_SECONDS', 600);
  const stallSeconds = intEnv('BENCH_STALL_SECONDS', 30);
  const phases = new Set((process.env.BENCH_PHASES || 'saturation,baseline,latency,isolation,stalled').split(',').map((s) => s.trim()));
  for (const p of phases)
    if (!['saturation', 'baseline', 'latency', 'isolation', 'stalled', 'quiet'].includes(p)) throw new Error(`BENCH_PHASES: unknown phase "${p}"`);
  if (phases.has('baseline') && !phases.has('saturation')) throw new Error('BENCH_PHASES: baseline sends the bodies of the saturation phase; add saturation');
  const DIST = path.resolve(ROOT, process.env.BENCH_DIST || 'dist');
  return {
    databaseUrl,
    redisUrl,
    mapCount,
    subsMax,
    backlog,
    batch,
    rates,
    rateSeconds,
    quietEvents,
    quietSeconds,
    isolationRate,
    hangPercent,
    stallMaps,
    txPerSecond,
    writers,
    concurrency,
    timeoutMs,
    verifyEvery,
    drainSeconds,
    stallSeconds,
    phases,
    DIST,
  };
}
