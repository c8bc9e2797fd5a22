// The measured runs of bench/stream.mjs (idle connections, fan-out at each rate) and its summary table.
// Each takes the run's context: { peers, results, centrifugoNote }.
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { CENTRIFUGO_VERSION } from '../build-centrifugo.mjs';
import { load } from './load.mjs';
import { CLIENTS, cpuMs, IDLE, log, RATE, rssKiB, SATURATION, SECONDS, SETTLE_SECONDS, sleep, STREAM_NODE_OPTIONS } from './settings.mjs';

/** Idle connections: memory per connection, and the connection rate (auth and cap admission included). */
export async function idleRuns(ctx) {
  const { peers, results } = ctx;
  if (IDLE > 0) {
    for (const [name, peer] of peers) {
      const before = rssKiB(peer.srv.child.pid);
      const fdsBefore = readdirSync(`/proc/${peer.srv.child.pid}/fd`).length;
      // Resident memory and held connections sampled 2, 4 and 6 s after the last connection opened (the
      // garbage of the connects is collected meanwhile); KB per connection from the median sample.
      const samples = [];
      const sample = () => samples.push({ rss: rssKiB(peer.srv.child.pid), held: readdirSync(`/proc/${peer.srv.child.pid}/fd`).length - fdsBefore });
      // CPU of the server from the first connect to the last one open: what each admission costs it
      // (the product: authentication, the key's profile, cap admission in Redis; C_adm in docs/scaling.md).
      const cpuBefore = cpuMs(peer.srv.child.pid);
      let cpuOpening = NaN;
      const [open] = await load({
        targets: peer.targets,
        connections: IDLE,
        holdMs: 26000,
        onLine: (l) => {
          if (l.phase !== 'open') return;
          cpuOpening = cpuMs(peer.srv.child.pid) - cpuBefore;
          [2000, 6000, 10000, 14000, 18000, 22000].forEach((ms) => setTimeout(sample, ms));
        },
      });
      const perConnection = samples.map((x) => (x.rss - before) / x.held).sort((a, b) => a - b);
      results[`idle_${name}`] = {
        opened: open.opened,
        failed: open.failed,
        openPerSecond: open.openPerSecond,
        // Connections the server holds (its open files, less those it had before), at the last sample.
        held: samples.at(-1)?.held,
        kbPerConnection: +(perConnection[Math.floor(perConnection.length / 2)] ?? NaN).toFixed(2),
        kbPerConnectionSamples: perConnection.map((x) => +x.toFixed(2)),
        cpuUsPerAdmission: open.opened ? +((cpuOpening * 1000) / open.opened).toFixed(1) : null,
      };
      log(`idle ${name}: ${JSON.stringify(results[`idle_${name}`])}`);
      await sleep(2000);
    }
  }
}

/** Fan-out at RATE and at each SATURATION rate. */
export async function fanoutRuns(ctx) {
  const { peers, results } = ctx;
  for (const rate of [RATE, ...SATURATION].filter(Boolean)) {
    for (const [name, peer] of peers) {
      let cpuAtOpen = 0;
      let cpu = 0;
      const [open, done] = await load({
        targets: peer.targets,
        connections: CLIENTS,
        holdMs: SECONDS * 1000,
        settleMs: SETTLE_SECONDS * 1000,
        onLine: (l) => {
          if (l.phase === 'open') {
            cpuAtOpen = cpuMs(peer.srv.child.pid);
            void peer.setRate(rate);
            log(`fan-out ${rate}/s ${name}: ${l.opened} open, ${SETTLE_SECONDS ? `measuring in ${SETTLE_SECONDS} s` : 'measuring'}`);
          } else if (l.phase === 'measuring') cpuAtOpen = cpuMs(peer.srv.child.pid);
          else cpu = cpuMs(peer.srv.child.pid) - cpuAtOpen;
        },
      });
      await peer.setRate(0);
      results[`fanout_${rate}_${name}`] = {
        opened: open.opened,
        failed: open.failed,
        openPerSecond: open.openPerSecond,
        deliveriesPerSecond: done.perSecond,
        p50: done.p50,
        p99: done.p99,
        max: done.max,
        p99BySecond: done.p99BySecond,
        // Server CPU while measured: share of one core, and microseconds per delivery (less sensitive
        // to other load on the machine than the latencies).
        cpuShare: +(cpu / (SECONDS * 1000)).toFixed(2),
        cpuUsPerDelivery: done.frames ? +((cpu * 1000) / done.frames).toFixed(1) : null,
      };
      log(`fan-out ${rate}/s ${name}: ${JSON.stringify(results[`fanout_${rate}_${name}`])}`);
      await sleep(2000);
    }
  }
}

