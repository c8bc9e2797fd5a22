/** A route between two systems over the stargates and the map's connections. */
export interface MapRouteDto {
  /** Jumps of the route (systems less one; 0 when origin and destination are the same system). */
  jumps: number;
  /** Solar system ids from `origin` to `to`, both included. */
  systems: number[];
}
