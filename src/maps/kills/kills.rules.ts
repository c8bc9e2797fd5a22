/** Rules of kill imports that need no database. */
import type { KillInput } from './kills.dto.js';
import type { NewKill } from './kill.repository.js';

/**
 * How far in the future a `kill_time` may lie: clocks of a killboard and of this server disagree by a
 * little, never by more. A later time would keep the kill out of retention's reach and ahead of every
 * real kill of its system in systems-kills (which answers the newest), so it is refused.
 */
export const KILL_TIME_MAX_SKEW_MS = 5 * 60_000;

/** A kill time as it is stored: to the second (rounded, as PostgreSQL's timestamptz(0) would). */
export function killTimeStored(time: Date): Date {
  return new Date(Math.round(time.getTime() / 1000) * 1000);
}

/**
 * The refusal of a kill time, or undefined when it may be stored: checked on the time as stored
 * (rounded to the second), so `9999-12-31T23:59:59.999Z` is never stored as the year 10000.
 */
export function killTimeProblem(time: Date, now = Date.now()): string | undefined {
  const stored = killTimeStored(time).getTime();
  if (stored > now + KILL_TIME_MAX_SKEW_MS) return `must not be more than ${KILL_TIME_MAX_SKEW_MS / 60_000} minutes in the future`;
  return undefined;
}

/** The body shapes of an import (one kill, an array, `{kills}`) as a list, with the body path of each kill for error details. */
export function killsOfBody(body: KillInput | KillInput[] | { kills: KillInput[] }): { kills: KillInput[]; fieldPrefix: (index: number) => string } {
  if (Array.isArray(body)) return { kills: body, fieldPrefix: (i) => `[${i}].` };
  if ('kills' in body) return { kills: body.kills, fieldPrefix: (i) => `kills[${i}].` };
  return { kills: [body], fieldPrefix: () => '' };
}

/** The first of each killmail id, in input order. */
export function uniqueKills<K extends { killmailId: number }>(kills: readonly K[]): K[] {
  const seen = new Set<number>();
  return kills.filter((k) => !seen.has(k.killmailId) && seen.add(k.killmailId));
}

/** A killmail of the API (spec 2.6 field names) as the writer takes it. */
export function toNewKill(k: KillInput): NewKill {
  return {
    killmailId: k.killmail_id,
    killTime: killTimeStored(k.kill_time),
    solarSystemId: k.solar_system_id,
    attackerCount: k.attacker_count,
    npc: k.npc,
    totalValue: k.total_value,
    finalBlowAllianceId: k.final_blow_alliance_id ?? null,
    finalBlowCharId: k.final_blow_char_id ?? null,
    finalBlowCorpId: k.final_blow_corp_id ?? null,
    finalBlowShipTypeId: k.final_blow_ship_type_id ?? null,
    finalBlowAllianceTicker: k.final_blow_alliance_ticker ?? null,
    finalBlowCharName: k.final_blow_char_name ?? null,
    finalBlowCorpTicker: k.final_blow_corp_ticker ?? null,
    finalBlowShipName: k.final_blow_ship_name ?? null,
    victimAllianceId: k.victim_alliance_id ?? null,
    victimCharId: k.victim_char_id ?? null,
    victimCorpId: k.victim_corp_id ?? null,
    victimShipTypeId: k.victim_ship_type_id ?? null,
    victimCharName: k.victim_char_name ?? null,
    victimCorpTicker: k.victim_corp_ticker ?? null,
    victimShipName: k.victim_ship_name ?? null,
    zkb: k.zkb,
  };
}

/** GET /api/map/systems-kills without `hours`: the last day. */
export const KILLS_DEFAULT_HOURS = 24;
/** Kills per system in one systems-kills answer (the newest). */
export const KILLS_PER_SYSTEM_MAX = 100;
/** Kills in one systems-kills answer (the newest), about 1 MB of JSON. */
export const KILLS_RESPONSE_MAX = 1000;
