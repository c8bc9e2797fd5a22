/**
 * Route search over the stargate graph (route-graph.ts) plus the connections of one query, modelled as
 * the game's route planner does: a shortest path where each jump costs 1, except that under `secure`
 * and `insecure` a jump into a system of the unwanted security costs SECURITY_PENALTY. `shortest` is a
 * breadth-first search (every jump costs 1), the others Dijkstra's algorithm on a binary heap. Avoided
 * systems are never entered (the origin is where the route starts, so it is never avoided). The search
 * stops once `count` destinations are settled, so a near destination costs a small part of the graph.
 *
 * No allocation per search but the answer and the query's own connections: the per-system state lives
 * in arrays of the finder, told apart from one search to the next by a search number (`epoch`) instead
 * of being cleared. A finder serves one search at a time (searches are synchronous).
 */
import type { RouteGraph } from './route-graph.js';

export const ROUTE_FLAGS = ['shortest', 'secure', 'insecure'] as const;
/** `shortest`: fewest jumps; `secure`: prefer high-sec (shown security ≥ 0.5); `insecure`: prefer low-sec, null-sec and wormhole space. */
export type RouteFlag = (typeof ROUTE_FLAGS)[number];

/**
 * The cost of one jump into a system the flag does not want, where a wanted one costs 1: the game's
 * route planner charges e^(0.15 × penalty) for leaving its security interval, with the penalty at its
 * default of 50, e^7.5 ≈ 1808. A route enters an unwanted system only where every other way is more
 * than 1808 jumps longer per such system avoided, i.e. where there is no other way.
 */
export const SECURITY_PENALTY = 1808;

export interface RouteSearch {
  /** System number (RouteGraph.numberOf) the routes start from. */
  origin: number;
  flag: RouteFlag;
  /** System numbers the routes may end at. */
  destinations: readonly number[];
  /** How many of the closest destinations to find. */
  count: number;
  /** System numbers never entered (the origin excepted). */
  avoid?: readonly number[];
  /** Connections beyond the stargates, as pairs of system numbers (`[a0, b0, a1, b1, …]`), each usable both ways. */
  connections?: readonly number[];
}

export interface FoundRoute {
  /** Solar system id of the destination. */
  destination: number;
  /** Solar system ids from the origin to the destination, both included. */
  systems: number[];
  /** Jumps (systems.length - 1). */
  jumps: number;
}

export class RouteFinder {
  private epoch = 0;
  /** `dist`/`prev` hold this search's values where `reached` is the epoch. */
  private readonly reached: Uint32Array;
  private readonly settled: Uint32Array;
  private readonly avoided: Uint32Array;
  private readonly goal: Uint32Array;
  private readonly linked: Uint32Array;
  private readonly dist: Int32Array;
  private readonly prev: Int32Array;
  private readonly queue: Int32Array;
  private heapNodes: Int32Array;
  private heapCosts: Int32Array;
  private heapSize = 0;

  constructor(readonly graph: RouteGraph) {
    const n = graph.size;
    this.reached = new Uint32Array(n);
    this.settled = new Uint32Array(n);
    this.avoided = new Uint32Array(n);
    this.goal = new Uint32Array(n);
    this.linked = new Uint32Array(n);
    this.dist = new Int32Array(n);
    this.prev = new Int32Array(n);
    this.queue = new Int32Array(n);
    this.heapNodes = new Int32Array(graph.targets.length + n + 1);
    this.heapCosts = new Int32Array(this.heapNodes.length);
  }

  /** The routes to the `count` closest destinations (fewer when fewer are reachable), closest first. */
  closest(search: RouteSearch): FoundRoute[] {
    const e = this.nextEpoch();
    const n = this.graph.size;
    const { origin } = search;
    if (!(origin >= 0 && origin < n) || search.count < 1) return [];
    for (const a of search.avoid ?? []) if (a >= 0 && a < n && a !== origin) this.avoided[a] = e;
    let goals = 0;
    for (const d of search.destinations) {
      if (d >= 0 && d < n && this.goal[d] !== e && this.avoided[d] !== e) {
        this.goal[d] = e;
        goals++;
      }
    }
    if (goals === 0) return [];
    const extra = this.connectionsOf(search.connections ?? [], e);
    const found =
      search.flag === 'shortest'
        ? this.breadthFirst(origin, Math.min(search.count, goals), extra, e)
        : this.cheapestFirst(search, Math.min(search.count, goals), extra, e);
    return found.map((d) => this.routeTo(d));
  }

  private nextEpoch(): number {
    if (this.epoch === 0xffffffff) {
      for (const a of [this.reached, this.settled, this.avoided, this.goal, this.linked]) a.fill(0);
      this.epoch = 0;
    }
    return ++this.epoch;
  }

