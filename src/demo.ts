import type { Orm } from './db/orm.js';
import type { ApiServices } from './api/services.js';
import type { IssuedMapKeyDto } from './admin/admin.dto.js';
import { dbOf } from './db/db.js';
import { SolarSystemRepository } from './static-data/solar-system.repository.js';

export const DEMO_SLUG = 'demo';

/** Well-known systems the demo prefers: Jita, Amarr, Thera, a few J-space systems, Tama, a null-sec system. */
const PREFERRED = [30000142, 31000005, 30002187, 30002813, 31002238, 31000001, 31002487, 31001554, 30001372, 30004759];

const CHARACTERS = [
  { eve_id: '2117000001', name: 'Ava Scout', corporation_id: '98000001', corporation_ticker: 'MAPIN', alliance_id: '99000001', alliance_ticker: 'WHMAP' },
  { eve_id: '2117000002', name: 'Bo Roller', corporation_id: '98000001', corporation_ticker: 'MAPIN', alliance_id: '99000001', alliance_ticker: 'WHMAP' },
  { eve_id: '2117000003', name: 'Cy Hunter', corporation_id: '98000002', corporation_ticker: 'HUNT', alliance_id: null, alliance_ticker: null },
];

/** What seeding writes through: the database and the services the API writes with. */
export type DemoContext = { orm: Orm } & Pick<ApiServices, 'admin' | 'acls' | 'mapContent' | 'mapData'>;

export interface DemoResult {
  mapId: string;
  slug: string;
  apiKey: string;
  aclId: string;
  aclKey: string;
  created: boolean;
}

/**
 * Seeds (once) a demo map with real systems from the static data, connections, tracked characters,
 * kills, structure timers, activity and an ACL; on later runs it leaves the map as it is and issues a
 * fresh key (keys are shown only once).
 */
