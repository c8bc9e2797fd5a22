/** System static information: static facts about one EVE solar system. */
export interface SystemStaticInfoDto {
  /**
   * EVE solar system id.
   * @isInt
   * @example 31000005
   */
  solar_system_id: number;
  /**
   * Triglavian invasion status: "Normal", or "Final" (Pochven), "Edencom", "Triglavian".
   * @example "Normal"
   */
  triglavian_invasion_status: string;
  /**
   * System name.
   * @example "Thera"
   */
  solar_system_name: string;
  /**
   * System name in lower case.
   * @example "thera"
   */
  solar_system_name_lc: string;
  /**
   * Wormhole class id: -1, 10, 11, 24 CCP; 1–6 C1–C6; 7 high-sec; 8 low-sec; 9 null-sec; 12 Thera;
   * 13 shattered frigate; 14–18 Drifter; 19–23 Abyssal; 25 Pochven; 10100 Zarzakh.
   * @isInt
   * @example 12
   */
  system_class: number;
  /**
   * Short class label: the security text for high-, low- and null-sec ("0.9"), else the class short name ("C5", "T").
   * @example "T"
   */
  class_title: string;
  /**
   * Class description, e.g. "High-sec", "Class 5", "Class 12 (Thera)".
   * @example "Class 12 (Thera)"
   */
  type_description: string;
  /**
   * Region id.
   * @isInt
   * @example 11000031
   */
  region_id: number;
  /**
   * Region name.
   * @example "G-R00031"
   */
  region_name: string;
  /**
   * Constellation id.
   * @isInt
   * @example 21000324
   */
  constellation_id: number;
  /**
   * Constellation name.
   * @example "G-C00324"
   */
  constellation_name: string;
  /**
   * Security as shown in game: one decimal, as text ("0.9", "0.1", "0.0", "-0.4").
   * @example "-1.0"
   */
  security: string;
  /**
   * Whether the system is in a shattered constellation.
   * @example false
   */
  is_shattered: boolean;
  /**
   * System effect (e.g. "Pulsar", "Black Hole"), or null when none.
   * @example null
   */
  effect_name: string | null;
  /**
   * Strength of the effect for the class (0 outside wormhole space).
   * @isInt
   * @example 0
   */
  effect_power: number;
  /**
   * Static wormhole type codes.
   * @example ["E587", "Q063", "V898"]
   */
  statics: string[];
  /**
   * Wandering wormhole type codes.
   * @example []
   */
  wandering: string[];
  /** One entry per static, in `statics` order: where it leads and its mass and lifetime. */
  static_details: StaticDetailDto[];
  /**
   * Type id of the system's star (0 when it has none).
   * @isInt
   * @example 34331
   */
  sun_type_id: number;
}

/** Where a static wormhole leads and what it carries, as the reference server details it. */
export interface StaticDetailDto {
  /** Wormhole type code, e.g. `C729`. */
  name: string;
  destination: StaticDestinationDto;
  properties: StaticPropertiesDto;
}

/**
 * The class a static leads to: its first destination by `id`, `name` and `short_name` (null, `Unknown`
 * and `?` for a type the static data does not know), and every destination class id in `destinations`
 * (several for a multi-destination static such as C729).
 */
export interface StaticDestinationDto {
  id: string | null;
  name: string;
  short_name: string;
  /** @example ["hs", "ls", "ns", "pochven"] */
  destinations: string[];
}

export interface StaticPropertiesDto {
  /** Lifetime in hours, as the static data writes it (e.g. `16`, `4.5`). */
  lifetime: string | null;
  /** Total mass in kg. */
  max_mass: number | null;
  /** Largest mass per jump in kg. */
  max_jump_mass: number | null;
  /** Mass regenerated in kg. */
  mass_regeneration: number | null;
}
