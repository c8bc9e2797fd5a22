// The runs of bench/scale.mjs: stream processes against the cluster, each serving its own share of the
// maps, measured from their /metrics, /proc and the masters' INFO.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { freePort, procCpu, startChild, waitReady } from '../support.mjs';
import { load } from '../stream/load.mjs';
import { CLIENTS_PER_MAP, DIST, log, OTHER_MAPS, OTHER_RATE, PARTITIONS, SETTLE_SECONDS, PROCESS_CPU, rateOf, ROOT, SECONDS, sleep } from './settings.mjs';
import { limitCpu } from './cpu-limit.mjs';

/** BENCH_CPU_PROF=dir: each stream process writes a CPU profile into dir when it stops. */
const profileArgs = () => (process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`] : []);

/** Starts `n` stream processes (`node dist/cli.js serve --roles stream`) on the cluster. */
async function startStreams(ctx, n) {
  const procs = [];
  // Every port distinct: a port is free when asked for, not taken until its process listens.
  const taken = new Set();
  const distinctPort = async () => {
    for (;;) {
      const p = await freePort();
      if (!taken.has(p)) {
        taken.add(p);
        return p;
      }
    }
  };
  for (let i = 0; i < n; i++) {
    const port = await distinctPort();
    const opsPort = await distinctPort();
    const srv = startChild(
      `stream-${i}`,
      [...profileArgs(), path.join(DIST, 'cli.js'), 'serve', '--roles', 'stream'],
      {
        PATH: process.env.PATH ?? '',
        ...ctx.env,
        NODE_ENV: 'production',
        REDIS_URL: ctx.redis.url,
        REDIS_CLUSTER: String(ctx.redis.cluster),
        REDIS_KEY_PREFIX: ctx.prefix,
        EVENTS_PARTITIONS: String(PARTITIONS),
        SERVICE_SSE_ENABLED: 'true',
        STREAM_MAX_PER_MAP: '1000000',
        STREAM_MAX_PER_KEY: '1000000',
        STREAM_MAX_PER_PROCESS: '1000000',
        SERVICE_RATE_LIMIT_PER_MINUTE: '1000000',
        PORT: String(port),
        HOST: '127.0.0.1',
        // Its /metrics are read on the ops port.
        OPS_PORT: String(opsPort),
        OPS_HOST: '127.0.0.1',
      },
      { cwd: ROOT, port },
    );
    srv.metricsUrl = `http://127.0.0.1:${opsPort}/metrics`;
    if (PROCESS_CPU > 0) {
      srv.limit = limitCpu(srv.child.pid, PROCESS_CPU, `mapintel-bench-scale-${process.pid}-${n}-${i}`);
      const stop = srv.stop.bind(srv);
      srv.stop = async () => {
        await stop();
        srv.limit.remove();
      };
    }
    procs.push(srv);
  }
  // Listening once a stream request answers (401: no token on purpose).
  for (const srv of procs) await waitReady(srv, `${srv.url}/api/maps/${ctx.maps[0].id}/events/stream`, 60_000, (r) => r.status === 401);
  return procs;
}

/** The product's counters of a process (its /metrics on the ops port). */
async function counters(srv) {
  const res = await fetch(srv.metricsUrl);
  const text = await res.text();
  if (!text.includes('mapintel_stream_redis_events_received_total'))
    throw new Error(`${srv.name}: /metrics answered ${res.status} without the stream's counters`);
  const sum = (name) => {
    let s = 0;
    for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) s += Number(m[1]);
    return s;
  };
  return {
    delivered: sum('mapintel_stream_events_delivered_total'),
    received: sum('mapintel_stream_redis_events_received_total'),
    receivedBytes: sum('mapintel_stream_redis_received_bytes_total'),
    cpu: procCpu(srv.child.pid),
    // The cgroup's own accounting and throttling when the process runs under a CPU limit.
    cgroupCpu: srv.limit ? srv.limit.cpuSeconds() : NaN,
    throttled: srv.limit ? srv.limit.throttled() : null,
    threadsOutside: srv.limit ? srv.limit.threadsOutside() : 0,
  };
}

/** CPU seconds (user + system) of every master of the cluster so far. */
async function redisCpu(ctx) {
  let total = 0;
  for (const url of await ctx.redis.masters()) {
    const { createClient } = await import('redis');
    const c = createClient({ url });
    c.on('error', () => undefined);
    await c.connect();
    const info = String(await c.info('cpu'));
    await c.close();
    for (const f of ['used_cpu_sys', 'used_cpu_user']) total += Number(new RegExp(`^${f}:(\\S+)`, 'm').exec(info)?.[1] ?? 0);
  }
  return total;
}

/**
 * Connections opened on each process for its maps (one generator per process, held `holdMs`); resolves
 * once every one is open, with a promise of their ends.
 */
