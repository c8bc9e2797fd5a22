#!/usr/bin/env node
// Load generator of bench-stream, in a process of its own: opens SSE connections and measures what
// arrives. Reads one JSON job from stdin:
//   { targets: [{ url, token }], connections, holdMs, settleMs? }
// (settleMs: after the last connection opened, how long to wait before measuring; a `measuring` line then)
// and prints one JSON line of results (an event is a frame carrying `sent_at`: the product's and
// baseline (a)'s `id:` + `data:` frames, Centrifugo's `data: {"channel":…,"pub":{"data":…}}`): opened, failed, frames, latency percentiles (from the
// `sent_at` milliseconds inside each event payload, and the p99 of each second of the window), and
// connections opened per second.
import http from 'node:http';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const job = JSON.parse(input);
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const latencies = [];
/** Per second since the last connection opened (by arrival): the latencies, for the p99 of each second. */
let perSecond = [];
let measuring = 0;
let frames = 0;
let opened = 0;
let failed = 0;
const sockets = [];

function open(target) {
  return new Promise((resolve) => {
    const u = new URL(target.url);
    const req = http.get(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, agent, headers: target.token ? { authorization: `Bearer ${target.token}` } : {} },
      (res) => {
        if (res.statusCode !== 200) {
          failed++;
          res.resume();
          resolve();
          return;
        }
        opened++;
        sockets.push(res);
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          buf += chunk;
          let cut;
          while ((cut = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            const i = frame.indexOf('"sent_at":');
            if (i >= 0) {
              frames++;
              const now = Date.now();
              const latency = now - Number(frame.slice(i + 10, frame.indexOf('}', i)));
              latencies.push(latency);
              if (measuring) (perSecond[Math.floor((now - measuring) / 1000)] ??= []).push(latency);
            }
          }
        });
        resolve();
      },
    );
    req.on('error', () => {
      failed++;
      resolve();
    });
  });
}

const started = performance.now();
for (let i = 0; i < job.connections; i += 200) {
  const batch = [];
  for (let k = i; k < Math.min(i + 200, job.connections); k++) batch.push(open(job.targets[k % job.targets.length]));
  await Promise.all(batch);
}
const openSeconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ phase: 'open', opened, failed, openPerSecond: Math.round(opened / openSeconds) })}\n`);
// The p99 of each second counts from here (the settling time included); the rest is measured only
// from what arrives after every connection is open and the settling time after that.
perSecond = [];
measuring = Date.now();
if (job.settleMs) {
  await new Promise((r) => setTimeout(r, job.settleMs));
  process.stdout.write(`${JSON.stringify({ phase: 'measuring' })}\n`);
}
latencies.length = 0;
frames = 0;
await new Promise((r) => setTimeout(r, job.holdMs));
const sorted = latencies.sort((a, b) => a - b);
const pctOf = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : null);
const pct = (p) => pctOf(sorted, p);
// Where in the window the tail falls: the p99 of each second.
const p99BySecond = Array.from(perSecond, (l) =>
  pctOf(
    (l ?? []).sort((a, b) => a - b),
    99,
  ),
);
process.stdout.write(
  `${JSON.stringify({ phase: 'done', opened, failed, frames, perSecond: Math.round(frames / (job.holdMs / 1000)), p50: pct(50), p99: pct(99), max: sorted.at(-1) ?? null, p99BySecond })}\n`,
);
for (const s of sockets) s.destroy();
process.exit(0);
