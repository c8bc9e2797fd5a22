#!/usr/bin/env node
// Garbage the webhook sender leaves to V8's old generation: paced POSTs (BENCH_RATE/s for BENCH_SECONDS,
// at most 128 in flight, as a worker with the default WEBHOOK_CONCURRENCY) to a node:http receiver in a
// child process on loopback, each client in a process of its own run with `--trace-gc-nvp`. Clients:
//   sender       the product's WebhookSender (dist/webhooks/sender.js)
//   proxy-false  the sender's axios client and agent options with axios's `proxy: false` instead of the
//                agents' empty `proxyEnv` (what the sender did before 2026-11-26)
//   bare         node:http with a keep-alive agent, the baseline of the same run
// Prints, per client: scavenges, MB promoted to the old generation (objects that survived two
// scavenges), scavenge pauses in all, and mark-compacts; and the promoted MB against the bare client's.
//
//   node scripts/bench-webhooks-gc.mjs            (after `make build`)
//   BENCH_RATE=3000 BENCH_SECONDS=8 BENCH_CLIENTS=sender,bare node scripts/bench-webhooks-gc.mjs
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);
const IN_FLIGHT = 128;

if (process.argv[2] === 'client') {
  await client(process.argv[3], Number(process.argv[4]), Number(process.argv[5]), Number(process.argv[6]));
} else {
  const rate = Number(process.env.BENCH_RATE ?? 2000);
  const seconds = Number(process.env.BENCH_SECONDS ?? 8);
  const clients = (process.env.BENCH_CLIENTS ?? 'sender,proxy-false,bare').split(',').map((c) => c.trim());
  // Imported here only: the client processes (this script too) load nothing they do not measure.
  const { startOkReceiver } = await import('./bench-support.mjs');
  const receiver = await startOkReceiver(65_000);
  const port = receiver.port;
  const results = [];
  try {
    for (const name of clients) results.push(await run(name, port, rate, seconds));
  } finally {
    receiver.kill();
  }
  const bare = results.find((r) => r.name === 'bare');
  console.log(`\n${rate} POSTs/s for ${seconds} s, at most ${IN_FLIGHT} in flight; node ${process.version}\n`);
  console.log('| client      | requests | scavenges | promoted, MB | scavenge pauses, ms | mark-compacts | promoted / bare |');
  console.log('| ----------- | -------- | --------- | ------------ | ------------------- | ------------- | --------------- |');
  for (const r of results) {
    const ratio = bare && r !== bare ? `×${(r.promotedMB / bare.promotedMB).toFixed(1)}` : '';
    console.log(
      `| ${r.name.padEnd(11)} | ${String(r.requests).padStart(8)} | ${String(r.scavenges).padStart(9)} | ${r.promotedMB.toFixed(1).padStart(12)} | ` +
        `${r.pauseMs.toFixed(0).padStart(19)} | ${String(r.markCompacts).padStart(13)} | ${ratio.padStart(15)} |`,
    );
  }
}

/** Runs one client in a process of its own under --trace-gc-nvp and sums its collections. */
async function run(name, port, rate, seconds) {
  const child = spawn(process.execPath, ['--trace-gc-nvp', SELF, 'client', name, String(port), String(rate), String(seconds)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`client ${name} exited with ${code}`);
  const r = { name, requests: 0, scavenges: 0, promotedMB: 0, pauseMs: 0, markCompacts: 0 };
  for (const line of out.split('\n')) {
    if (line.startsWith('REQUESTS ')) r.requests = Number(line.slice(9));
    const field = (k) => Number(new RegExp(`\\b${k}=([0-9.]+)`).exec(line)?.[1] ?? 0);
    if (/\bgc=s\b/.test(line)) {
      r.scavenges++;
      r.promotedMB += field('promoted') / 1e6;
      r.pauseMs += field('pause');
    } else if (/\bgc=(mc|ms)\b/.test(line)) r.markCompacts++;
  }
  return r;
}

/** One client: paced POSTs, at most IN_FLIGHT at once; prints how many it sent. */
async function client(name, port, rate, seconds) {
  const dist = path.resolve(process.env.BENCH_DIST ?? path.join(ROOT, 'dist'));
  const url = `http://127.0.0.1:${port}/s/1`;
  const body = JSON.stringify({
    id: '01KB0000000000000000000000',
    type: 'map_kill',
    map_id: '00000000-0000-4000-8000-000000000000',
    ts: new Date().toISOString(),
    payload: { killmail_id: 1, pad: 'x'.repeat(300) },
  });
  let send;
  if (name === 'sender') {
    const { WebhookSender } = await import(pathToFileURL(path.join(dist, 'webhooks/sender.js')).href);
    const sender = new WebhookSender({ timeoutMs: 10_000, allowInsecure: true, maxSockets: IN_FLIGHT });
    send = () => sender.send({ url, secret: 'c2VjcmV0', body, eventId: '01KB0000000000000000000000', eventType: 'map_kill', attempt: 1 });
  } else if (name === 'proxy-false') {
    const { Axios } = await import('axios');
    const { senderClientOptions, senderAgentOptions } = await import(pathToFileURL(path.join(dist, 'webhooks/sender.js')).href);
    const agentOptions = senderAgentOptions(IN_FLIGHT);
    delete agentOptions.proxyEnv;
    const agent = new http.Agent(agentOptions);
    const axios = new Axios({ ...senderClientOptions(10_000), proxy: false });
    send = async () => {
      const res = await axios.request({ method: 'post', url, data: Buffer.from(body), httpAgent: agent, headers: { 'content-type': 'application/json' } });
      for await (const chunk of res.data) void chunk;
    };
  } else if (name === 'bare') {
    const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT, maxFreeSockets: IN_FLIGHT });
    send = () =>
      new Promise((resolve) => {
        const req = http.request(
          url,
          { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', resolve);
        req.end(body);
      });
  } else throw new Error(`unknown client ${name}`);

  const inFlight = new Set();
  const started = performance.now();
  let sent = 0;
  while (performance.now() - started < seconds * 1000) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    while (sent < due && inFlight.size < IN_FLIGHT) {
      sent++;
      const p = send().finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  process.stdout.write(`REQUESTS ${sent}\n`);
  process.exit(0);
}
