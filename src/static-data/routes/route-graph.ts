/**
 * The stargate graph of the static data in compact arrays, built once per process (route-graph-source.ts)
 * and shared by every route search: systems are numbered 0…n-1 in solar system id order, and each
 * system's neighbours are one slice of `targets` (compressed sparse rows: `targets[offsets[i]]` to
 * `targets[offsets[i + 1] - 1]`). Jumps are taken both ways and once each, whatever the rows say.
 */

/** What the graph needs of a solar system. */
export interface GraphSystem {
  solar_system_id: number;
  solar_system_name: string;
  /** The security as the game shows it (one decimal, `sde-derive.ts` formatSecurity), e.g. "0.5". */
  security: string;
  system_class: number;
}

/** Wormhole class of Thera (the reference server tells a Thera system by it). */
export const THERA_CLASS = 12;

/** High-sec as the game counts it for routes: a security shown as 0.5 or more (true security 0.45 and up). */
export function isHighSec(security: string): boolean {
  const value = Number(security);
  return Number.isFinite(value) && value >= 0.5;
}

export class RouteGraph {
  /** Solar system id of each system number, ascending. */
  readonly ids: Int32Array;
  /** Where each system's neighbours start in `targets` (length n + 1). */
  readonly offsets: Int32Array;
  /** Neighbours (system numbers), each system's ascending. */
  readonly targets: Int32Array;
  /** 1 for a high-sec system (security shown ≥ 0.5). */
  readonly highSec: Uint8Array;
  /** 1 for a Thera system (wormhole class 12). */
  readonly thera: Uint8Array;
  /** Stargate jumps, counted once per pair of systems. */
  readonly stargates: number;
  private readonly numbers: Map<number, number>;
  private readonly byName: Map<string, number>;

  constructor(systems: readonly GraphSystem[], from: readonly number[], to: readonly number[]) {
    const sorted = [...systems].sort((a, b) => a.solar_system_id - b.solar_system_id);
    const n = sorted.length;
    this.ids = new Int32Array(n);
    this.highSec = new Uint8Array(n);
    this.thera = new Uint8Array(n);
    this.numbers = new Map();
    this.byName = new Map();
    sorted.forEach((s, i) => {
      this.ids[i] = s.solar_system_id;
      this.highSec[i] = isHighSec(s.security) ? 1 : 0;
      this.thera[i] = s.system_class === THERA_CLASS ? 1 : 0;
      this.numbers.set(s.solar_system_id, i);
      if (!this.byName.has(s.solar_system_name.toLowerCase())) this.byName.set(s.solar_system_name.toLowerCase(), s.solar_system_id);
    });

    // Each pair once per direction: a jump and its reverse, listed or not, are the same stargate.
    const pairs = new Set<number>();
    for (let k = 0; k < from.length; k++) {
      const a = this.numbers.get(from[k]!);
      const b = this.numbers.get(to[k]!);
      if (a === undefined || b === undefined || a === b) continue;
      pairs.add(a * n + b);
      pairs.add(b * n + a);
    }
    const degree = new Int32Array(n + 1);
    for (const p of pairs) degree[Math.floor(p / n) + 1]!++;
    this.offsets = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) this.offsets[i + 1] = this.offsets[i]! + degree[i + 1]!;
    this.targets = new Int32Array(pairs.size);
    const fill = this.offsets.slice(0, n);
    for (const p of [...pairs].sort((x, y) => x - y)) {
      const a = Math.floor(p / n);
      this.targets[fill[a]!++] = p - a * n;
    }
    this.stargates = pairs.size / 2;
  }

  get size(): number {
    return this.ids.length;
  }

  /** The system number of a solar system id, or -1 when the static data has no such system. */
  numberOf(solarSystemId: number): number {
    return this.numbers.get(solarSystemId) ?? -1;
  }

  /** The solar system id of a name (any case), or undefined. */
  idByName(name: string): number | undefined {
    return this.byName.get(name.toLowerCase());
  }
}
