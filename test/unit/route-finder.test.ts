/**
 * The route graph and finder on small made-up graphs: the compressed rows, each flag's weighing, avoided
 * systems, the query's connections, the closest-first order and cut-off, and searches one after another
 * on the same finder not seeing each other's state.
 */
import { describe, expect, it } from 'vitest';
import { isHighSec, RouteGraph, type GraphSystem } from '../../src/static-data/routes/route-graph.js';
import { RouteFinder, SECURITY_PENALTY } from '../../src/static-data/routes/route-finder.js';

const sys = (id: number, security: string, name = `S${id}`, system_class = 7): GraphSystem => ({
  solar_system_id: id,
  solar_system_name: name,
  security,
  system_class,
});

/**
 *   1 ─ 2 ─ 3 ─ 4        1–4 through low-sec 2 and 3 (3 jumps), or the high-sec way 1–5–6–7–8–4 (5 jumps)
 *   └ 5 ─ 6 ─ 7 ─ 8 ┘    9 has no stargate; 10 is Thera
 */
function graph(): RouteGraph {
  const systems = [
    sys(4, '0.9'),
    sys(1, '1.0', 'Jita'),
    sys(2, '0.4'),
    sys(3, '0.1'),
    sys(5, '0.5'),
    sys(6, '0.7'),
    sys(7, '0.6'),
    sys(8, '0.8'),
    sys(9, '-0.9'),
    sys(10, '-1.0', 'Thera', 12),
  ];
  const jumps: [number, number][] = [
    [1, 2],
    [2, 1],
    [2, 3],
    [3, 4],
    [1, 5],
    [5, 6],
    [6, 7],
    [7, 8],
    [8, 4],
    [4, 8],
    [99, 1],
    [1, 1],
  ];
  return new RouteGraph(
    systems,
    jumps.map((j) => j[0]),
    jumps.map((j) => j[1]),
  );
}

describe('RouteGraph', () => {
  it('numbers systems in id order and keeps each stargate once per direction, whichever rows list it', () => {
    const g = graph();
    expect([...g.ids]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(g.stargates).toBe(8);
    const neighbours = (id: number) => {
      const i = g.numberOf(id);
      return [...g.targets.slice(g.offsets[i], g.offsets[i + 1])].map((n) => g.ids[n]);
    };
    expect(neighbours(1)).toEqual([2, 5]);
    expect(neighbours(4)).toEqual([3, 8]);
    expect(neighbours(9)).toEqual([]);
    expect(g.numberOf(99)).toBe(-1);
    expect(g.idByName('jita')).toBe(1);
    expect([...g.thera].map((t, i) => (t ? g.ids[i] : 0)).filter(Boolean)).toEqual([10]);
  });

  it('counts high-sec as the game shows it: 0.5 and up', () => {
    expect(['1.0', '0.5', '0.4', '0.0', '-0.5'].map(isHighSec)).toEqual([true, true, false, false, false]);
  });
});

describe('RouteFinder', () => {
  const g = graph();
  const f = new RouteFinder(g);
  const n = (id: number) => g.numberOf(id);
  const route = (flag: 'shortest' | 'secure' | 'insecure', to: number, extra: Partial<Parameters<RouteFinder['closest']>[0]> = {}) =>
    f.closest({ origin: n(1), flag, destinations: [n(to)], count: 1, ...extra })[0];

  it('shortest counts jumps; secure stays in high-sec; insecure prefers low-sec', () => {
    expect(route('shortest', 4)).toEqual({ destination: 4, systems: [1, 2, 3, 4], jumps: 3 });
    expect(route('secure', 4)).toEqual({ destination: 4, systems: [1, 5, 6, 7, 8, 4], jumps: 5 });
    expect(route('insecure', 4)).toEqual({ destination: 4, systems: [1, 2, 3, 4], jumps: 3 });
    // As few low-sec systems as there are ways to: one (3) through high-sec rather than two (2, 3).
    expect(route('secure', 3)).toEqual({ destination: 3, systems: [1, 5, 6, 7, 8, 4, 3], jumps: 6 });
    // Into low-sec when there is no other way: the penalty is a cost, not a wall.
    expect(route('secure', 2)).toEqual({ destination: 2, systems: [1, 2], jumps: 1 });
    expect(SECURITY_PENALTY).toBe(Math.round(Math.exp(0.15 * 50)));
  });

  it('never enters an avoided system, but starts from an avoided origin', () => {
    expect(route('shortest', 4, { avoid: [n(2)] })?.systems).toEqual([1, 5, 6, 7, 8, 4]);
    expect(route('shortest', 4, { avoid: [n(2), n(8)] })).toBeUndefined();
    expect(route('shortest', 4, { avoid: [n(1)] })?.jumps).toBe(3);
    expect(route('shortest', 4, { avoid: [n(4)] })).toBeUndefined();
  });

  it("uses the query's connections both ways, for this query only", () => {
    expect(route('shortest', 9, { connections: [n(9), n(4)] })).toEqual({ destination: 9, systems: [1, 2, 3, 4, 9], jumps: 4 });
    expect(route('shortest', 4, { connections: [n(10), n(1), n(10), n(4)] })?.systems).toEqual([1, 10, 4]);
    expect(route('shortest', 9)).toBeUndefined();
    expect(route('secure', 4)?.systems).toEqual([1, 5, 6, 7, 8, 4]);
  });

  it('answers the count closest destinations, closest first, each once; none for no destination', () => {
    const found = f.closest({ origin: n(1), flag: 'shortest', destinations: [n(4), n(6), n(1), n(9), n(6)], count: 10 });
    expect(found.map((r) => [r.destination, r.jumps])).toEqual([
      [1, 0],
      [6, 2],
      [4, 3],
    ]);
    expect(f.closest({ origin: n(1), flag: 'secure', destinations: [n(4), n(6)], count: 1 }).map((r) => r.destination)).toEqual([6]);
    expect(f.closest({ origin: n(1), flag: 'shortest', destinations: [], count: 3 })).toEqual([]);
    expect(f.closest({ origin: -1, flag: 'shortest', destinations: [n(4)], count: 3 })).toEqual([]);
  });
});
