import type { RouteFlag } from './route-finder.js';

/**
 * A solar system id.
 * @isInt
 * @minimum 0
 * @maximum 2147483647
 */
export type RouteSystemId = number;

/**
 * A connection between two solar systems, `"<id>|<id>"` as the reference server's map sends them
 * (usually both orientations; either one is enough: each is used both ways).
 * @pattern ^[0-9]{1,10}\|[0-9]{1,10}$
 * @example "31000005|30002813"
 */
export type SystemPair = string;

/**
 * Destination sets of `POST /route/findClosest`: `trade_hubs` are Jita, Amarr, Dodixie, Rens and Hek;
 * `thera` the systems the given connections link to Thera, `turnur` those they link to Turnur.
 */
export type DestinationType = 'trade_hubs' | 'thera' | 'turnur';

/** The reference server's route finder request (`type` or `destinations` names where the routes may end). */
export interface FindClosestRequest {
  /** Solar system id the routes start from. */
  origin: RouteSystemId;
  /** `shortest` (default): fewest jumps; `secure`: prefer high-sec; `insecure`: prefer low-sec, null-sec and wormhole space. */
  flag?: RouteFlag;
  /**
   * Wormhole (or any other) connections usable besides the stargates, each both ways; ids the static
   * data does not know are left out.
   * @maxItems 5000
   */
  connections?: SystemPair[];
  /**
   * Solar system ids never entered (the origin excepted); ids the static data does not know are left out.
   * @maxItems 1000
   */
  avoid?: RouteSystemId[];
  /**
   * How many of the closest destinations to answer (default 1).
   * @isInt
   * @minimum 1
   * @maximum 10
   */
  count?: number;
  /** The destination set; give `type` or `destinations`. */
  type?: DestinationType;
  /**
   * Solar system ids the routes may end at, instead of a `type` (for the reference's other sets, such as
   * loot buyers, which the static data does not hold).
   * @minItems 1
   * @maxItems 100
   */
  destinations?: RouteSystemId[];
}

/** One route of a findClosest answer. */
export interface ClosestRouteDto {
  /** The request's origin. */
  origin: number;
  /** Solar system id the route ends at. */
  destination: number;
  /** Solar system ids from the origin to the destination, both included. */
  systems: number[];
  /** Jumps of the route (systems less one). */
  jumps: number;
  /** Always true: a destination without a route is not listed. */
  success: boolean;
}

/** The closest destinations, closest first (fewer than `count` when fewer are reachable; none is 200 with `[]`). */
export interface FindClosestResponse {
  routes: ClosestRouteDto[];
}
