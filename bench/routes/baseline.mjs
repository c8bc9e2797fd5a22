// The bench's baseline: a bare breadth-first search and a bare Dijkstra search (binary heap of [cost,
// node] arrays) over plain adjacency arrays (number[][]), written the obvious way, with the same jump
// weights as the product's finder (1, or 1808 into a system of the unwanted security).

const PENALTY = 1808;

/** Plain adjacency lists by index, from the rows of solar_systems and solar_system_jumps. */
export function plainGraph(systems, jumps) {
  const index = new Map(systems.map((s, i) => [s.solar_system_id, i]));
  const adj = systems.map(() => []);
  for (const j of jumps) {
    const a = index.get(j.from_solar_system_id);
    const b = index.get(j.to_solar_system_id);
    if (a === undefined || b === undefined) continue;
    if (!adj[a].includes(b)) adj[a].push(b);
    if (!adj[b].includes(a)) adj[b].push(a);
  }
  const high = systems.map((s) => Number(s.security) >= 0.5);
  return { index, adj, high, ids: systems.map((s) => s.solar_system_id) };
}

/** Jumps of the route from `o` to `d` (indices), or -1. */
export function bfs(g, o, d) {
  const prev = new Array(g.adj.length).fill(-2);
  prev[o] = -1;
  const queue = [o];
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head];
    if (u === d) break;
    for (const v of g.adj[u]) {
      if (prev[v] !== -2) continue;
      prev[v] = u;
      queue.push(v);
    }
  }
  return pathLength(prev, d);
}

export function dijkstra(g, o, d, flag) {
  const wantHigh = flag === 'secure';
  const dist = new Array(g.adj.length).fill(Infinity);
  const prev = new Array(g.adj.length).fill(-2);
  const done = new Array(g.adj.length).fill(false);
  dist[o] = 0;
  prev[o] = -1;
  const heap = [[0, o]];
  while (heap.length) {
    const [cost, u] = popMin(heap);
    if (done[u]) continue;
    done[u] = true;
    if (u === d) break;
    for (const v of g.adj[u]) {
      if (done[v]) continue;
      const next = cost + (g.high[v] === wantHigh ? 1 : PENALTY);
      if (next < dist[v]) {
        dist[v] = next;
        prev[v] = u;
        pushHeap(heap, [next, v]);
      }
    }
  }
  return pathLength(prev, d);
}

function pathLength(prev, d) {
  if (prev[d] === -2) return -1;
  let n = 0;
  for (let v = d; prev[v] !== -1; v = prev[v]) n++;
  return n;
}

function pushHeap(heap, item) {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (heap[p][0] <= item[0]) break;
    heap[i] = heap[p];
    i = p;
  }
  heap[i] = item;
}

function popMin(heap) {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length) {
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= heap.length) break;
      if (c + 1 < heap.length && heap[c + 1][0] < heap[c][0]) c++;
      if (heap[c][0] >= last[0]) break;
      heap[i] = heap[c];
      i = c;
    }
    heap[i] = last;
  }
  return top;
}
