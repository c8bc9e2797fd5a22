// Load runs and measurements of bench/api.mjs: autocannon, drain, sanity check, CPU, memory and cache counters.
import { readFileSync } from 'node:fs';
import { ENDPOINTS, log } from './common.mjs';

/** CPU seconds used so far by a process (Linux /proc; undefined elsewhere). */
export function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ (100)
  } catch {
    return undefined;
  }
}

/**
 * After a load run the servers still answer the requests that were queued when the client stopped;
 * wait until every server is idle again (< 5 % of a core over 300 ms) so the next run starts clean.
 */
export async function drain(servers, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  if (cpuSeconds(process.pid) === undefined) return sleep(3000);
  while (Date.now() < deadline) {
    const before = servers.map((s) => cpuSeconds(s.child.pid) ?? 0);
    await sleep(300);
    const used = servers.map((s, i) => (cpuSeconds(s.child.pid) ?? 0) - before[i]);
    if (used.every((u) => u < 0.015)) return;
  }
  log('servers still busy after the drain timeout');
}

function summarize(body) {
  const data = body.data;
  const kills = Array.isArray(data) && data.length && Array.isArray(data[0]?.kills) ? data.reduce((n, s) => n + s.kills.length, 0) : undefined;
  return { items: Array.isArray(data) ? data.length : -1, kills };
}

/** Fetches every endpoint from both servers; returns the item counts and whether the bodies are equal. */
export async function sanity(product, baseline, query, headers) {
  const rows = [];
  for (const ep of ENDPOINTS) {
    const [p, b] = await Promise.all([product, baseline].map((s) => fetch(`${s.url}${ep}${query}`, { headers })));
    const [pt, bt] = await Promise.all([p.text(), b.text()]);
    if (p.status !== 200 || b.status !== 200) throw new Error(`${ep}: product ${p.status}, baseline ${b.status}\n${pt.slice(0, 500)}\n${bt.slice(0, 500)}`);
    const [pj, bj] = [JSON.parse(pt), JSON.parse(bt)];
    const [ps, bs] = [summarize(pj), summarize(bj)];
    if (ps.items !== bs.items || ps.kills !== bs.kills) throw new Error(`${ep}: product returns ${JSON.stringify(ps)}, baseline ${JSON.stringify(bs)}`);
    const identical = JSON.stringify(pj) === JSON.stringify(bj);
    rows.push({ endpoint: ep, items: ps.items, kills: ps.kills, bytes: Buffer.byteLength(pt), baselineBytes: Buffer.byteLength(bt), identical });
    log(
      `sanity ${ep}: ${ps.items} items${ps.kills !== undefined ? ` (${ps.kills} kills)` : ''}, ${Buffer.byteLength(pt)} bytes; ` +
        `bodies ${identical ? 'identical' : 'DIFFER'} to the baseline`,
    );
  }
  return rows;
}

export async function load(autocannon, url, headers, duration, connections) {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections, duration, pipelining: 1, timeout: 30 }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** Paced load: `rate` requests/s in all, for latency at a rate below saturation. */
export async function paced(autocannon, url, headers, duration, connections, rate) {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections, duration, pipelining: 1, timeout: 30, overallRate: rate }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** Resident memory of a process in MiB (Linux), or NaN. */
export function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The product's V8 heap in use and in all (MiB), from its /metrics. */
export async function heapMiB(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (name) => Number(new RegExp(`^mapintel_nodejs_heap_size_${name}_bytes (\\d+)`, 'm').exec(text)?.[1]) / 2 ** 20;
  return { used: read('used'), total: read('total') };
}

/** The product's read-cache counters (mapintel_map_read_cache_total by result) from its /metrics. */
export async function cacheCounters(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = {};
  for (const m of text.matchAll(/^mapintel_map_read_cache_total\{result="(\w+)"\} (\d+)/gm)) out[m[1]] = Number(m[2]);
  return out;
}

export function statusSummary(res) {
  const codes = Object.entries(res.statusCodeStats ?? {})
    .map(([code, s]) => `${code}:${s.count}`)
    .join(' ');
  return codes || 'none';
}
