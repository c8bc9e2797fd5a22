/**
 * `POST /route/findClosest`: the routes from a system to the closest destinations of a set, over the
 * stargates and the connections given, computed in this process (the reference server forwards the
 * same request to a route service of its own).
 */
import { AppError, ValidationError } from '../../common/errors.js';
import type { RouteGraph } from './route-graph.js';
import type { RouteGraphSource } from './route-graph-source.js';
import type { DestinationType, FindClosestRequest, FindClosestResponse } from './routes.dto.js';

/** The trade hubs, by name (resolved to ids in the static data that is imported). */
export const TRADE_HUBS = ['Jita', 'Amarr', 'Dodixie', 'Rens', 'Hek'] as const;

/** The system Turnur destinations are linked to (the reference tells it by name). */
export const TURNUR = 'Turnur';

/** 404 `system_not_found` naming the field whose solar system the static data does not know. */
export function unknownSystem(field: string, id: number): AppError {
  return new AppError(404, 'system_not_found', 'System not found', [{ field, message: `${id} is not a solar system of the static data` }]);
}

/** `"a|b"` pairs into system numbers (`[a0, b0, a1, b1, …]`), leaving out pairs with an end the graph does not know. */
export function connectionNumbers(graph: RouteGraph, pairs: readonly string[]): number[] {
  const out: number[] = [];
  for (const pair of pairs) {
    const bar = pair.indexOf('|');
    const a = graph.numberOf(Number(pair.slice(0, bar)));
    const b = graph.numberOf(Number(pair.slice(bar + 1)));
    if (a >= 0 && b >= 0) out.push(a, b);
  }
  return out;
}

/**
 * The systems the connections link to a system of `is` (Thera, Turnur): the other end of each
 * connection with exactly one end there, as the reference picks them.
 */
export function linkedTo(graph: RouteGraph, connections: readonly number[], is: (n: number) => boolean): number[] {
  const out = new Set<number>();
  for (let k = 0; k + 1 < connections.length; k += 2) {
    const a = connections[k]!;
    const b = connections[k + 1]!;
    if (is(a) && !is(b)) out.add(b);
    else if (is(b) && !is(a)) out.add(a);
  }
  return [...out];
}

export class ClosestRoutesService {
  constructor(private readonly graphs: RouteGraphSource) {}

  async findClosest(req: FindClosestRequest): Promise<FindClosestResponse> {
    if ((req.type === undefined) === (req.destinations === undefined)) {
      const field = req.type === undefined ? 'type' : 'destinations';
      throw new ValidationError([{ field, message: 'give either `type` or `destinations`' }]);
    }
    const finder = await this.graphs.finder();
    const graph = finder.graph;
    const origin = graph.numberOf(req.origin);
    if (origin < 0) throw unknownSystem('origin', req.origin);
    const connections = connectionNumbers(graph, req.connections ?? []);
    const destinations = req.type ? this.destinationsOf(graph, req.type, connections) : req.destinations!.map((id) => graph.numberOf(id));
    const routes = finder.closest({
      origin,
      flag: req.flag ?? 'shortest',
      destinations,
      count: req.count ?? 1,
      avoid: (req.avoid ?? []).map((id) => graph.numberOf(id)),
      connections,
    });
    return { routes: routes.map((r) => ({ origin: req.origin, destination: r.destination, systems: r.systems, jumps: r.jumps, success: true })) };
  }

  private destinationsOf(graph: RouteGraph, type: DestinationType, connections: readonly number[]): number[] {
    switch (type) {
      case 'trade_hubs':
        return TRADE_HUBS.map((name) => graph.idByName(name)).flatMap((id) => (id === undefined ? [] : [graph.numberOf(id)]));
      case 'thera':
        return linkedTo(graph, connections, (n) => graph.thera[n] === 1);
      case 'turnur': {
        const turnur = graph.idByName(TURNUR);
        const at = turnur === undefined ? -1 : graph.numberOf(turnur);
        return linkedTo(graph, connections, (n) => n === at);
      }
    }
  }
}