/** The table of every measure per server (and the product's ratio to each peer) on stdout. */
export function report(ctx) {
  const { peers, results, centrifugoNote } = ctx;
  const r = results;
  const names = [...peers.keys()];
  const label = { product: 'product', baseline: '(a) node:http', centrifugo: `(b) Centrifugo ${CENTRIFUGO_VERSION}` };
  const ratioCols = names.includes('product') ? names.filter((n) => n !== 'product') : [];
  const ratio = (a, b) => (typeof a === 'number' && typeof b === 'number' && b ? `${(a / b).toFixed(2)}x` : 'n/a');
  const row = (measure, pick) => {
    const v = names.map((n) => pick(n));
    const ratios = ratioCols.map((n) => ratio(pick('product'), pick(n)));
    return `| ${measure} | ${v.map((x) => x ?? 'n/a').join(' | ')} | ${ratios.join(' | ')} |`;
  };
  const rows = [];
  if (IDLE > 0) {
    rows.push(row(`${IDLE} idle connections: KB per connection`, (n) => r[`idle_${n}`]?.kbPerConnection));
    rows.push(
      row(
        `${IDLE} idle connections: opened / failed / held by the server`,
        (n) => r[`idle_${n}`] && `${r[`idle_${n}`].opened} / ${r[`idle_${n}`].failed} / ${r[`idle_${n}`].held}`,
      ),
    );
    rows.push(row('new connections/s (product: auth + cap admission)', (n) => r[`idle_${n}`]?.openPerSecond));
    rows.push(row('server CPU µs per connection opened', (n) => r[`idle_${n}`]?.cpuUsPerAdmission));
  }
  for (const rate of [RATE, ...SATURATION].filter(Boolean)) {
    const f = (n) => r[`fanout_${rate}_${n}`];
    rows.push(row(`${CLIENTS} clients, ${rate} events/s: deliveries/s`, (n) => f(n)?.deliveriesPerSecond));
    rows.push(row(`${CLIENTS} clients, ${rate} events/s: p50 ms`, (n) => f(n)?.p50));
    rows.push(row(`${CLIENTS} clients, ${rate} events/s: p99 ms`, (n) => f(n)?.p99));
    rows.push(row(`${CLIENTS} clients, ${rate} events/s: max ms`, (n) => f(n)?.max));
    rows.push(row(`${CLIENTS} clients, ${rate} events/s: server CPU (cores)`, (n) => f(n)?.cpuShare));
    rows.push(row(`${CLIENTS} clients, ${rate} events/s: server CPU µs per delivery`, (n) => f(n)?.cpuUsPerDelivery));
  }
  const commit = Object.entries(r).filter(([k]) => k.startsWith('commit_'));
  for (const [k, c] of commit)
    rows.push(
      `| ${k.slice(7)} writes/s through the API (${c.writesPerSecond}/s reached, ${c.failed} failed, ${c.framesMissing} frames missing): commit → first byte p50 / p99 / max ms (at most; after the answer: p50 / p99) | ${c.p50} / ${c.p99} / ${c.max} (${c.p50AfterAnswer} / ${c.p99AfterAnswer}) | ${names
        .slice(1)
        .map(() => 'n/a')
        .join(' | ')} | ${ratioCols.map(() => '').join(' | ')} |`,
    );
  console.log(
    [
      '',
      `| measure | ${names.map((n) => label[n]).join(' | ')} | ${ratioCols.map((n) => `product / ${label[n]}`).join(' | ')} |`,
      `| --- | ${names.map(() => '---').join(' | ')} | ${ratioCols.map(() => '---').join(' | ')} |`,
      ...rows,
      '',
      ...(centrifugoNote ? [centrifugoNote] : []),
      `product NODE_OPTIONS: ${STREAM_NODE_OPTIONS || "(none: Node's defaults)"} (the chart's stream.nodeOptions; BENCH_STREAM_NODE_OPTIONS overrides)`,
      `load average after the run: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    ].join('\n'),
  );
}
