#!/usr/bin/env node
// The webhook receiver of `make bench-webhooks` (bench/webhooks.mjs), in a process of its own:
// a node:http server on loopback that answers 200 at once on `/s/…` paths, never answers on
// `/hang/…` paths (the sender's timeout ends those), and on `/stall/…` paths answers 200 with the first
// byte of a body it never ends. For every delivery it records the subscription
// path, the killmail id of the event's payload and the event→receiver latency (arrival after the whole
// body minus the envelope's `ts`); one request in BENCH_VERIFY_EVERY has its signature checked with
// the subscription's secret (HMAC-SHA256 over `<timestamp>.<raw body>`, decisions §7), independently
// of the product's own signer.
//
//   node bench/webhooks-receiver.mjs <port>
//
// Control (JSON, same port): POST /_bench/secrets {path: secret} adds secrets; POST /_bench/phase
// {name} starts recording under a new phase name; GET /_bench/count?phase= answers how many distinct
// deliveries arrived; GET /_bench/report?phase=[&keys=1] answers counts, latency percentiles, the
// first and last arrival, the rate after the first third of the deliveries and per whole second, the
// signature checks, the `webhook-sequence` numbers (per subscription path: numbers missing inside the
// range seen, a number seen for two different events, deliveries without one) and (with keys=1) every
// distinct `<path> <killmail id>`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const port = Number(process.argv[2]);
const verifyEvery = Number(process.env.BENCH_VERIFY_EVERY || 20);
const nowMs = () => performance.timeOrigin + performance.now();

const secrets = new Map();
const phases = new Map();
const hanging = new Set();
let current = newPhase('idle');

function newPhase(name) {
  const p = {
    name,
    requests: 0,
    keys: new Set(),
    duplicates: 0,
    latencies: [],
    /** Arrival of each distinct delivery (ms), in arrival order. */
    arrivals: [],
    first: Infinity,
    last: -Infinity,
    hangRequests: 0,
    stallRequests: 0,
    connections: 0,
    unparsable: 0,
    verified: { checked: 0, ok: 0, failed: 0 },
    /** Per subscription path: webhook-sequence → the killmail id it came with. */
    sequences: new Map(),
    sequenceConflicts: 0,
    withoutSequence: 0,
  };
  phases.set(name, p);
  return p;
}