  /** The query's connections as neighbour lists of the systems they touch (marked in `linked`). */
  private connectionsOf(pairs: readonly number[], e: number): Map<number, number[]> {
    const extra = new Map<number, number[]>();
    const n = this.graph.size;
    const add = (a: number, b: number) => {
      const list = extra.get(a);
      if (list) list.push(b);
      else extra.set(a, [b]);
      this.linked[a] = e;
    };
    for (let k = 0; k + 1 < pairs.length; k += 2) {
      const a = pairs[k]!;
      const b = pairs[k + 1]!;
      if (a === b || !(a >= 0 && a < n) || !(b >= 0 && b < n)) continue;
      add(a, b);
      add(b, a);
    }
    return extra;
  }

  private breadthFirst(origin: number, want: number, extra: Map<number, number[]>, e: number): number[] {
    const { offsets, targets } = this.graph;
    const { reached, avoided, goal, linked, prev, queue } = this;
    const found: number[] = [];
    reached[origin] = e;
    prev[origin] = -1;
    queue[0] = origin;
    let head = 0;
    let tail = 1;
    while (head < tail) {
      const u = queue[head++]!;
      if (goal[u] === e) {
        found.push(u);
        if (found.length >= want) break;
      }
      for (let k = offsets[u]!, end = offsets[u + 1]!; k < end; k++) {
        const v = targets[k]!;
        if (reached[v] === e || avoided[v] === e) continue;
        reached[v] = e;
        prev[v] = u;
        queue[tail++] = v;
      }
      if (linked[u] === e) {
        for (const v of extra.get(u)!) {
          if (reached[v] === e || avoided[v] === e) continue;
          reached[v] = e;
          prev[v] = u;
          queue[tail++] = v;
        }
      }
    }
    return found;
  }

  private cheapestFirst(search: RouteSearch, want: number, extra: Map<number, number[]>, e: number): number[] {
    const { offsets, targets, highSec } = this.graph;
    const { reached, settled, avoided, goal, linked, dist, prev } = this;
    const wantHigh = search.flag === 'secure' ? 1 : 0;
    const found: number[] = [];
    const origin = search.origin;
    reached[origin] = e;
    dist[origin] = 0;
    prev[origin] = -1;
    this.heapSize = 0;
    this.push(origin, 0);
    const relax = (u: number, cost: number, v: number) => {
      if (settled[v] === e || avoided[v] === e) return;
      const next = cost + (highSec[v] === wantHigh ? 1 : SECURITY_PENALTY);
      if (reached[v] !== e || next < dist[v]!) {
        reached[v] = e;
        dist[v] = next;
        prev[v] = u;
        this.push(v, next);
      }
    };
    while (this.heapSize > 0) {
      const cost = this.heapCosts[0]!;
      const u = this.pop();
      if (settled[u] === e) continue;
      settled[u] = e;
      if (goal[u] === e) {
        found.push(u);
        if (found.length >= want) break;
      }
      for (let k = offsets[u]!, end = offsets[u + 1]!; k < end; k++) relax(u, cost, targets[k]!);
      if (linked[u] === e) for (const v of extra.get(u)!) relax(u, cost, v);
    }
    return found;
  }

  private routeTo(destination: number): FoundRoute {
    const ids = this.graph.ids;
    const systems: number[] = [];
    for (let v = destination; v !== -1; v = this.prev[v]!) systems.push(ids[v]!);
    systems.reverse();
    return { destination: ids[destination]!, systems, jumps: systems.length - 1 };
  }

  private push(node: number, cost: number): void {
    if (this.heapSize === this.heapNodes.length) {
      const nodes = new Int32Array(this.heapNodes.length * 2);
      const costs = new Int32Array(nodes.length);
      nodes.set(this.heapNodes);
      costs.set(this.heapCosts);
      this.heapNodes = nodes;
      this.heapCosts = costs;
    }
    const nodes = this.heapNodes;
    const costs = this.heapCosts;
    let i = this.heapSize++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (costs[parent]! <= cost) break;
      nodes[i] = nodes[parent]!;
      costs[i] = costs[parent]!;
      i = parent;
    }
    nodes[i] = node;
    costs[i] = cost;
  }

  /** Removes and returns the node of the lowest cost (read heapCosts[0] before for its cost). */
  private pop(): number {
    const nodes = this.heapNodes;
    const costs = this.heapCosts;
    const top = nodes[0]!;
    const size = --this.heapSize;
    if (size > 0) {
      const node = nodes[size]!;
      const cost = costs[size]!;
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && costs[child + 1]! < costs[child]!) child++;
        if (costs[child]! >= cost) break;
        nodes[i] = nodes[child]!;
        costs[i] = costs[child]!;
        i = child;
      }
      nodes[i] = node;
      costs[i] = cost;
    }
    return top;
  }
}
