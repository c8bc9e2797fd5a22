/**
 * Pure derivation of the `solar_systems` rows from the parsed static data (decisions §9).
 * No I/O here: sde-source.ts reads and validates the files, sde-importer.ts writes the rows.
 */

/** A problem in the static data, located by file (path or URL) and, when known, line or entry. */
export class StaticDataError extends Error {
  constructor(
    public readonly file: string,
    public readonly location: string | undefined,
    problem: string,
  ) {
    super(`${file}${location ? ` ${location}` : ''}: ${problem}`);
    this.name = 'StaticDataError';
  }
}

/** One row of sde/mapSolarSystems.csv. */
export interface SdeSolarSystem {
  solarSystemId: number;
  solarSystemName: string;
  regionId: number;
  constellationId: number;
  trueSecurity: number;
  sunTypeId: number;
  /** Line in the CSV, for error messages. */
  line: number;
}

/** One entry of wormholes/wormholeClasses.json. */
export interface WormholeClass {
  wormholeClassId: number;
  shortName: string;
  title: string;
  /** 0 when the file gives none. */
  effectPower: number;
}

/** One entry of wormholes/wormholeSystems.json. */
export interface WormholeSystem {
  solarSystemId: number;
  statics: string[];
  wanderers: string[];
  effectName: string | null;
}

/** One entry of wormholes/triglavianSystems.json. */
export interface TriglavianSystem {
  solarSystemId: number;
  /** Only Pochven systems carry statics; absent means "keep the wormhole statics". */
  statics: string[] | undefined;
  effectName: string | null;
  effectPower: number;
  invasionStatus: string;
}

/** Everything the derivation needs, already parsed and type-checked. */
export interface StaticDataInput {
  /** File the systems came from, for error messages. */
  systemsFile: string;
  systems: SdeSolarSystem[];
  constellations: ReadonlyMap<number, string>;
  regions: ReadonlyMap<number, string>;
  /** locationID (system, constellation or region) → wormholeClassID. */
  locationClasses: ReadonlyMap<number, number>;
  wormholeClasses: readonly WormholeClass[];
  wormholeSystems: readonly WormholeSystem[];
  triglavianSystems: readonly TriglavianSystem[];
  shatteredConstellations: ReadonlySet<number>;
}

/** One `solar_systems` row, column names as in the table. */
export interface SolarSystemRow {
  solar_system_id: number;
  solar_system_name: string;
  solar_system_name_lc: string;
  region_id: number;
  region_name: string;
  constellation_id: number;
  constellation_name: string;
  true_security: number;
  security: string;
  system_class: number;
  class_title: string;
  type_description: string;
  effect_name: string | null;
  effect_power: number;
  statics: string[];
  wandering: string[];
  sun_type_id: number;
  triglavian_invasion_status: string;
  is_shattered: boolean;
}

export const ZARZAKH_SYSTEM_ID = 30100000;
export const ZARZAKH_CLASS = 10100;
/** System class when no location level has an entry (the reference's fallback, "CCP"). */
export const UNKNOWN_CLASS = -1;
/** High-sec, low-sec and null-sec: their class title is the security text. */
const KNOWN_SPACE_CLASSES: ReadonlySet<number> = new Set([7, 8, 9]);
const NORMAL_INVASION_STATUS = 'Normal';

/**
 * The security as EVE displays it: one decimal, half rounded up (toward +∞), except that
 * 0 < true security < 0.05 shows as "0.1" (any positive security is low-sec, never "0.0"; EVE developer
 * docs "System Security" and the reference mapper agree). Negative zero prints "0.0".
 */
export function formatSecurity(trueSecurity: number): string {
  if (trueSecurity > 0 && trueSecurity < 0.05) return '0.1';
  // toPrecision(12) drops binary noise (e.g. 0.15 * 10 = 1.4999…) so ties round as the decimal text reads.
  const tenths = Math.round(Number((trueSecurity * 10).toPrecision(12)));
  return ((tenths === 0 ? 0 : tenths) / 10).toFixed(1);
}

/** wormholeClassID of a system: its own entry, else its constellation's, else its region's; Zarzakh is forced. */
export function resolveSystemClass(system: SdeSolarSystem, locationClasses: ReadonlyMap<number, number>): number {
  if (system.solarSystemId === ZARZAKH_SYSTEM_ID) return ZARZAKH_CLASS;
  return locationClasses.get(system.solarSystemId) ?? locationClasses.get(system.constellationId) ?? locationClasses.get(system.regionId) ?? UNKNOWN_CLASS;
}

/**
 * Turns the parsed static data into one row per solar system (decisions §9).
 * Wormhole data (statics, wanderers, effect) applies to systems listed in wormholeSystems.json, with
 * effect_power the class's effectPower whether or not the system has an effect (the reference mapper);
 * triglavianSystems.json then overrides the invasion status and effect, and the statics when it has them.
 * Throws StaticDataError for a system whose constellation, region or class is unknown.
 */
export function deriveSolarSystems(input: StaticDataInput): SolarSystemRow[] {
  const classes = new Map(input.wormholeClasses.map((c) => [c.wormholeClassId, c]));
  const wormholes = new Map(input.wormholeSystems.map((w) => [w.solarSystemId, w]));
  const triglavian = new Map(input.triglavianSystems.map((t) => [t.solarSystemId, t]));

  return input.systems.map((system) => {
    const fail = (problem: string): never => {
      throw new StaticDataError(input.systemsFile, `line ${system.line}`, `solar system ${system.solarSystemId}: ${problem}`);
    };
    const constellationName = input.constellations.get(system.constellationId) ?? fail(`unknown constellationID ${system.constellationId}`);
    const regionName = input.regions.get(system.regionId) ?? fail(`unknown regionID ${system.regionId}`);
    const systemClass = resolveSystemClass(system, input.locationClasses);
    const wormholeClass = classes.get(systemClass) ?? fail(`wormhole class ${systemClass} is not in wormholeClasses.json`);
    const security = formatSecurity(system.trueSecurity);

    const row: SolarSystemRow = {
      solar_system_id: system.solarSystemId,
      solar_system_name: system.solarSystemName,
      solar_system_name_lc: system.solarSystemName.toLowerCase(),
      region_id: system.regionId,
      region_name: regionName,
      constellation_id: system.constellationId,
      constellation_name: constellationName,
      true_security: system.trueSecurity,
      security,
      system_class: systemClass,
      class_title: KNOWN_SPACE_CLASSES.has(systemClass) ? security : wormholeClass.shortName,
      type_description: wormholeClass.title,
      effect_name: null,
      effect_power: 0,
      statics: [],
      wandering: [],
      sun_type_id: system.sunTypeId,
      triglavian_invasion_status: NORMAL_INVASION_STATUS,
      is_shattered: input.shatteredConstellations.has(system.constellationId),
    };

    const wormhole = wormholes.get(system.solarSystemId);
    if (wormhole) {
      row.effect_name = wormhole.effectName;
      row.effect_power = wormholeClass.effectPower;
      row.statics = [...wormhole.statics];
      row.wandering = [...wormhole.wanderers];
    }
    const trig = triglavian.get(system.solarSystemId);
    if (trig) {
      row.triglavian_invasion_status = trig.invasionStatus;
      row.effect_name = trig.effectName;
      row.effect_power = trig.effectPower;
      if (trig.statics) row.statics = [...trig.statics];
    }
    return row;
  });
}
