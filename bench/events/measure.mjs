// Measurements of bench/events.mjs: CPU accounting, the Redis stream reader, run summaries and the relay's
// publish-latency histogram; also the constants and helpers its parts share.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { backendsCpu, backendsDelta, distribution, machineCpu, nowMs, procCpu, sleep } from '../support.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const log = (msg) => process.stderr.write(`[bench-events] ${msg}\n`);
export const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

export function cpuStart(relayPid, pgPids) {
  const u = process.cpuUsage();
  return { wall: nowMs(), bench: (u.user + u.system) / 1e6, relay: relayPid ? procCpu(relayPid) : NaN, pg: backendsCpu(pgPids), machine: machineCpu() };
}

/**
 * CPU use since `s`: % of one core per process group (machine: % of all cores busy), and CPU milliseconds
 * per event (less sensitive to other load on the machine than the rates).
 */
export function cpuSince(s, relayPid, pgPids, events) {
  const e = cpuStart(relayPid, pgPids);
  const wall = (e.wall - s.wall) / 1000;
  const pct = (a, b) => ((b - a) / wall) * 100;
  const per = (a, b) => ((b - a) * 1000) / events;
  const pg = backendsDelta(s.pg, e.pg);
  return {
    benchPct: pct(s.bench, e.bench),
    relayPct: relayPid ? pct(s.relay, e.relay) : NaN,
    pgPct: pct(0, pg),
    machineBusyPct: (1 - (e.machine.idle - s.machine.idle) / (e.machine.total - s.machine.total)) * 100,
    benchMsPerEvent: per(s.bench, e.bench),
    relayMsPerEvent: relayPid ? per(s.relay, e.relay) : NaN,
    pgMsPerEvent: per(0, pg),
  };
}

/**
 * One XREAD BLOCK loop over the product's partition streams and the baseline stream, keeping the last id of each
 * (re-issuing XREAD with `$` would lose entries added between calls). Records receipt time and XADD time.
 */
export class StreamReader {
  constructor(redis, keys) {
    this.redis = redis;
    this.keys = keys;
    this.last = Object.fromEntries(Object.values(keys).map((k) => [k, '0-0']));
    /** tag → { recv, xadd } */
    this.arrivals = new Map();
    this.entries = 0;
    this.stopped = false;
  }

  start() {
    this.loop = this.run();
  }

  async run() {
    while (!this.stopped) {
      const res = await this.redis.xRead(
        Object.values(this.keys).map((key) => ({ key, id: this.last[key] })),
        { BLOCK: 100, COUNT: 10_000 },
      );
      const recv = nowMs();
      for (const stream of res ?? []) {
        for (const m of stream.messages) {
          this.last[stream.name] = m.id;
          this.entries++;
          const xadd = Number(m.id.split('-')[0]);
          let tag;
          if (stream.name === this.keys.baseline) tag = `b:${m.message.n}`;
          else if (m.message.type === 'map_kill') tag = `k:${JSON.parse(m.message.envelope).payload.killmail_id}`;
          if (tag) this.arrivals.set(tag, { recv, xadd });
        }
      }
    }
  }

  async stop() {
    this.stopped = true;
    await this.loop;
  }

  async waitFor(tags, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const missing = tags.filter((t) => !this.arrivals.has(t)).length;
      if (missing === 0) return 0;
      if (Date.now() > deadline) return missing;
      await sleep(20);
    }
  }
}

/** Summarizes one run: commits (tag → commit time) against the reader's arrivals. */
export function summarize(name, commits, reader, started) {
  const lat = [];
  const latXadd = [];
  let firstCommit = Infinity;
  let lastCommit = -Infinity;
  let lastSeen = -Infinity;
  let lastXadd = -Infinity;
  for (const [tag, commit] of commits) {
    const a = reader.arrivals.get(tag);
    firstCommit = Math.min(firstCommit, commit);
    lastCommit = Math.max(lastCommit, commit);
    if (!a) continue;
    lat.push(a.recv - commit);
    latXadd.push(a.xadd - commit);
    lastSeen = Math.max(lastSeen, a.recv);
    lastXadd = Math.max(lastXadd, a.xadd);
  }
  const n = commits.size;
  return {
    scenario: name,
    events: n,
    seen: lat.length,
    // From the first commit to the last event read from Redis (the definition).
    seconds: (lastSeen - firstCommit) / 1000,
    eventsPerSec: n > 1 ? (n - 1) / ((lastSeen - firstCommit) / 1000) : NaN,
    // Commits per second over the same window start (what the writers achieved).
    writeRate: n > 1 ? (n - 1) / ((lastCommit - firstCommit) / 1000) : NaN,
    // From the first operation's start, for reference.
    eventsPerSecFromStart: n / ((lastSeen - started) / 1000),
    latency: distribution(lat),
    latencyXaddClock: distribution(latXadd),
    lastXaddAfterLastCommitMs: lastXadd - lastCommit,
  };
}

/** Cumulative buckets of mapintel_events_publish_latency_seconds from Prometheus text. */
export function parseHistogram(text) {
  const buckets = new Map();
  let count = 0;
  let sum = 0;
  for (const line of text.split('\n')) {
    let m = /^mapintel_events_publish_latency_seconds_bucket\{le="([^"]+)"\} (\S+)/.exec(line);
    if (m) buckets.set(m[1], Number(m[2]));
    m = /^mapintel_events_publish_latency_seconds_count (\S+)/.exec(line);
    if (m) count = Number(m[1]);
    m = /^mapintel_events_publish_latency_seconds_sum (\S+)/.exec(line);
    if (m) sum = Number(m[1]);
  }
  return { buckets, count, sum };
}

/** Upper bucket bounds (ms) holding p50/p99 of the observations between two snapshots. */
export function histogramDelta(before, after) {
  const count = after.count - before.count;
  const q = (p) => {
    for (const [le, c] of after.buckets) {
      if (c - (before.buckets.get(le) ?? 0) >= p * count) return le === '+Inf' ? Infinity : Number(le) * 1000;
    }
    return NaN;
  };
  return { count, meanMs: count ? ((after.sum - before.sum) / count) * 1000 : NaN, p50LeMs: q(0.5), p99LeMs: q(0.99) };
}