async function openClients(procs, shares, holdMs) {
  let opened = 0;
  let failed = 0;
  let open = 0;
  let ready;
  const allOpen = new Promise((r) => (ready = r));
  const ends = procs.map((srv, i) =>
    load({
      targets: shares[i].map((m) => ({ url: `${srv.url}/api/maps/${m.id}/events/stream`, token: m.key })),
      connections: shares[i].length * CLIENTS_PER_MAP,
      holdMs,
      onLine: (l) => {
        if (l.phase !== 'open') return;
        opened += l.opened;
        failed += l.failed;
        if (++open === procs.length) ready();
      },
    }),
  );
  await allOpen;
  return { opened, failed, ends: Promise.all(ends) };
}

/** 1, 2, 4 … processes, each serving maps k with k mod n = i, at RATE events/s over all of them. */
export async function scaleRun(ctx, n) {
  const procs = await startStreams(ctx, n);
  try {
    const shares = procs.map((_, i) => ctx.maps.filter((_, k) => k % n === i));
    const clients = await openClients(procs, shares, (SECONDS + 20) * 1000);
    await sleep(1000);
    const before = await Promise.all(procs.map(counters));
    const ownBefore = shares.map((s) => ctx.publisher.totals(new Set(s.map((m) => m.id))));
    const redisBefore = await redisCpu(ctx);
    ctx.publisher.set(
      ctx.maps.map((m) => m.id),
      rateOf(n),
    );
    await sleep(SECONDS * 1000);
    ctx.publisher.set([], 0);
    const after = await Promise.all(procs.map(counters));
    const redisAfter = await redisCpu(ctx);
    const own = shares.map((s, i) => {
      const t = ctx.publisher.totals(new Set(s.map((m) => m.id)));
      return { events: t.events - ownBefore[i].events, bytes: t.bytes - ownBefore[i].bytes };
    });
    const perProcess = procs.map((_, i) => {
      const received = after[i].received - before[i].received;
      return {
        maps: shares[i].length,
        deliveriesPerSecond: Math.round((after[i].delivered - before[i].delivered) / SECONDS),
        cpuShare: +((after[i].cpu - before[i].cpu) / SECONDS).toFixed(2),
        ...(PROCESS_CPU > 0
          ? {
              cgroupCpuShare: +((after[i].cgroupCpu - before[i].cgroupCpu) / SECONDS).toFixed(3),
              throttledPeriods: `${after[i].throttled.throttled - before[i].throttled.throttled} of ${after[i].throttled.periods - before[i].throttled.periods}`,
              threadsOutside: after[i].threadsOutside,
            }
          : {}),
        // What it received beyond the events of its own maps (target: about 0).
        foreignEvents: received - own[i].events,
        receivedBytes: after[i].receivedBytes - before[i].receivedBytes,
        ownPayloadBytes: own[i].bytes,
      };
    });
    const deliveries = perProcess.reduce((a, p) => a + p.deliveriesPerSecond, 0) * SECONDS;
    await clients.ends.catch(() => undefined);
    return {
      processes: n,
      eventsPerSecondOffered: rateOf(n),
      cpuLimit: PROCESS_CPU || null,
      opened: clients.opened,
      failed: clients.failed,
      deliveriesPerSecond: Math.round(deliveries / SECONDS),
      redisCpuUsPerDelivery: deliveries ? +(((redisAfter - redisBefore) * 1e6) / deliveries).toFixed(2) : null,
      perProcess,
    };
  } finally {
    for (const p of procs) await p.stop();
  }
}

/** One process with clients on one map while OTHER_RATE events/s go to OTHER_MAPS other maps. */
export async function isolationRun(ctx) {
  const [srv] = await startStreams(ctx, 1);
  try {
    const served = ctx.maps[0];
    const clients = await openClients([srv], [[served]], (SECONDS + SETTLE_SECONDS + 20) * 1000);
    // What opening the connections costs (their presence frames, the first queries' pool connections,
    // code still being compiled) is spent before the measured window, which holds the steady cost.
    await sleep(SETTLE_SECONDS * 1000);
    const others = Array.from({ length: OTHER_MAPS }, () => randomUUID());
    const othersSet = new Set(others);
    const before = await counters(srv);
    const sentBefore = ctx.publisher.totals(othersSet);
    ctx.publisher.set(others, OTHER_RATE);
    await sleep(SECONDS * 1000);
    ctx.publisher.set([], 0);
    const after = await counters(srv);
    const sent = ctx.publisher.totals(othersSet);
    const sentBytes = sent.bytes - sentBefore.bytes;
    const receivedBytes = after.receivedBytes - before.receivedBytes;
    await clients.ends.catch(() => undefined);
    return {
      otherEventsPerSecond: Math.round((sent.events - sentBefore.events) / SECONDS),
      cpuPercentOfCore: +((100 * (after.cpu - before.cpu)) / SECONDS).toFixed(2),
      receivedEvents: after.received - before.received,
      receivedBytes,
      sentBytes,
      receivedShareOfSentPercent: sentBytes ? +((100 * receivedBytes) / sentBytes).toFixed(3) : null,
    };
  } finally {
    await srv.stop();
  }
}

export { log };
