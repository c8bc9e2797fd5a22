// The workload of bench/events.mjs: the product's write paths and the raw INSERT + XADD baseline as
// operations for drive(), one measured run, the backlog phase, and the scenarios in order.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ulid } from 'ulid';
import { databaseBackends, drive, killInput, nowMs, sleep, SOLAR_SYSTEM, SYSTEM_NAME, toKillInput } from '../support.mjs';
import { cpuSince, cpuStart, fmt, histogramDelta, log, parseHistogram, summarize } from './measure.mjs';
import { relayRounds, startRelay, waitDrained } from './setup.mjs';

/** The payload the product's map_kill event carries (src/maps/event-payloads.ts), for the baseline. */
function killPayload(k, systemName) {
  return {
    killmail_id: k.killmailId,
    system_name: systemName,
    solar_system_id: k.solarSystemId,
    kill_time: new Date(Math.round(k.killTime.getTime() / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    victim: { name: k.victimCharName, ship: k.victimShipName, corporation: k.victimCorpTicker },
    value: k.totalValue,
  };
}

/** One kill per transaction through platform.mapContent.addKill; commit times into `commits`. */
const productOp = (ctx) => (commits) => async (i) => {
  const id = ctx.killSeq++;
  const ok = await ctx.platform.mapContent.addKill(ctx.maps[i % ctx.maps.length], killInput(id, SOLAR_SYSTEM));
  const t = nowMs();
  if (!ok) throw new Error(`kill ${id} was not new`);
  commits.set(`k:${id}`, t);
};

// The same write path as POST /api/maps/{map_id}/kills: one transaction stores a batch of killmails
// and their map_kill events (a killboard feed delivers kills in batches).
// The map key of each map, as the API's authentication would establish it (imports are not attributed).
const keyOf = (mapId) => ({ kind: 'map_key', keyId: 'bench', mapId, characterId: '' });
const productBatchOp = (ctx) => (commits) => async (i) => {
  const { batchSize, maps } = ctx;
  const ids = Array.from({ length: batchSize }, () => ctx.killSeq++);
  const mapId = maps[i % maps.length];
  const res = await ctx.platform.kills.import(
    keyOf(mapId),
    mapId,
    ids.map((id) => toKillInput(killInput(id, SOLAR_SYSTEM))),
  );
  const t = nowMs();
  if (res.inserted !== batchSize) throw new Error(`batch of ${batchSize} kills stored ${res.inserted}`);
  for (const id of ids) commits.set(`k:${id}`, t);
};

/** The baseline: one INSERT into the plain table (autocommit), then one XADD of the same envelope. */
const baselineOp = (ctx) => (commits) => async (i) => {
  const n = ctx.rawSeq++;
  const mapId = ctx.maps[i % ctx.maps.length];
  const payload = killPayload(killInput(150_000_000 + n, SOLAR_SYSTEM), SYSTEM_NAME);
  const json = JSON.stringify(payload);
  await ctx.raw.query('insert into bench_raw_events (map_id, type, payload) values ($1, $2, $3::jsonb)', [mapId, 'map_kill', json]);
  const t = nowMs();
  commits.set(`b:${n}`, t);
  const envelope = JSON.stringify({ id: ulid(), type: 'map_kill', map_id: mapId, ts: new Date().toISOString(), payload });
  await ctx.redis.xAdd(ctx.baselineKey, '*', { n: String(n), map_id: mapId, type: 'map_kill', envelope });
};

/** One measured run; waits until every committed event is in Redis. */
async function run(ctx, name, makeOp, opts) {
  const { raw, reader, writers } = ctx;
  if (ctx.failed) throw new Error('the relay process died');
  const commits = new Map();
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const scans0 = await relayRounds(ctx);
  const cpu = cpuStart(ctx.relayPid, await databaseBackends(raw));
  const started = nowMs();
  const done = await drive({ writers, ...opts, op: makeOp(commits) });
  const missing = await reader.waitFor([...commits.keys()], 60_000);
  const usage = cpuSince(cpu, ctx.relayPid, await databaseBackends(raw), commits.size);
  loopDelay.disable();
  if (missing) throw new Error(`${name}: ${missing} of ${commits.size} committed events never reached Redis`);
  const s = summarize(name, commits, reader, started);
  s.done = done;
  s.cpu = usage;
  s.loopDelayP99Ms = loopDelay.percentile(99) / 1e6;
  log(
    `${name}: ${s.events} events, ${fmt(s.eventsPerSec, 0)} events/s end to end (writes ${fmt(s.writeRate, 0)}/s), ` +
      `commit→read p50 ${fmt(s.latency.p50, 2)} p99 ${fmt(s.latency.p99, 2)} max ${fmt(s.latency.max, 2)} ms; ` +
      `CPU bench ${fmt(usage.benchPct, 0)} % relay ${fmt(usage.relayPct, 0)} % postgres ${fmt(usage.pgPct, 0)} % machine ${fmt(usage.machineBusyPct, 0)} %`,
  );
  await waitDrained(ctx);
  await sleep(1100); // PostgreSQL flushes backend statistics at most once a second
  s.relayRounds = (await relayRounds(ctx)) - scans0;
  s.eventsPerRound = s.events / s.relayRounds;
  return s;
}

/** Backlog phase: the write path alone (no relay running), then the relay's drain rate over that backlog. */
export async function backlogPhase(ctx) {
  const { raw, reader, writers } = ctx;
  const commits = new Map();
  const cpu = cpuStart(undefined, await databaseBackends(raw));
  const started = nowMs();
  await drive({ writers, count: ctx.backlogEvents, op: productOp(ctx)(commits) });
  const wrote = nowMs();
  const usage = cpuSince(cpu, undefined, await databaseBackends(raw), commits.size);
  await startRelay(ctx);
  const missing = await reader.waitFor([...commits.keys()], 120_000);
  if (missing) throw new Error(`backlog: ${missing} of ${commits.size} committed events never reached Redis`);
  const xadds = [...commits.keys()].map((t) => reader.arrivals.get(t).xadd);
  const span = (Math.max(...xadds) - Math.min(...xadds)) / 1000;
  const backlog = {
    events: commits.size,
    writeRate: commits.size / ((wrote - started) / 1000),
    cpu: usage,
    drainSeconds: span,
    drainRate: commits.size / span,
  };
  log(
    `backlog: ${backlog.events} kills written with no relay running at ${fmt(backlog.writeRate, 0)}/s ` +
      `(CPU ms/event bench ${fmt(usage.benchMsPerEvent, 2)}, postgres ${fmt(usage.pgMsPerEvent, 2)}); the relay published them at ${fmt(backlog.drainRate, 0)} events/s`,
  );
  await waitDrained(ctx);
  return backlog;
}

/** Warm-up, then scenarios A (product, baseline), A2 (batches) and B (paced), in that order. */
export async function scenarios(ctx) {
  const { N, writers, maxSeconds, batchSize, rate, rateSeconds, warmupEvents } = ctx;
  if (warmupEvents > 0) {
    await run(ctx, 'warm-up product', productOp(ctx), { count: warmupEvents });
    await run(ctx, 'warm-up baseline', baselineOp(ctx), { count: warmupEvents });
  }
  const deadline = () => nowMs() + maxSeconds * 1000;
  const results = [];
  results.push(await run(ctx, 'A product  (addKill, 8 writers)'.replace('8', writers), productOp(ctx), { count: N, deadline: deadline() }));
  results.push(await run(ctx, 'A baseline (INSERT+XADD)', baselineOp(ctx), { count: N, deadline: deadline() }));
  const batched = await run(ctx, `A2 product (kills in batches of ${batchSize})`, productBatchOp(ctx), {
    count: Math.ceil(N / batchSize),
    deadline: deadline(),
  });
  const before = parseHistogram(await ctx.metricsText());
  const paced = { count: rate * rateSeconds, rate };
  results.push(await run(ctx, `B product  @ ${rate}/s`, productOp(ctx), paced));
  const relayHistogram = histogramDelta(before, parseHistogram(await ctx.metricsText()));
  results.push(await run(ctx, `B baseline @ ${rate}/s`, baselineOp(ctx), paced));
  results.push(batched);
  return { results, batched, relayHistogram };
}
