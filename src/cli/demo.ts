import type { Orm } from '../db/orm.js';
import type { ApiServices } from '../api/services.js';
import type { IssuedMapKeyDto } from '../admin/admin.dto.js';
import { dbOf } from '../db/db.js';
import { SolarSystemRepository } from '../static-data/solar-system.repository.js';
import { DEMO_CONNECTIONS, DEMO_KILL_SYSTEMS, DEMO_SIGNATURES, DEMO_SYSTEMS, type DemoSystem } from './demo-chain.js';

export const DEMO_SLUG = 'demo';

const CHARACTERS = [
  { eve_id: '2117000001', name: 'Ava Scout', corporation_id: '98000001', corporation_ticker: 'MAPIN', alliance_id: '99000001', alliance_ticker: 'WHMAP' },
  { eve_id: '2117000002', name: 'Bo Roller', corporation_id: '98000001', corporation_ticker: 'MAPIN', alliance_id: '99000001', alliance_ticker: 'WHMAP' },
  { eve_id: '2117000003', name: 'Cy Hunter', corporation_id: '98000002', corporation_ticker: 'HUNT', alliance_id: null, alliance_ticker: null },
];

/** What seeding writes through: the database and the services the API writes with. */
export type DemoContext = { orm: Orm } & Pick<ApiServices, 'admin' | 'acls' | 'mapContent' | 'mapData' | 'signatures' | 'tokens'>;

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

  // The chain of demo-chain.ts, less the systems the static data lacks; without any of them, the first
  // systems of the static data in a row.
  const solarSystems = new SolarSystemRepository();
  const known = await solarSystems.byIds(
    db,
    DEMO_SYSTEMS.map((s) => s.id),
  );
  let chain: DemoSystem[] = DEMO_SYSTEMS.filter((s) => known.has(s.id));
  if (chain.length < 6) chain = (await solarSystems.firstIds(db, 8)).map((id, i) => ({ id, x: 120 + (i % 4) * 220, y: 80 + Math.floor(i / 4) * 160 }));
  if (chain.length < 2) throw new Error('no static data: run `node dist/cli.js sde import --from DIR|URL` first');
  const ids = chain.map((s) => s.id);
  const onMap = new Set(ids);
  for (const s of chain) {
    await platform.mapContent.addSystem(mapId, {
      solarSystemId: s.id,
      positionX: s.x,
      positionY: s.y,
      status: s.status ?? 0,
      tag: s.tag ?? null,
      customName: s.customName ?? null,
      description: s.description ?? null,
      labels: s.customName ? JSON.stringify({ customLabel: s.customName, labels: ['la'] }) : null,
    });
  }
  const demoId = (position: number) => DEMO_SYSTEMS[position]!.id;
  const links = chain.every((s) => DEMO_SYSTEMS.includes(s)) ? DEMO_CONNECTIONS : [];
  for (const c of links) {
    if (!onMap.has(demoId(c.from)) || !onMap.has(demoId(c.to))) continue;
    await platform.mapContent.addConnection(mapId, {
      solarSystemSource: demoId(c.from),
      solarSystemTarget: demoId(c.to),
      type: c.type ?? 0,
      massStatus: c.mass ?? 0,
      timeStatus: c.time ?? 0,
      shipSizeType: c.size ?? 2,
      wormholeType: c.wh === undefined ? 'K162' : c.wh,
    });
  }
  if (!links.length) {
    for (let i = 0; i + 1 < ids.length; i++) {
      await platform.mapContent.addConnection(mapId, {
        solarSystemSource: ids[i]!,
        solarSystemTarget: ids[i + 1]!,
        type: 0,
        massStatus: i % 3,
        timeStatus: 0,
        shipSizeType: 2,
        wormholeType: 'K162',
      });
    }
  }
  // Signatures through the service the API writes them with, as the map key (attributed to its character).
  const principal = (await platform.tokens.identify(key.api_key)).principal;
  if (principal?.kind === 'map_key') {
    for (const g of DEMO_SIGNATURES) {
      if (onMap.has(demoId(g.system))) await platform.signatures.upsert(principal, mapId, demoId(g.system), { signatures: g.signatures });
    }
  }

  const now = Date.now();
  for (const [i, at] of DEMO_KILL_SYSTEMS.entries()) {
    const sid = onMap.has(demoId(at)) ? demoId(at) : ids[(i + 1) % ids.length]!;
    await platform.mapContent.addKill(mapId, {
      killmailId: 128_000_000 + i,
      killTime: new Date(now - (i + 1) * 23 * 60_000),
      solarSystemId: sid,
      attackerCount: 1 + i * 2,
      npc: i === 7,
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
        npc: i === 7,
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
