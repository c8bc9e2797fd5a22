/**
 * Factories over the service layer: tests build maps and their content the way the product does.
 */
import { dbOf } from '../../src/db/db.js';
import type { Platform } from './app.js';
import type { NewKill } from '../../src/maps/kills/kill.repository.js';
import { importStaticData } from '../../src/static-data/sde-importer.js';
import path from 'node:path';

export const FIXTURE_SDE = path.resolve(import.meta.dirname, '../../assets/eve-static-sample');

let seq = 0;
const next = () => ++seq + Math.floor(Math.random() * 1000) * 1000;

export async function importFixture(p: Platform): Promise<void> {
  await importStaticData(dbOf(p.orm), FIXTURE_SDE, {});
}

export interface CharacterInput {
  eve_id?: string;
  name?: string;
  corporation_id?: string;
  corporation_ticker?: string;
  alliance_id?: string | null;
  alliance_ticker?: string | null;
  user_id?: string | null;
}

export async function makeCharacter(p: Platform, overrides: CharacterInput = {}) {
  const n = next();
  return p.admin.upsertCharacter({
    eve_id: overrides.eve_id ?? String(2_100_000_000 + n),
    name: overrides.name ?? `Pilot ${n}`,
    corporation_id: overrides.corporation_id ?? '98000001',
    corporation_ticker: overrides.corporation_ticker ?? 'CORP',
    alliance_id: overrides.alliance_id === undefined ? '99000001' : overrides.alliance_id,
    alliance_ticker: overrides.alliance_ticker === undefined ? 'ALLY' : overrides.alliance_ticker,
    ...(overrides.user_id !== undefined ? { user_id: overrides.user_id } : {}),
  });
}

/** A map owned by a new character; returns the map and its first key. */
export async function makeMap(p: Platform, overrides: { slug?: string; name?: string; ownerEveId?: string } = {}) {
  const owner = overrides.ownerEveId ? { eve_id: overrides.ownerEveId } : await makeCharacter(p);
  const n = next();
  const created = await p.admin.createMap({
    slug: overrides.slug ?? `map-${n}`,
    name: overrides.name ?? `Map ${n}`,
    owner_eve_id: owner.eve_id,
  });
  return { map: created.map, key: created.api_key.api_key, ownerEveId: owner.eve_id };
}

export async function makeSystem(
  p: Platform,
  mapId: string,
  solarSystemId: number,
  overrides: Parameters<Platform['mapContent']['addSystem']>[1] extends infer T ? Partial<T> : never = {},
) {
  return p.mapContent.addSystem(mapId, { solarSystemId, ...overrides });
}

export async function makeConnection(p: Platform, mapId: string, source: number, target: number, overrides: Record<string, unknown> = {}) {
  return p.mapContent.addConnection(mapId, { solarSystemSource: source, solarSystemTarget: target, ...overrides });
}

export function killInput(solarSystemId: number, overrides: Partial<NewKill> = {}): NewKill {
  const id = overrides.killmailId ?? 100_000_000 + next();
  return {
    killmailId: id,
    killTime: new Date(Date.now() - 3600_000),
    solarSystemId,
    attackerCount: 3,
    npc: false,
    totalValue: 150_000_000.5,
    finalBlowAllianceId: 99000001,
    finalBlowCharId: 2112000001,
    finalBlowCorpId: 98000001,
    finalBlowShipTypeId: 17715,
    finalBlowAllianceTicker: 'ALLY',
    finalBlowCharName: 'Killer',
    finalBlowCorpTicker: 'CORP',
    finalBlowShipName: 'Gila',
    victimAllianceId: null,
    victimCharId: 2112000002,
    victimCorpId: 98000002,
    victimShipTypeId: 11188,
    victimCharName: 'Victim',
    victimCorpTicker: 'VICT',
    victimShipName: 'Anathema',
    zkb: {
      awox: false,
      destroyedValue: 100_000_000,
      droppedValue: 50_000_000.5,
      fittedValue: 120_000_000,
      hash: 'abc123',
      labels: ['pvp', 'solo'],
      locationID: 40000001,
      npc: false,
      points: 12,
      solo: true,
      totalValue: 150_000_000.5,
    },
    ...overrides,
  };
}

export async function makeKill(p: Platform, mapId: string, solarSystemId: number, overrides: Partial<NewKill> = {}) {
  const input = killInput(solarSystemId, overrides);
  await p.mapContent.addKill(mapId, input);
  return input;
}
