// The measured phases of bench/api.mjs; each takes the run's context:
//   { autocannon, duration, warmup, connections, product, baseline, servers, headers, query, mapId, measured }
import { cacheCounters, cpuSeconds, drain, heapMiB, load, paced, rssMiB, statusSummary } from './measure.mjs';
import { log } from './common.mjs';

/** Each endpoint on both servers at saturation; one row per endpoint. */
export async function saturation(ctx) {
  const { autocannon, duration, warmup, connections, product, baseline, servers, headers, query } = ctx;
  const results = [];
  for (const [i, ep] of ctx.measured.entries()) {
    const row = { endpoint: ep };
    // Alternate which server goes first, so neither always runs right after the other's load.
    const order = [
      ['product', product],
      ['baseline', baseline],
    ];
    for (const [key, srv] of i % 2 ? order.reverse() : order) {
      const url = `${srv.url}${ep}${query}`;
      await drain(servers);
      if (warmup > 0) {
        await load(autocannon, url, headers, warmup, connections);
        await drain(servers);
      }
      log(`measuring ${key} ${ep} (${connections} connections, ${duration} s)`);
      const cpu0 = [cpuSeconds(srv.child.pid), process.cpuUsage()];
      const t0 = performance.now();
      const res = await load(autocannon, url, headers, duration, connections);
      const wall = (performance.now() - t0) / 1000;
      const serverCpu = cpu0[0] === undefined ? NaN : cpuSeconds(srv.child.pid) - cpu0[0];
      const d = process.cpuUsage(cpu0[1]);
      const loaderCpu = (d.user + d.system) / 1e6;
      row[key] = {
        rps: res.requests.average,
        total: res.requests.total,
        p50: res.latency.p50,
        p99: res.latency.p99,
        mbps: res.throughput.average / 2 ** 20,
        non2xx: res.non2xx,
        errors: res.errors,
        timeouts: res.timeouts,
        statuses: statusSummary(res),
        serverCpuPct: (serverCpu / wall) * 100,
        loaderCpuPct: (loaderCpu / wall) * 100,
        cpuMsPerReq: (serverCpu * 1000) / res.requests.total,
      };
    }
    row.ratio = row.product.rps / row.baseline.rps;
    results.push(row);
  }
  return results;
}

/** The product's resident memory and V8 heap, sampled between phases into `ctx.memory` and `ctx.heaps`. */
export async function sampleMemory(ctx) {
  ctx.memory.push(rssMiB(ctx.product.child.pid));
  ctx.heaps.push(await heapMiB(ctx.product.url));
}

/** Product only: the table's reads with `If-None-Match` naming the current ETag (304s/s). */
export async function revalidation(ctx, results) {
  const { autocannon, duration, connections, product, servers, headers, query } = ctx;
  const revalidated = [];
  for (const r of results) {
    const etag = (await fetch(`${product.url}${r.endpoint}${query}`, { headers })).headers.get('etag');
    await drain(servers);
    const res = await load(autocannon, `${product.url}${r.endpoint}${query}`, { ...headers, 'if-none-match': etag ?? '' }, duration, connections);
    revalidated.push({ endpoint: r.endpoint, rps: res.requests.average, p99: res.latency.p99, statuses: statusSummary(res), errors: res.errors });
    await sampleMemory(ctx);
  }
  return revalidated;
}

/** Both servers paced at 50 % of the baseline's saturation (systems-kills left out). */
export async function pacedRuns(ctx, results) {
  const { autocannon, duration, connections, product, baseline, servers, headers, query } = ctx;
  const pacedRows = [];
  for (const r of results.filter((x) => x.endpoint !== '/api/map/systems-kills')) {
    const rate = Math.max(1, Math.round(r.baseline.rps * 0.5));
    const row = { endpoint: r.endpoint, rate };
    for (const [key, srv] of [
      ['product', product],
      ['baseline', baseline],
    ]) {
      await drain(servers);
      const res = await paced(autocannon, `${srv.url}${r.endpoint}${query}`, headers, duration, connections, rate);
      row[key] = { rps: res.requests.average, p50: res.latency.p50, p99: res.latency.p99, non2xx: res.non2xx, errors: res.errors };
    }
    pacedRows.push(row);
    await sampleMemory(ctx);
  }
  return pacedRows;
}

/**
 * Mixed: the readers of the table's first endpoint, while a writer moves one system once a second through
 * the editing API and reads the map right after each write (staleness = reads that miss the write).
 */
export async function mixedRun(ctx) {
  const { autocannon, duration, connections, product, servers, headers, query, measured } = ctx;
  const mixedEndpoint = measured.includes('/api/map/systems') ? '/api/map/systems' : measured[0];
  const firstSystem = ((await (await fetch(`${product.url}/api/map/systems${query}`, { headers })).json()).data ?? [])[0];
  const mixed = { endpoint: mixedEndpoint, writes: 0, stale: 0, checked: 0 };
  if (!firstSystem) return mixed;
  await drain(servers);
  const before = await cacheCounters(product.url);
  let writing = true;
  const writer = (async () => {
    while (writing) {
      const x = 1000 + mixed.writes;
      const w = await fetch(`${product.url}/api/maps/${ctx.mapId}/systems/${firstSystem.solar_system_id}`, {
        method: 'PATCH',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ position_x: x }),
      });
      if (w.status !== 200) throw new Error(`mixed: write answered ${w.status}`);
      mixed.writes++;
      const read = await (await fetch(`${product.url}/api/map/systems${query}`, { headers })).json();
      mixed.checked++;
      if (read.data.find((sys) => sys.solar_system_id === firstSystem.solar_system_id)?.position_x !== x) mixed.stale++;
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  const res = await load(autocannon, `${product.url}${mixedEndpoint}${query}`, headers, duration, connections);
  writing = false;
  await writer;
  const after = await cacheCounters(product.url);
  const delta = (k) => (after[k] ?? 0) - (before[k] ?? 0);
  Object.assign(mixed, {
    rps: res.requests.average,
    p99: res.latency.p99,
    non2xx: res.non2xx,
    hits: delta('hit'),
    misses: delta('miss'),
    uncached: delta('uncached'),
  });
  mixed.hitRate = mixed.hits / Math.max(1, mixed.hits + mixed.misses + mixed.uncached);
  await sampleMemory(ctx);
  return mixed;
}
