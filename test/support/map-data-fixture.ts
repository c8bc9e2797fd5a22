/**
 * The map-data tests' fixture: a server with the static data and two maps (A and B) holding systems,
 * connections, users and characters, kills, structures, activity and ACLs, and a third map with
 * Carol's activity. Every map-data-*.test.ts file starts one of its own.
 */
import { startTestServer } from './app.js';
import { importFixture, killInput, makeCharacter, makeConnection, makeKill, makeMap, makeSystem } from './factories.js';
import { DAY, HOUR, type Character, type Json } from './map-data-shapes.js';

export async function startMapData() {
  const sys = {} as Record<'jita' | 'j152820' | 'thera' | 'jitaB', string>;
  const conn = {} as Record<'wormhole' | 'stargate' | 'other', string>;
  const ch = {} as Record<'main' | 'alt' | 'bob' | 'loner' | 'other' | 'carolMain' | 'carolAlt', Character>;
  const kills = {} as Record<'recent' | 'older' | 'oldest' | 'hidden' | 'offMap' | 'otherMap', ReturnType<typeof killInput>>;
  const structures = {} as Record<'fortizar' | 'astrahus' | 'raitaru', string>;
  const structureEnd = {} as Record<'fortizar' | 'astrahus' | 'raitaru', Date>;
  const acl = {} as Record<'friends' | 'corp', { id: string; inserted_at: string; updated_at: string }>;
  const at = {} as Record<'early' | 'late' | 'threeDaysAgo' | 'tenDaysAgo', Date>;

  const t = await startTestServer({ env: { SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
  await importFixture(t.platform);
  const p = t.platform;

  const a = await makeMap(p);
  const key = a.key;
  const mapId = a.map.id;
  const slug = a.map.slug;
  const b = await makeMap(p);
  const keyB = b.key;
  const mapIdB = b.map.id;
  const slugB = b.map.slug;

  // Systems: two visible, one hidden on map A; Jita also on map B.
  sys.jita = await makeSystem(p, mapId, 30000142, {
    positionX: 10,
    positionY: -20,
    tag: 'HQ',
    status: 1,
    description: 'trade hub',
    labels: '["market"]',
    customName: 'Home',
    locked: true,
  });
  sys.j152820 = await makeSystem(p, mapId, 31001880, { positionX: 300, positionY: 40 });
  sys.thera = await makeSystem(p, mapId, 31000005, { visible: false });
  sys.jitaB = await makeSystem(p, mapIdB, 30000142);

  conn.wormhole = await makeConnection(p, mapId, 30000142, 31001880, {
    type: 0,
    massStatus: 1,
    timeStatus: 2,
    shipSizeType: 3,
    wormholeType: 'H296',
  });
  conn.stargate = await makeConnection(p, mapId, 31001880, 31000005, { type: 1 });
  conn.other = await makeConnection(p, mapIdB, 30000142, 31000005);

  // Users and characters.
  const alice = await p.admin.createUser('Alice');
  const bob = await p.admin.createUser('Bob');
  ch.main = await makeCharacter(p, { name: 'Alice Main', user_id: alice.id });
  ch.alt = await makeCharacter(p, {
    name: 'Alice Alt',
    user_id: alice.id,
    alliance_id: null,
    alliance_ticker: null,
    corporation_id: '98000009',
    corporation_ticker: 'ALT',
  });
  ch.bob = await makeCharacter(p, { name: 'Bob One', user_id: bob.id });
  ch.loner = await makeCharacter(p, { name: 'Loner' });
  ch.other = await makeCharacter(p, { name: 'Other Map Pilot' });
  await p.admin.setMainCharacter(alice.id, ch.main.eve_id);
  // Carol's main has no activity on the map; only her alt has.
  const carol = await p.admin.createUser('Carol');
  ch.carolMain = await makeCharacter(p, { name: 'Carol Main', user_id: carol.id });
  ch.carolAlt = await makeCharacter(p, { name: 'Carol Alt', user_id: carol.id });
  await p.admin.setMainCharacter(carol.id, ch.carolMain.eve_id);
  for (const c of [ch.main, ch.alt, ch.bob]) await p.admin.setTracking(mapId, c.eve_id, true);
  await p.admin.setTracking(mapId, ch.loner.eve_id, false);
  await p.admin.setTracking(mapIdB, ch.other.eve_id, true);

  // Kills: Jita 1 h, 5 h and 30 h ago; one in the hidden Thera, one in a system not on the map, one on map B.
  const base = Math.floor(Date.now() / 1000) * 1000;
  kills.recent = await makeKill(p, mapId, 30000142, { killTime: new Date(base - HOUR + 123), victimAllianceId: 99000007 });
  kills.older = await makeKill(p, mapId, 30000142, { killTime: new Date(base - 5 * HOUR) });
  kills.oldest = await makeKill(p, mapId, 30000142, { killTime: new Date(base - 30 * HOUR) });
  kills.hidden = await makeKill(p, mapId, 31000005, { killTime: new Date(base - HOUR) });
  kills.offMap = await makeKill(p, mapId, 31000008, { killTime: new Date(base - HOUR) });
  kills.otherMap = await makeKill(p, mapIdB, 30000142, { killTime: new Date(base - HOUR) });

  // Structures: three timers, and records that are not timers.
  const addStructure = (mid: string, solarSystemId: number, name: string, status: string, endTime: Date | null, extra: Json = {}) =>
    p.mapContent.addStructure(mid, { solarSystemId, structureTypeId: '35833', structureType: 'Fortizar', name, status, endTime, ...extra });
  structureEnd.fortizar = new Date(Date.now() + 2 * HOUR + 456);
  structureEnd.astrahus = new Date(Date.now() + HOUR);
  structureEnd.raitaru = new Date(Date.now() + 30 * 60_000);
  structures.fortizar = await addStructure(mapId, 30000142, 'Jita Fortizar', 'Reinforced', structureEnd.fortizar, {
    characterEveId: ch.main.eve_id,
    notes: 'armor timer',
    ownerName: 'Some Corp',
    ownerTicker: 'SC',
    ownerId: '98000123',
  });
  structures.astrahus = await addStructure(mapId, 30000142, 'Jita Astrahus', 'Anchoring', structureEnd.astrahus, {
    structureTypeId: '35832',
    structureType: 'Astrahus',
  });
  structures.raitaru = await addStructure(mapId, 31001880, 'Wormhole Raitaru', 'Reinforced', structureEnd.raitaru, {
    structureTypeId: '35825',
    structureType: 'Raitaru',
  });
  await addStructure(mapId, 30000142, 'Powered One', 'Powered', new Date(Date.now() + 10 * 60_000));
  await addStructure(mapId, 30000142, 'Unanchoring One', 'Unanchoring', new Date(Date.now() + 5 * 60_000));
  await addStructure(mapId, 30000142, 'Reinforced Without Timer', 'Reinforced', null);
  await addStructure(mapIdB, 30000142, 'Other Map Timer', 'Reinforced', new Date(Date.now() + 15 * 60_000));

  // Activity: times inside today (UTC), three days ago and ten days ago.
  const now = Date.now();
  const todayStart = now - (now % DAY);
  at.early = new Date(todayStart + Math.floor((now - todayStart) / 3));
  at.late = new Date(todayStart + Math.floor((2 * (now - todayStart)) / 3));
  at.threeDaysAgo = new Date(todayStart - 3 * DAY + 7 * HOUR + 321);
  at.tenDaysAgo = new Date(todayStart - 10 * DAY + 12 * HOUR + 654);
  const record = (mid: string, c: Character, when: Date, passages: number, connections: number, signatures: number) =>
    p.mapContent.recordActivity(mid, { characterEveId: c.eve_id, passages, connections, signatures, at: when });
  await record(mapId, ch.main, at.early, 2, 1, 3);
  await record(mapId, ch.alt, at.late, 5, 0, 1);
  await record(mapId, ch.alt, at.threeDaysAgo, 10, 0, 0);
  await record(mapId, ch.bob, at.tenDaysAgo, 1, 2, 0);
  await record(mapId, ch.loner, at.early, 0, 4, 0);
  await record(mapId, ch.other, at.early, 0, 0, 0); // a row with nothing counted is not listed
  await record(mapIdB, ch.other, at.early, 50, 50, 50);
  const carolMap = await makeMap(p);
  const carolMapId = carolMap.map.id;
  const carolKey = carolMap.key;
  await record(carolMapId, ch.carolAlt, at.early, 3, 2, 1);
  await record(carolMapId, ch.carolMain, at.threeDaysAgo, 1, 0, 0);

  // ACLs: two on map A, one on map B.
  const friends = await p.acls.create(mapId, { name: 'Friends', description: 'blues', owner_eve_id: ch.main.eve_id });
  const corp = await p.acls.create(mapId, { name: 'Corp', owner_eve_id: ch.loner.eve_id });
  await p.acls.create(mapIdB, { name: 'Other Map ACL', owner_eve_id: ch.other.eve_id });
  acl.friends = friends;
  acl.corp = corp;
  const aclKey = friends.api_key;

  return { t, key, keyB, mapId, slug, mapIdB, slugB, aclKey, carolMapId, carolKey, sys, conn, ch, kills, structures, structureEnd, acl, at };
}

export type MapData = Awaited<ReturnType<typeof startMapData>>;
