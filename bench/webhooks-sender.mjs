#!/usr/bin/env node
// CPU per request of the webhook sender (src/webhooks/sender.ts: URL check, signing, axios POST, body
// drained) against a bare node:http request with the same signing and headers, each in this process,
// 128 requests in flight, to a node:http receiver in a child process on loopback (its CPU not counted).
//
//   node bench/webhooks-sender.mjs            (after `make build`)
//   BENCH_REQUESTS=20000 BENCH_ROUNDS=3 node bench/webhooks-sender.mjs
//   BENCH_ALLOC=1 node bench/webhooks-sender.mjs   (also KB allocated per request, from V8's
//     sampling heap profiler with collected objects counted; the profiler's cost shows in the CPU figures)
//
// Prints, per round, requests/s and CPU µs per request of each, alternating product and bare.
import http from 'node:http';
import inspector from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { startOkReceiver } from './support.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const dist = path.resolve(process.env.BENCH_DIST ?? path.join(ROOT, 'dist'));
const requests = Number(process.env.BENCH_REQUESTS ?? 20_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const { WebhookSender } = await import(pathToFileURL(path.join(dist, 'webhooks/sender.js')).href);
const { signingHeaders } = await import(pathToFileURL(path.join(dist, 'webhooks/signer.js')).href);

const receiver = await startOkReceiver(5_000);
const port = receiver.port;
const now = new Date().toISOString();
const body = JSON.stringify({
  id: '01JABCDEFGHJKMNPQRSTVWXYZ0',
  type: 'map_kill',
  map_id: '6f1f0c6e-6a7f-4a37-9d2e-0f0e0b8c7a11',
  ts: now,
  payload: { killmail_id: 123456789, solar_system_id: 31000005, kill_time: now, ship_type_id: 587, victim: { character_id: 90000001 } },
});
const bodyBytes = Buffer.from(body);
const headers = (k, signed) => ({
  'content-type': 'application/json',
  'user-agent': 'bench',
  ...signingHeaders(`secret-${k % 300}`, signed),
  'x-service-event-id': `ev${k}`,
  'x-service-event-type': 'map_kill',
  'x-service-delivery-attempt': '1',
});

const sender = new WebhookSender({ timeoutMs: 2_000, allowInsecure: true, maxSockets: 128 });
const product = async (k) =>
  (
    await sender.send({
      url: `http://127.0.0.1:${port}/s/${k % 300}`,
      secret: `secret-${k % 300}`,
      body,
      eventId: `ev${k}`,
      eventType: 'map_kill',
      attempt: 1,
    })
  ).ok;

const agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 60_000, maxSockets: 128, maxFreeSockets: 128, timeout: 60_000 });
const bare = (k) =>
  new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: `/s/${k % 300}`, method: 'POST', agent, headers: { ...headers(k, bodyBytes), 'content-length': bodyBytes.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
      },
    );
    req.on('error', () => resolve(false));
    req.end(bodyBytes);
  });

async function run(send, n) {
  let next = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: 128 }, async () => {
      while (next < n) if (!(await send(next++))) failed++;
    }),
  );
  if (failed) throw new Error(`${failed} of ${n} requests failed`);
}
const session = process.env.BENCH_ALLOC === '1' ? new inspector.Session() : undefined;
session?.connect();
/** Bytes allocated while `fn` runs (sampled every 32 KB, objects collected since included). */
async function allocated(fn) {
  if (!session) return fn().then(() => undefined);
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 32_768,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await fn();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  const total = (node) => node.selfSize + node.children.reduce((sum, c) => sum + total(c), 0);
  return total(profile.head);
}
async function measure(name, send) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const bytes = await allocated(() => run(send, requests));
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  const alloc = bytes === undefined ? '' : `, ${(bytes / requests / 1024).toFixed(1)} KB allocated per request`;
  return `${name} ${Math.round(requests / seconds)} req/s, ${((used.user + used.system) / requests).toFixed(1)} µs CPU per request${alloc}`;
}

await run(product, 5_000);
await run(bare, 5_000);
console.log(`sender microbenchmark: ${requests} requests a round, 128 in flight, receiver pid ${receiver.pid} on 127.0.0.1:${port}; node ${process.version}`);
for (let r = 1; r <= rounds; r++) console.log(`round ${r}: ${await measure('product sender (axios)', product)} | ${await measure('bare node:http', bare)}`);
sender.close();
agent.destroy();
receiver.kill();
