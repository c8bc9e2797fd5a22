#!/usr/bin/env node
// The baseline of `make bench-webhooks` (bench/webhooks.mjs), in a process of its own: a bare
// loop that signs and POSTs the same bodies to the same receiver with the same HTTP client as the
// product's sender (src/webhooks/sender.ts: an axios client with the sender's own options, called the
// same way, one keep-alive agent with the sender's agent options, the response body drained, the same
// headers, HMAC-SHA256 signing with the product's signer), `concurrency` requests in flight. No queue,
// no leases, no recording.
//
//   node bench/webhooks-baseline.mjs <job.json>
//   job: { dist, concurrency, timeoutMs, maxSockets, userAgent, requests: [{ url, secret, body, eventId, eventType }] }
// Prints one JSON line: { sent, ok, failed, seconds, perSecond, cpuSeconds }.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Axios } from 'axios';

const job = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { signingHeaders } = await import(pathToFileURL(path.join(job.dist, 'webhooks/signer.js')).href);
const { senderClientOptions, senderAgentOptions } = await import(pathToFileURL(path.join(job.dist, 'webhooks/sender.js')).href);

// signingHeaders(secret, eventId, body) since the Standard Webhooks headers; (secret, body) in older builds (BENCH_DIST).
const sign = signingHeaders.length >= 3 ? signingHeaders : (secret, _eventId, body) => signingHeaders(secret, body);
const agent = new http.Agent(senderAgentOptions(job.maxSockets));
const client = new Axios(senderClientOptions(job.timeoutMs));

async function send(r) {
  const body = Buffer.from(r.body, 'utf8');
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), job.timeoutMs);
  const signal = deadline.signal;
  try {
    const res = await client.request({
      method: 'post',
      url: r.url,
      data: body,
      signal,
      httpAgent: agent,
      headers: {
        'content-type': 'application/json',
        'user-agent': job.userAgent,
        'accept-encoding': 'identity',
        ...sign(r.secret, r.eventId, body),
        'x-service-event-id': r.eventId,
        'x-service-event-type': r.eventType,
        'x-service-delivery-attempt': '1',
      },
    });
    for await (const chunk of res.data) void chunk;
    return res.status >= 200 && res.status < 300;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

let next = 0;
let ok = 0;
let failed = 0;
const started = performance.now();
const cpu = process.cpuUsage();
await Promise.all(
  Array.from({ length: job.concurrency }, async () => {
    for (;;) {
      const i = next++;
      if (i >= job.requests.length) return;
      if (await send(job.requests[i])) ok++;
      else failed++;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
const { user, system } = process.cpuUsage(cpu);
agent.destroy();
const result = { sent: job.requests.length, ok, failed, seconds, perSecond: job.requests.length / seconds, cpuSeconds: (user + system) / 1e6 };
process.stdout.write(`${JSON.stringify(result)}\n`);