function verify(path, headers, body) {
  const secret = secrets.get(path);
  const header = headers['x-service-signature'];
  const timestamp = headers['x-service-timestamp'];
  if (!secret || typeof header !== 'string' || typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) > 300) return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`).update(body).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function percentile(sorted, q) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function steadyRate(arrivals) {
  const from = Math.floor(arrivals.length / 3);
  const n = arrivals.length - 1 - from;
  return n > 0 && arrivals.at(-1) > arrivals[from] ? n / ((arrivals.at(-1) - arrivals[from]) / 1000) : null;
}

function timeline(arrivals) {
  const counts = [];
  for (const a of arrivals) {
    const i = Math.floor((a - arrivals[0]) / 1000);
    while (counts.length <= i) counts.push(0);
    counts[i]++;
  }
  return counts;
}

/** What the `webhook-sequence` numbers of a phase say: gaps inside each subscription's range, conflicts, absences. */
function sequenceReport(p) {
  let missing = 0;
  for (const seen of p.sequences.values()) {
    const numbers = [...seen.keys()];
    missing += Math.max(...numbers) - Math.min(...numbers) + 1 - numbers.length;
  }
  return { subscriptions: p.sequences.size, missing, conflicts: p.sequenceConflicts, without: p.withoutSequence };
}

function report(p, withKeys) {
  const s = Float64Array.from(p.latencies).sort();
  const n = p.keys.size;
  return {
    phase: p.name,
    requests: p.requests,
    distinct: n,
    duplicates: p.duplicates,
    hangRequests: p.hangRequests,
    stallRequests: p.stallRequests,
    // TCP connections opened during the phase (with keep-alive, few).
    connections: p.connections,
    unparsable: p.unparsable,
    first: Number.isFinite(p.first) ? p.first : null,
    last: Number.isFinite(p.last) ? p.last : null,
    // Deliveries per second from the first to the last one received.
    perSecond: n > 1 ? (n - 1) / ((p.last - p.first) / 1000) : null,
    // Deliveries per second after the first third of them arrived (a process's warm-up left out).
    steadyPerSecond: steadyRate(p.arrivals),
    // Distinct deliveries per whole second from the first arrival.
    perSecondTimeline: timeline(p.arrivals),
    latencyMs: { n: s.length, p50: percentile(s, 0.5), p90: percentile(s, 0.9), p99: percentile(s, 0.99), max: s.length ? s[s.length - 1] : null },
    verified: p.verified,
    sequence: sequenceReport(p),
    ...(withKeys ? { keys: [...p.keys] } : {}),
  };
}

function control(req, res, body) {
  const url = new URL(req.url, 'http://x');
  const answer = (status, value) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (req.method === 'POST' && url.pathname === '/_bench/secrets') {
    for (const [path, secret] of Object.entries(JSON.parse(body))) secrets.set(path, secret);
    return answer(200, { secrets: secrets.size });
  }
  if (req.method === 'POST' && url.pathname === '/_bench/phase') {
    current = newPhase(JSON.parse(body).name);
    return answer(200, { phase: current.name });
  }
  const p = phases.get(url.searchParams.get('phase') ?? current.name);
  if (!p) return answer(404, { error: 'no such phase' });
  if (url.pathname === '/_bench/count') return answer(200, { distinct: p.keys.size, requests: p.requests, hangRequests: p.hangRequests });
  if (url.pathname === '/_bench/report') return answer(200, report(p, url.searchParams.get('keys') === '1'));
  return answer(404, { error: 'unknown control path' });
}

const server = http.createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const arrival = nowMs();
    const body = Buffer.concat(chunks);
    const path = req.url ?? '/';
    if (path.startsWith('/_bench/')) return control(req, res, body.toString('utf8'));
    const p = current;
    p.requests++;
    if (path.startsWith('/hang/')) {
      // Never answered: the sender's timeout ends the request (and closes the connection).
      p.hangRequests++;
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (path.startsWith('/stall/')) {
      // 200 and a body that never ends: the sender's timeout ends the request.
      p.stallRequests++;
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' });
    res.end('{"ok":true}');
    let envelope;
    try {
      envelope = JSON.parse(body.toString('utf8'));
    } catch {
      p.unparsable++;
      return;
    }
    const key = `${path} ${envelope.payload?.killmail_id}`;
    const sequence = Number(req.headers['webhook-sequence']);
    if (!Number.isSafeInteger(sequence)) p.withoutSequence++;
    else {
      let seen = p.sequences.get(path);
      if (!seen) p.sequences.set(path, (seen = new Map()));
      const before = seen.get(sequence);
      if (before !== undefined && before !== envelope.payload?.killmail_id) p.sequenceConflicts++;
      seen.set(sequence, envelope.payload?.killmail_id);
    }
    if (p.keys.has(key)) p.duplicates++;
    else {
      p.keys.add(key);
      p.arrivals.push(arrival);
    }
    p.latencies.push(arrival - Date.parse(envelope.ts));
    if (arrival < p.first) p.first = arrival;
    if (arrival > p.last) p.last = arrival;
    if (p.requests % verifyEvery === 0) {
      p.verified.checked++;
      if (verify(path, req.headers, body)) p.verified.ok++;
      else p.verified.failed++;
    }
  });
});
server.maxHeadersCount = 100;
server.on('connection', () => current.connections++);
server.listen(port, '127.0.0.1', () => process.stdout.write(`receiver listening on ${port}\n`));

const stop = () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