export async function seedDemo(platform: DemoContext): Promise<DemoResult> {
  const db = dbOf(platform.orm);
  const existing = (await platform.admin.listMaps()).find((m) => m.slug === DEMO_SLUG);
  if (existing) {
    const key = await platform.admin.issueKey(DEMO_SLUG, { character_eve_id: CHARACTERS[0]!.eve_id, name: 'demo' });
    const acls = await platform.mapData.acls({ kind: 'map_key', keyId: key.id, mapId: existing.id, characterId: '' }, { map_id: existing.id });
    const aclId = acls[0]?.id ?? '';
    const aclKey = aclId ? (await platform.acls.get({ kind: 'acl_key', aclId }, aclId)).api_key : '';
    return { mapId: existing.id, slug: DEMO_SLUG, apiKey: key.api_key, aclId, aclKey, created: false };
  }

  const user = await platform.admin.createUser('Demo Pilot');
  for (const [i, c] of CHARACTERS.entries()) {
    await platform.admin.upsertCharacter({ ...c, user_id: i < 2 ? user.id : null });
  }
  await platform.admin.setMainCharacter(user.id, CHARACTERS[0]!.eve_id);
  const created = await platform.admin.createMap({
    slug: DEMO_SLUG,
    name: 'Demo chain',
    description: 'A wormhole chain seeded by mapintel demo',
    owner_eve_id: CHARACTERS[0]!.eve_id,
  });
  const mapId = created.map.id;
  const key: IssuedMapKeyDto = created.api_key;
  for (const c of CHARACTERS) await platform.admin.setTracking(mapId, c.eve_id, true);

  const solarSystems = new SolarSystemRepository();
  const known = await solarSystems.byIds(db, PREFERRED);
  let ids = PREFERRED.filter((id) => known.has(id));
  if (ids.length < 6) ids = [...new Set([...ids, ...(await solarSystems.firstIds(db, 8))])];
  if (ids.length < 2) throw new Error('no static data: run `node dist/cli.js sde import --from DIR|URL` first');
  ids = ids.slice(0, 8);

  for (const [i, sid] of ids.entries()) {
    await platform.mapContent.addSystem(mapId, {
      solarSystemId: sid,
      positionX: 120 + (i % 4) * 220,
      positionY: 80 + Math.floor(i / 4) * 160,
      status: i === 0 ? 1 : i === ids.length - 1 ? 5 : 0,
      tag: i === 0 ? 'HOME' : null,
      labels: i === 1 ? JSON.stringify({ customLabel: 'Static', labels: ['la'] }) : null,
      description: i === 0 ? 'Home system' : null,
    });
  }
  const wormholes = ['K162', 'B274', 'E545', 'N110', 'H296', 'Q003', 'D382'];
  for (let i = 0; i + 1 < ids.length; i++) {
    await platform.mapContent.addConnection(mapId, {
      solarSystemSource: ids[i]!,
      solarSystemTarget: ids[i + 1]!,
      type: 0,
      massStatus: i % 3,
      timeStatus: i === 2 ? 1 : 0,
      shipSizeType: 2,
      wormholeType: wormholes[i % wormholes.length]!,
    });
  }

  const now = Date.now();
  for (let i = 0; i < 6; i++) {
    const sid = ids[(i + 1) % ids.length]!;
    await platform.mapContent.addKill(mapId, {
      killmailId: 128_000_000 + i,
      killTime: new Date(now - (i + 1) * 37 * 60_000),
      solarSystemId: sid,
      attackerCount: 1 + i * 2,
      npc: i === 5,
      totalValue: 12_500_000 * (i + 1),
      finalBlowAllianceId: 99000001,
      finalBlowCharId: 2117000002,
      finalBlowCorpId: 98000001,
      finalBlowShipTypeId: 17715,
      finalBlowAllianceTicker: 'WHMAP',
      finalBlowCharName: 'Bo Roller',
      finalBlowCorpTicker: 'MAPIN',
      finalBlowShipName: 'Gila',
      victimAllianceId: i % 2 ? null : 99000777,
      victimCharId: 2117100000 + i,
      victimCorpId: 98000777,
      victimShipTypeId: 11188,
      victimCharName: `Unlucky ${i + 1}`,
      victimCorpTicker: 'OOPS',
      victimShipName: 'Anathema',
      zkb: {
        awox: false,
        destroyedValue: 9_000_000 * (i + 1),
        droppedValue: 3_500_000 * (i + 1),
        fittedValue: 8_000_000 * (i + 1),
        hash: `demohash${i}`,
        labels: i === 0 ? ['solo', 'pvp'] : ['pvp'],
        locationID: 40_000_000 + i,
        npc: i === 5,
        points: 10 + i,
        solo: i === 0,
        totalValue: 12_500_000 * (i + 1),
      },
    });
  }

  await platform.mapContent.addStructure(mapId, {
    solarSystemId: ids[1]!,
    structureTypeId: '35832',
    structureType: 'Astrahus',
    name: 'Hostile Astrahus',
    status: 'Reinforced',
    endTime: new Date(now + 26 * 3600_000),
    characterEveId: CHARACTERS[2]!.eve_id,
    ownerName: 'Oops Corp',
    ownerTicker: 'OOPS',
    notes: 'Armor timer',
  });
  await platform.mapContent.addStructure(mapId, {
    solarSystemId: ids[2]!,
    structureTypeId: '35833',
    structureType: 'Fortizar',
    name: 'Anchoring Fortizar',
    status: 'Anchoring',
    endTime: new Date(now + 5 * 3600_000),
  });

  for (const [i, c] of CHARACTERS.entries()) {
    await platform.mapContent.recordActivity(mapId, {
      characterEveId: c.eve_id,
      passages: 12 - i * 3,
      connections: 4 - i,
      signatures: 20 - i * 5,
      at: new Date(now - i * 3600_000),
    });
  }

  const acl = await platform.acls.create(mapId, { name: 'Demo ACL', description: 'Who may see the demo chain', owner_eve_id: CHARACTERS[0]!.eve_id });
  await platform.acls.addMember({ kind: 'acl_key', aclId: acl.id }, acl.id, { eve_character_id: CHARACTERS[1]!.eve_id, role: 'manager' });
  await platform.acls.addMember({ kind: 'acl_key', aclId: acl.id }, acl.id, { eve_corporation_id: '98000001', role: 'member' });

  return { mapId, slug: DEMO_SLUG, apiKey: key.api_key, aclId: acl.id, aclKey: acl.api_key, created: true };
}
