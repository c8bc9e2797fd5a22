// The BENCH_* settings of bench/stream.mjs (documented in its header), read once at start, and small
// helpers its parts share.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const int = (name, def) => Number(process.env[name] || def);
export const MAPS = int('BENCH_MAPS', 200);
export const CLIENTS = int('BENCH_CLIENTS', 10_000);
export const IDLE = Number(process.env.BENCH_IDLE ?? 19_900);
export const STREAM_NODE_OPTIONS =
  process.env.BENCH_STREAM_NODE_OPTIONS ??
  (
    /^stream:\n(?: {2}.*\n)*? {2}nodeOptions: (.*)$/m.exec(readFileSync(new URL('../../charts/mapintel/values.yaml', import.meta.url), 'utf8'))?.[1] ?? ''
  ).trim();
export const RATE = int('BENCH_RATE', 400);
export const SATURATION = (process.env.BENCH_SATURATION || '800,1200').split(',').map(Number).filter(Boolean);
export const PEERS = (process.env.BENCH_PEERS || 'product,baseline,centrifugo').split(',');
export const SECONDS = int('BENCH_SECONDS', 10);
export const SETTLE_SECONDS = Number(process.env.BENCH_FANOUT_SETTLE_SECONDS ?? 3);
export const databaseUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/mapintel_bench_stream';
export const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
export const DIST = path.resolve(ROOT, process.env.BENCH_DIST || 'dist');
export const dist = (p) => import(pathToFileURL(path.join(DIST, p)).href);

export const log = (m) => process.stderr.write(`[bench-stream ${new Date().toISOString().slice(11, 23)}] ${m}\n`);
/** CPU time (user + system) of a process so far, in ms (clock ticks of 10 ms). */
export const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
export const rssKiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** HS256 JWT (Centrifugo's connection token). */
export const jwt = (claims, secret) => {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
};
export const envelope = (nextId, mapId) => ({ id: nextId(), type: 'map_kill', map_id: mapId, ts: new Date().toISOString(), payload: { sent_at: Date.now() } });
