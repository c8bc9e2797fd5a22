// The commit phase of bench/stream.mjs: writes through the API (`serve --roles api`: its relay publishes
// them), each timed from its commit to the first byte of its frame at an SSE client of the product's
// stream process (issue target: p99 at most 10 ms at 500 writes/s). One kill per POST /api/maps/{map_id}/kills at BENCH_COMMIT_RATE writes/s over the maps,
// one SSE client per map reading `events=map_kill`. A write's commit lies between the request sent and
// its answer; the event's `ts` is its map_events row's insert time (clock_timestamp(), inside the same
// transaction), so `frame − ts` is the commit-to-byte time plus the rest of that transaction (an upper
// bound), and
// `frame − answer` a lower bound (the answer leaves after the commit). The event id's time (a ULID's
// milliseconds: when the relay gave the event its id) splits it in two stages: insert → id (the rest of
// the transaction, NOTIFY, the relay's wake-up and read) and id → first byte (the relay's update and
// publish, the stream process's tail and hub, the socket).
import http from 'node:http';
import { decodeTime } from 'ulid';
import path from 'node:path';
import { distribution, freePort, killInput, startChild, toKillInput, waitReady } from '../support.mjs';
import { DIST, log, redisUrl, ROOT, SECONDS, sleep } from './settings.mjs';

export const COMMIT_RATE = Number(process.env.BENCH_COMMIT_RATE ?? 500);
/** Maps the writes spread over (one SSE client each). */
export const COMMIT_MAPS = 50;
/** Seconds of writes at the same rate before the measured ones (not counted): the processes' JIT and pools warm up. */
export const COMMIT_WARMUP_SECONDS = Number(process.env.BENCH_COMMIT_WARMUP_SECONDS ?? 2);

const now = () => performance.timeOrigin + performance.now();

/** An SSE client that records, per killmail id, when its frame's first byte arrived and the event's ts. */
function sseClient(url, token, seen) {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}?events=map_kill`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      let buf = '';
      let firstByte = null;
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        const t = now();
        buf += chunk;
        firstByte ??= t;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = frame
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trimStart())
            .join('\n');
          if (data) {
            try {
              const e = JSON.parse(data);
              const id = e.payload?.killmail_id;
              if (e.type === 'map_kill' && id !== undefined && !seen.has(id))
                seen.set(id, { frame: firstByte, ts: Date.parse(e.ts), assigned: decodeTime(e.id) });
            } catch {
              // not an event frame
            }
          }
          firstByte = buf.length ? t : null;
        }
      });
      resolve(() => req.destroy());
    });
    req.on('error', reject);
  });
}

/** POSTs one kill; resolves with the times it was sent and answered. */
function postKill(agent, base, map, kill) {
  const body = JSON.stringify(toKillInput(kill));
  return new Promise((resolve, reject) => {
    const sent = now();
    const req = http.request(
      `${base}/api/maps/${map.id}/kills`,
      { method: 'POST', agent, headers: { authorization: `Bearer ${map.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          res.statusCode === 200 ? resolve({ sent, answered: now() }) : reject(new Error(`POST kills answered ${res.statusCode}: ${text.slice(0, 300)}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs the phase against the product's stream process; results under `commit_<rate>`. */
export async function commitRun(ctx) {
  if (!(COMMIT_RATE > 0) || !ctx.peers.has('product')) return;
  const { env, prefix, maps, results, closers } = ctx;
  const port = await freePort();
  const api = startChild(
    'api',
    [path.join(DIST, 'cli.js'), 'serve', '--roles', 'api'],
    {
      PATH: process.env.PATH ?? '',
      ...env,
      NODE_ENV: 'production',
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
      SERVICE_RATE_LIMIT_PER_MINUTE: '1000000',
      PORT: String(port),
      HOST: '127.0.0.1',
      OPS_PORT: '0',
    },
    { cwd: ROOT, port },
  );
  closers.push(() => api.stop());
  await waitReady(api, `${api.url}/api/maps/${maps[0].id}/kills`, 60_000, (r) => r.status === 401 || r.status === 405);
  // Maps of their own (seeded after the fan-out's): the fan-out runs publish synthetic events straight
  // into their maps' Redis streams, ids the event log never had, which a connection would start after.
  const targets = ctx.commitMaps ?? maps.slice(0, COMMIT_MAPS);
  const stream = ctx.peers.get('product').srv.url;
  const seen = new Map();
  const closeClients = await Promise.all(targets.map((m) => sseClient(`${stream}/api/maps/${m.id}/events/stream`, m.key, seen)));
  await sleep(1000);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const writes = new Map();
  const failures = [];
  const pending = [];
  let next = 900_000_000;
  const warmup = Math.round(COMMIT_RATE * COMMIT_WARMUP_SECONDS);
  const total = warmup + COMMIT_RATE * SECONDS;
  const started = now();
  // Paced by the clock, 10 ms ticks: a write that is late is sent at once, never skipped.
  for (let sent = 0; sent < total;) {
    const due = Math.min(total, Math.floor(((now() - started) / 1000) * COMMIT_RATE) + 1);
    for (; sent < due; sent++) {
      const id = next++;
      const measured = sent >= warmup;
      pending.push(
        postKill(agent, api.url, targets[sent % targets.length], killInput(id)).then(
          (t) => measured && writes.set(id, t),
          (e) => failures.push(String(e.message ?? e)),
        ),
      );
    }
    await sleep(10);
  }
  await Promise.all(pending);
  const seconds = (now() - started) / 1000 - COMMIT_WARMUP_SECONDS;
  // Stragglers: the last writes' frames, for up to 5 s.
  for (let waited = 0; waited < 5000 && [...writes.keys()].some((id) => !seen.has(id)); waited += 100) await sleep(100);
  for (const close of closeClients) close();
  agent.destroy();
  const upper = [];
  const lower = [];
  const toId = [];
  const fromId = [];
  let missing = 0;
  for (const [id, w] of writes) {
    const s = seen.get(id);
    if (!s) {
      missing++;
      continue;
    }
    upper.push(s.frame - s.ts);
    lower.push(s.frame - w.answered);
    toId.push(s.assigned - s.ts);
    fromId.push(s.frame - s.assigned);
  }
  const at = distribution(upper);
  const after = distribution(lower);
  const [idStage, byteStage] = [distribution(toId), distribution(fromId)];
  const ms = (x) => (Number.isFinite(x) ? +x.toFixed(1) : null);
  results[`commit_${COMMIT_RATE}`] = {
    writes: writes.size,
    writesPerSecond: Math.round(writes.size / seconds),
    failed: failures.length,
    firstFailure: failures[0],
    framesMissing: missing,
    // Commit → first byte: at most `frame − ts`, at least `frame − answer`.
    p50: ms(at.p50),
    p99: ms(at.p99),
    max: ms(at.max),
    p50AfterAnswer: ms(after.p50),
    p99AfterAnswer: ms(after.p99),
    // The two stages (ms resolution of the id's time): insert → id assigned, id → first byte.
    p50ToId: ms(idStage.p50),
    p99ToId: ms(idStage.p99),
    p50IdToByte: ms(byteStage.p50),
    p99IdToByte: ms(byteStage.p99),
  };
  log(`commit → first byte at ${COMMIT_RATE} writes/s: ${JSON.stringify(results[`commit_${COMMIT_RATE}`])}`);
  await api.stop();
}
