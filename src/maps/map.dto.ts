/**
 * API models of map data (spec section 2). Field names and types are the public contract.
 * Timestamps: ISO 8601 UTC with microseconds (`2026-01-02T03:04:05.123456Z`) unless stated.
 */

/** A solar system placed on a map (spec 2.1). */
export interface SystemDto {
  /** Record id. @format uuid */
  id: string;
  /** Solar system name. */
  name: string;
  /** 0 clear, 1 home, 2 friendly, 3 looking_for, 4 warning, 5 target, 6 dangerous. @isInt */
  status: number;
  tag: string | null;
  /** Hidden systems (deleted through the editing API) have `visible: false`. */
  visible: boolean;
  description: string | null;
  /** JSON-encoded labels value, as stored. */
  labels: string | null;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
  locked: boolean;
  /** Identifier of the solar system. @isInt */
  solar_system_id: number;
  /** @format uuid */
  map_id: string;
  custom_name: string | null;
  /** Map canvas coordinate. @isInt */
  position_x: number;
  /** Map canvas coordinate. @isInt */
  position_y: number;
}

/** A connection between two systems of a map (spec 2.3). */
export interface ConnectionDto {
  /** @format uuid */
  id: string;
  /** 0 wormhole, 1 stargate, 2 jump bridge. @isInt */
  type: number;
  /** 0 normal (> 50 %), 1 half (< 50 %), 2 critical (< 10 %). @isInt */
  mass_status: number;
  /** 0 small, 1 medium, 2 large, 3 freighter, 4 capital. @isInt */
  ship_size_type: number;
  /** 0 normal, 1 EOL 1 h, 2 EOL 4 h, 3 EOL 4.5 h, 4 EOL 16 h, 5 EOL 24 h, 6 EOL 48 h. @isInt */
  time_status: number;
  /** @format uuid */
  map_id: string;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
  /** @isInt */
  solar_system_source: number;
  /** @isInt */
  solar_system_target: number;
  /** Wormhole type code such as K162, or null. */
  wormhole_type: string | null;
}

/** Public form of a character (spec 2.4). */
export interface CharacterDto {
  /** External character id (the identifier used in ACL operations). */
  eve_id: string;
  name: string;
  corporation_id: string;
  corporation_ticker: string;
  alliance_id: string | null;
  alliance_ticker: string | null;
}

/** A character tracked on a map (spec 2.5). */
export interface TrackedCharacterDto {
  /** @format uuid */
  id: string;
  character: CharacterDto;
  tracked: boolean;
  /** @format uuid */
  map_id: string;
}

/** zKillboard metadata of a kill. */
export interface ZkbDto {
  awox: boolean;
  destroyedValue: number;
  droppedValue: number;
  fittedValue: number;
  hash: string;
  labels: string[];
  /** @isInt */
  locationID: number;
  npc: boolean;
  /** @isInt */
  points: number;
  solo: boolean;
  totalValue: number;
}

/** One killmail (spec 2.6). */
export interface KillDto {
  /** @isInt */
  killmail_id: number;
  /** ISO 8601 UTC, seconds precision. */
  kill_time: string;
  /** @isInt */
  solar_system_id: number;
  /** @isInt */
  attacker_count: number;
  npc: boolean;
  total_value: number;
  /** @isInt */
  final_blow_alliance_id: number | null;
  /** @isInt */
  final_blow_char_id: number | null;
  /** @isInt */
  final_blow_corp_id: number | null;
  /** @isInt */
  final_blow_ship_type_id: number | null;
  final_blow_alliance_ticker: string | null;
  final_blow_char_name: string | null;
  final_blow_corp_ticker: string | null;
  final_blow_ship_name: string | null;
  /** @isInt */
  victim_alliance_id: number | null;
  /** @isInt */
  victim_char_id: number | null;
  /** @isInt */
  victim_corp_id: number | null;
  /** @isInt */
  victim_ship_type_id: number | null;
  victim_char_name: string | null;
  victim_corp_ticker: string | null;
  victim_ship_name: string | null;
  zkb: ZkbDto;
}

/** Kills of one visible system, newest first (spec 2.6). */
export interface SystemKillsDto {
  /** @isInt */
  solar_system_id: number;
  kills: KillDto[];
}

/** Activity counters of one user (or a character without user), summed (spec 2.7). */
export interface CharacterActivityDto {
  character: CharacterDto;
  /** @isInt */
  passages: number;
  /** @isInt */
  connections: number;
  /** @isInt */
  signatures: number;
  /** Time of the group's latest counted activity, ISO 8601 UTC, seconds precision. */
  timestamp: string;
}

/** The characters of one user tracked on the map (spec 2.8). */
export interface UserCharactersDto {
  characters: CharacterDto[];
  /** eve_id of the user's main character; null when none is set. */
  main_character_eve_id: string | null;
}

/** A structure timer (decisions §4). */
export interface StructureTimerDto {
  /** @format uuid */
  id: string;
  /** Map system record id. @format uuid */
  system_id: string;
  /** @isInt */
  solar_system_id: number;
  solar_system_name: string;
  structure_type_id: string;
  structure_type: string;
  character_eve_id: string | null;
  name: string;
  notes: string | null;
  owner_name: string | null;
  owner_ticker: string | null;
  owner_id: string | null;
  /** Powered, Anchoring, Unanchoring, Low Power, Abandoned or Reinforced. */
  status: string;
  /** ISO 8601 UTC, microseconds; null when no timer is set. */
  end_time: string | null;
  /** ISO 8601 UTC, microseconds. */
  inserted_at: string;
  /** ISO 8601 UTC, microseconds. */
  updated_at: string;
}

export interface DataResponse<T> {
  data: T;
}
