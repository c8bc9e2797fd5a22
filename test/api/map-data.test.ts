/**
 * Contract of the map data endpoints (spec 4.1, section 2; decisions §1, §4): exact field sets and JSON
 * types, timestamp formats, ordering and filters, and the map selector / token rules on every endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture, killInput, makeCharacter, makeConnection, makeKill, makeMap, makeSystem } from '../support/factories.js';

type Json = Record<string, unknown>;
type FieldType = 'string' | 'uuid' | 'integer' | 'number' | 'boolean' | 'micro' | 'seconds' | 'string[]' | 'object';
/** A field type; a trailing `?` means the value may also be null. */
type Shape = Record<string, FieldType | `${FieldType}?`>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** Asserts the exact key set of `obj` and the JSON type of every value. */
function expectShape(obj: unknown, shape: Shape, where = 'object'): void {
  expect(obj, where).toBeTypeOf('object');
  expect(obj, where).not.toBeNull();
  const o = obj as Json;
  expect(Object.keys(o).sort(), where).toEqual(Object.keys(shape).sort());
  for (const [field, spec] of Object.entries(shape)) {
    const nullable = spec.endsWith('?');
    const type = (nullable ? spec.slice(0, -1) : spec) as FieldType;
    const v = o[field];
    const at = `${where}.${field}`;
    if (nullable && v === null) continue;
    switch (type) {
      case 'string':
        expect(v, at).toBeTypeOf('string');
        break;
      case 'uuid':
        expect(v, at).toMatch(UUID);
        break;
      case 'integer':
        expect(Number.isInteger(v), `${at} = ${String(v)} is an integer`).toBe(true);
        break;
      case 'number':
        expect(v, at).toBeTypeOf('number');
        break;
      case 'boolean':
        expect(v, at).toBeTypeOf('boolean');
        break;
      case 'micro':
        expect(v, at).toMatch(MICRO);
        break;
      case 'seconds':
        expect(v, at).toMatch(SECONDS);
        break;
      case 'string[]':
        expect(Array.isArray(v), at).toBe(true);
        for (const s of v as unknown[]) expect(s, at).toBeTypeOf('string');
        break;
      case 'object':
        expect(v, at).toBeTypeOf('object');
        expect(v, at).not.toBeNull();
        break;
    }
  }
}

const SYSTEM_SHAPE: Shape = {
  id: 'uuid',
  name: 'string',
  status: 'integer',
  tag: 'string?',
  visible: 'boolean',
  description: 'string?',
  labels: 'string?',
  inserted_at: 'micro',
  updated_at: 'micro',
  locked: 'boolean',
  solar_system_id: 'integer',
  map_id: 'uuid',
  custom_name: 'string?',
  position_x: 'integer',
  position_y: 'integer',
};

const CONNECTION_SHAPE: Shape = {
  id: 'uuid',
  type: 'integer',
  mass_status: 'integer',
  ship_size_type: 'integer',
  time_status: 'integer',
  map_id: 'uuid',
  inserted_at: 'micro',
  updated_at: 'micro',
  solar_system_source: 'integer',
  solar_system_target: 'integer',
  wormhole_type: 'string?',
};

const CHARACTER_SHAPE: Shape = {
  eve_id: 'string',
  name: 'string',
  corporation_id: 'string',
  corporation_ticker: 'string',
  alliance_id: 'string?',
  alliance_ticker: 'string?',
};

const KILL_SHAPE: Shape = {
  killmail_id: 'integer',
  kill_time: 'seconds',
  solar_system_id: 'integer',
  attacker_count: 'integer',
  npc: 'boolean',
  total_value: 'number',
  final_blow_alliance_id: 'integer',
  final_blow_char_id: 'integer',
  final_blow_corp_id: 'integer',
  final_blow_ship_type_id: 'integer',
  final_blow_alliance_ticker: 'string',
  final_blow_char_name: 'string',
  final_blow_corp_ticker: 'string',
  final_blow_ship_name: 'string',
  victim_alliance_id: 'integer?',
  victim_char_id: 'integer',
  victim_corp_id: 'integer',
  victim_ship_type_id: 'integer',
  victim_char_name: 'string',
  victim_corp_ticker: 'string',
  victim_ship_name: 'string',
  zkb: 'object',
};

const ZKB_SHAPE: Shape = {
  awox: 'boolean',
  destroyedValue: 'number',
  droppedValue: 'number',
  fittedValue: 'number',
  hash: 'string',
  labels: 'string[]',
  locationID: 'integer',
  npc: 'boolean',
  points: 'integer',
  solo: 'boolean',
  totalValue: 'number',
};

const STRUCTURE_SHAPE: Shape = {
  id: 'uuid',
  system_id: 'uuid',
  solar_system_id: 'integer',
  solar_system_name: 'string',
  structure_type_id: 'string',
  structure_type: 'string',
  character_eve_id: 'string?',
  name: 'string',
  notes: 'string?',
  owner_name: 'string?',
  owner_ticker: 'string?',
  owner_id: 'string?',
  status: 'string',
  end_time: 'micro',
  inserted_at: 'micro',
  updated_at: 'micro',
};

const ACL_LIST_SHAPE: Shape = {
  id: 'uuid',
  name: 'string',
  description: 'string?',
  owner_eve_id: 'string',
  inserted_at: 'micro',
  updated_at: 'micro',
};

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** ISO 8601 UTC with microseconds, as PostgreSQL keeps a JS date (millisecond precision). */
const micro = (d: Date) => d.toISOString().replace(/Z$/, '000Z');
/** ISO 8601 UTC, seconds precision (the date must have whole seconds or be truncated by the caller). */
const seconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

type Character = Awaited<ReturnType<typeof makeCharacter>>;
const pub = (c: Character) => ({
  eve_id: c.eve_id,
  name: c.name,
  corporation_id: c.corporation_id,
  corporation_ticker: c.corporation_ticker,
  alliance_id: c.alliance_id,
  alliance_ticker: c.alliance_ticker,
});

describe('map data endpoints (spec 4.1)', () => {
  let t: TestServer;
  let key: string;
  let keyB: string;
  let mapId: string;
  let slug: string;
  let mapIdB: string;
  let slugB: string;
  let aclKey: string;
  let carolMapId: string;
  let carolKey: string;
  const sys = {} as Record<'jita' | 'j152820' | 'thera' | 'jitaB', string>;
  const conn = {} as Record<'wormhole' | 'stargate' | 'other', string>;
  const ch = {} as Record<'main' | 'alt' | 'bob' | 'loner' | 'other' | 'carolMain' | 'carolAlt', Character>;
  const kills = {} as Record<'recent' | 'older' | 'oldest' | 'hidden' | 'offMap' | 'otherMap', ReturnType<typeof killInput>>;
  const structures = {} as Record<'fortizar' | 'astrahus' | 'raitaru', string>;
  const structureEnd = {} as Record<'fortizar' | 'astrahus' | 'raitaru', Date>;
  const acl = {} as Record<'friends' | 'corp', { id: string; inserted_at: string; updated_at: string }>;
  const at = {} as Record<'early' | 'late' | 'threeDaysAgo' | 'tenDaysAgo', Date>;

  /** GET with the map A key by default; `null` sends no token. */
  const get = async (path: string, token: string | null = key) => {
    const res = await t.fetch(path, token === null ? {} : { token });
    return { res, status: res.status, body: (await res.json()) as Json & { data: unknown } };
  };

  beforeAll(async () => {
    t = await startTestServer({ env: { SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
    await importFixture(t.platform);
    const p = t.platform;

    const a = await makeMap(p);
    key = a.key;
    mapId = a.map.id;
    slug = a.map.slug;
    const b = await makeMap(p);
    keyB = b.key;
    mapIdB = b.map.id;
    slugB = b.map.slug;

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
    carolMapId = carolMap.map.id;
    carolKey = carolMap.key;
    await record(carolMapId, ch.carolAlt, at.early, 3, 2, 1);
    await record(carolMapId, ch.carolMain, at.threeDaysAgo, 1, 0, 0);

    // ACLs: two on map A, one on map B.
    const friends = await p.acls.create(mapId, { name: 'Friends', description: 'blues', owner_eve_id: ch.main.eve_id });
    const corp = await p.acls.create(mapId, { name: 'Corp', owner_eve_id: ch.loner.eve_id });
    await p.acls.create(mapIdB, { name: 'Other Map ACL', owner_eve_id: ch.other.eve_id });
    acl.friends = friends;
    acl.corp = corp;
    aclKey = friends.api_key;
  });
  afterAll(async () => t?.close());

  describe('GET /api/map/systems', () => {
    it('answers the visible systems, each with exactly the fields of spec 2.1 in their types', async () => {
      const { status, res, body } = await get(`/api/map/systems?map_id=${mapId}`);
      expect(status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(body)).toEqual(['data']);
      const data = body.data as Json[];
      expect(data.map((s) => s.solar_system_id).sort()).toEqual([30000142, 31001880]);
      for (const s of data) expectShape(s, SYSTEM_SHAPE, `system ${String(s.name)}`);
      const jita = data.find((s) => s.solar_system_id === 30000142);
      expect(jita).toEqual({
        id: sys.jita,
        name: 'Jita',
        status: 1,
        tag: 'HQ',
        visible: true,
        description: 'trade hub',
        labels: '["market"]',
        inserted_at: expect.stringMatching(MICRO),
        updated_at: expect.stringMatching(MICRO),
        locked: true,
        solar_system_id: 30000142,
        map_id: mapId,
        custom_name: 'Home',
        position_x: 10,
        position_y: -20,
      });
      const wh = data.find((s) => s.solar_system_id === 31001880);
      expect(wh).toMatchObject({
        id: sys.j152820,
        name: 'J152820',
        status: 0,
        tag: null,
        description: null,
        labels: null,
        custom_name: null,
        locked: false,
        position_x: 300,
        position_y: 40,
      });
    });

    it('stamps inserted_at and updated_at with the time of the write, in microseconds UTC', async () => {
      const before = Date.now();
      await makeSystem(t.platform, mapIdB, 31000008);
      const after = Date.now();
      const { body } = await get(`/api/map/system?map_id=${mapIdB}&id=31000008`, keyB);
      const s = body.data as { inserted_at: string; updated_at: string };
      for (const ts of [s.inserted_at, s.updated_at]) {
        expect(ts).toMatch(MICRO);
        const ms = Date.parse(ts);
        expect(ms).toBeGreaterThanOrEqual(before - 1000);
        expect(ms).toBeLessThanOrEqual(after + 1000);
      }
    });

    it('adds the hidden systems with all=true and only the visible ones with all=false', async () => {
      const all = await get(`/api/map/systems?slug=${slug}&all=true`);
      const data = all.body.data as Json[];
      expect(data.map((s) => [s.solar_system_id, s.visible]).sort()).toEqual([
        [30000142, true],
        [31000005, false],
        [31001880, true],
      ]);
      for (const s of data) expectShape(s, SYSTEM_SHAPE);
      const visible = await get(`/api/map/systems?slug=${slug}&all=false`);
      expect((visible.body.data as Json[]).map((s) => s.solar_system_id).sort()).toEqual([30000142, 31001880]);
    });

    it('answers 400 validation_failed for an all value that is not a boolean', async () => {
      const { status, body } = await get(`/api/map/systems?slug=${slug}&all=maybe`);
      expect(status).toBe(400);
      expect(body.code).toBe('validation_failed');
    });
  });

  describe('GET /api/map/system', () => {
    it('answers one system by solar_system_id with exactly the fields of spec 2.1', async () => {
      const { status, body } = await get(`/api/map/system?slug=${slug}&id=31001880`);
      expect(status).toBe(200);
      expectShape(body.data, SYSTEM_SHAPE);
      expect(body.data).toMatchObject({ id: sys.j152820, name: 'J152820', solar_system_id: 31001880, map_id: mapId, visible: true });
    });

    it('answers the system of the selected map, not the same solar system on another map', async () => {
      const a = await get(`/api/map/system?map_id=${mapId}&id=30000142`);
      const b = await get(`/api/map/system?map_id=${mapIdB}&id=30000142`, keyB);
      expect((a.body.data as Json).id).toBe(sys.jita);
      expect((b.body.data as Json).id).toBe(sys.jitaB);
      expect((b.body.data as Json).map_id).toBe(mapIdB);
    });

    it('answers 404 system_not_found "System not found" for a solar system not on the map', async () => {
      for (const id of ['31000008', '99999999']) {
        const { status, res, body } = await get(`/api/map/system?map_id=${mapId}&id=${id}`);
        expect(status).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(body).toEqual({ error: 'System not found', code: 'system_not_found' });
      }
    });

    it('answers 400 validation_failed for a non-integer or missing id', async () => {
      for (const q of ['id=abc', 'id=1.5', 'id=', '']) {
        const { status, body } = await get(`/api/map/system?map_id=${mapId}&${q}`);
        expect(status, q).toBe(400);
        expect(body, q).toMatchObject({ error: expect.any(String), code: 'validation_failed' });
        expect(
          (body.details as { field: string }[]).map((d) => d.field),
          q,
        ).toContain('id');
      }
    });
  });

  describe('GET /api/map/connections', () => {
    it('answers the connections of the map with exactly the fields of spec 2.3 in their types', async () => {
      const { status, body } = await get(`/api/map/connections?slug=${slug}`);
      expect(status).toBe(200);
      const data = body.data as Json[];
      expect(data).toHaveLength(2);
      for (const c of data) expectShape(c, CONNECTION_SHAPE);
      const byId = Object.fromEntries(data.map((c) => [c.id as string, c]));
      expect(byId[conn.wormhole]).toEqual({
        id: conn.wormhole,
        type: 0,
        mass_status: 1,
        ship_size_type: 3,
        time_status: 2,
        map_id: mapId,
        inserted_at: expect.stringMatching(MICRO),
        updated_at: expect.stringMatching(MICRO),
        solar_system_source: 30000142,
        solar_system_target: 31001880,
        wormhole_type: 'H296',
      });
      expect(byId[conn.stargate]).toMatchObject({
        type: 1,
        mass_status: 0,
        ship_size_type: 2,
        time_status: 0,
        solar_system_source: 31001880,
        solar_system_target: 31000005,
        wormhole_type: null,
      });
    });
  });

  describe('GET /api/map/characters', () => {
    it('answers the characters on the map as spec 2.5 entries with a nested spec 2.4 character', async () => {
      const { status, body } = await get(`/api/map/characters?map_id=${mapId}`);
      expect(status).toBe(200);
      const data = body.data as Json[];
      for (const e of data) {
        expectShape(e, { id: 'uuid', character: 'object', tracked: 'boolean', map_id: 'uuid' });
        expectShape(e.character, CHARACTER_SHAPE, 'character');
        expect(e.map_id).toBe(mapId);
      }
      const entries = data
        .map((e) => ({ character: e.character, tracked: e.tracked }))
        .sort((x, y) => String((x.character as Json).name).localeCompare(String((y.character as Json).name)));
      expect(entries).toEqual([
        { character: pub(ch.alt), tracked: true },
        { character: pub(ch.main), tracked: true },
        { character: pub(ch.bob), tracked: true },
        { character: pub(ch.loner), tracked: false },
      ]);
      expect((data.find((e) => (e.character as Json).eve_id === ch.alt.eve_id)!.character as Json).alliance_id).toBeNull();
    });
  });

  describe('GET /api/map/systems-kills', () => {
    type KillEntry = { solar_system_id: number; kills: Json[] };
    const killsOf = (data: KillEntry[], id: number) => data.find((e) => e.solar_system_id === id)!.kills.map((k) => k.killmail_id);

    it('answers one entry per visible system, with kills newest first, every kill and zkb field in its type', async () => {
      const { status, body } = await get(`/api/map/systems-kills?map_id=${mapId}&hours=48`);
      expect(status).toBe(200);
      const data = body.data as KillEntry[];
      for (const e of data) {
        expectShape(e, { solar_system_id: 'integer', kills: 'object' });
        expect(Array.isArray(e.kills)).toBe(true);
        for (const k of e.kills) {
          expectShape(k, KILL_SHAPE, `kill ${String(k.killmail_id)}`);
          expectShape(k.zkb, ZKB_SHAPE, `kill ${String(k.killmail_id)}.zkb`);
          expect(k.solar_system_id).toBe(e.solar_system_id);
        }
      }
      // Hidden Thera, the system not on the map and map B's kills are absent; J152820 has none.
      expect(data.map((e) => e.solar_system_id).sort()).toEqual([30000142, 31001880]);
      expect(killsOf(data, 31001880)).toEqual([]);
      expect(killsOf(data, 30000142)).toEqual([kills.recent!.killmailId, kills.older!.killmailId, kills.oldest!.killmailId]);
    });

    it('answers each kill with the stored values and kill_time in seconds precision UTC', async () => {
      const { body } = await get(`/api/map/systems-kills?slug=${slug}`);
      const jita = (body.data as KillEntry[]).find((e) => e.solar_system_id === 30000142)!;
      const k = kills.recent!;
      expect(jita.kills[0]).toEqual({
        killmail_id: k.killmailId,
        kill_time: seconds(new Date(k.killTime.getTime() - 123)),
        solar_system_id: 30000142,
        attacker_count: 3,
        npc: false,
        total_value: 150_000_000.5,
        final_blow_alliance_id: 99000001,
        final_blow_char_id: 2112000001,
        final_blow_corp_id: 98000001,
        final_blow_ship_type_id: 17715,
        final_blow_alliance_ticker: 'ALLY',
        final_blow_char_name: 'Killer',
        final_blow_corp_ticker: 'CORP',
        final_blow_ship_name: 'Gila',
        victim_alliance_id: 99000007,
        victim_char_id: 2112000002,
        victim_corp_id: 98000002,
        victim_ship_type_id: 11188,
        victim_char_name: 'Victim',
        victim_corp_ticker: 'VICT',
        victim_ship_name: 'Anathema',
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
      });
      expect(jita.kills[1]!.victim_alliance_id).toBeNull();
      expect(jita.kills[1]!.kill_time).toBe(seconds(kills.older!.killTime));
    });

    it('limits kills to the last `hours` hours and still lists every visible system', async () => {
      const two = (await get(`/api/map/systems-kills?map_id=${mapId}&hours=2`)).body.data as KillEntry[];
      expect(two.map((e) => e.solar_system_id).sort()).toEqual([30000142, 31001880]);
      expect(killsOf(two, 30000142)).toEqual([kills.recent!.killmailId]);
      const day = (await get(`/api/map/systems-kills?map_id=${mapId}&hours=24`)).body.data as KillEntry[];
      expect(killsOf(day, 30000142)).toEqual([kills.recent!.killmailId, kills.older!.killmailId]);
      expect(killsOf(day, 31001880)).toEqual([]);
    });

    it('answers 400 validation_failed for a non-integer hours', async () => {
      for (const h of ['abc', '1.5']) {
        const { status, body } = await get(`/api/map/systems-kills?map_id=${mapId}&hours=${h}`);
        expect(status, h).toBe(400);
        expect(body.code, h).toBe('validation_failed');
      }
    });
  });

  describe('GET /api/map/character-activity', () => {
    type Activity = { character: Json; passages: number; connections: number; signatures: number; timestamp: string };
    const byEveId = (data: Activity[]) => Object.fromEntries(data.map((a) => [a.character.eve_id as string, a]));

    it('sums the whole history per user, shows the main character and the latest activity in seconds precision', async () => {
      const { status, body } = await get(`/api/map/character-activity?map_id=${mapId}`);
      expect(status).toBe(200);
      const data = body.data as Activity[];
      for (const a of data) {
        expectShape(a, { character: 'object', passages: 'integer', connections: 'integer', signatures: 'integer', timestamp: 'seconds' });
        expectShape(a.character, CHARACTER_SHAPE, 'character');
      }
      expect(data).toHaveLength(3);
      expect(byEveId(data)).toEqual({
        // Alice: main 2/1/3 today (early), alt 5/0/1 today (late) and 10/0/0 three days ago.
        [ch.main.eve_id]: { character: pub(ch.main), passages: 17, connections: 1, signatures: 4, timestamp: seconds(at.late!) },
        [ch.bob.eve_id]: { character: pub(ch.bob), passages: 1, connections: 2, signatures: 0, timestamp: seconds(at.tenDaysAgo!) },
        [ch.loner.eve_id]: { character: pub(ch.loner), passages: 0, connections: 4, signatures: 0, timestamp: seconds(at.early!) },
      });
    });

    it('limits to the last `days` days, today counting as one, and sets timestamp from the counted rows', async () => {
      const one = byEveId((await get(`/api/map/character-activity?map_id=${mapId}&days=1`)).body.data as Activity[]);
      expect(Object.keys(one).sort()).toEqual([ch.main.eve_id, ch.loner.eve_id].sort());
      expect(one[ch.main.eve_id]).toMatchObject({ passages: 7, connections: 1, signatures: 4, timestamp: seconds(at.late!) });
      const three = byEveId((await get(`/api/map/character-activity?map_id=${mapId}&days=3`)).body.data as Activity[]);
      expect(three[ch.main.eve_id]!.passages).toBe(7);
      const four = byEveId((await get(`/api/map/character-activity?map_id=${mapId}&days=4`)).body.data as Activity[]);
      expect(Object.keys(four).sort()).toEqual([ch.main.eve_id, ch.loner.eve_id].sort());
      expect(four[ch.main.eve_id]).toMatchObject({ passages: 17, timestamp: seconds(at.late!) });
      const eleven = byEveId((await get(`/api/map/character-activity?map_id=${mapId}&days=11`)).body.data as Activity[]);
      expect(Object.keys(eleven)).toHaveLength(3);
    });

    it("shows the user's main character even when only another of the user's characters has activity in the window", async () => {
      const all = (await get(`/api/map/character-activity?map_id=${carolMapId}`, carolKey)).body.data as Activity[];
      expect(all).toEqual([{ character: pub(ch.carolMain), passages: 4, connections: 2, signatures: 1, timestamp: seconds(at.early!) }]);
      const today = (await get(`/api/map/character-activity?map_id=${carolMapId}&days=1`, carolKey)).body.data as Activity[];
      expect(today).toEqual([{ character: pub(ch.carolMain), passages: 3, connections: 2, signatures: 1, timestamp: seconds(at.early!) }]);
    });

    it('answers 400 validation_failed for a non-integer days', async () => {
      for (const d of ['abc', '2.5']) {
        const { status, body } = await get(`/api/map/character-activity?map_id=${mapId}&days=${d}`);
        expect(status, d).toBe(400);
        expect(body.code, d).toBe('validation_failed');
      }
    });
  });

  describe('GET /api/map/user_characters', () => {
    it('groups the map characters per user with the main eve_id, null when none is set or there is no user', async () => {
      const { status, body } = await get(`/api/map/user_characters?slug=${slug}`);
      expect(status).toBe(200);
      const data = body.data as { characters: Json[]; main_character_eve_id: string | null }[];
      for (const g of data) {
        expectShape(g, { characters: 'object', main_character_eve_id: 'string?' });
        for (const c of g.characters) expectShape(c, CHARACTER_SHAPE, 'character');
      }
      const groups = data
        .map((g) => ({ names: g.characters.map((c) => c.name as string).sort(), main: g.main_character_eve_id, characters: g.characters }))
        .sort((x, y) => x.names[0]!.localeCompare(y.names[0]!));
      expect(groups.map((g) => [g.names, g.main])).toEqual([
        [['Alice Alt', 'Alice Main'], ch.main.eve_id],
        [['Bob One'], null],
        [['Loner'], null],
      ]);
      expect(groups[0]!.characters).toEqual(expect.arrayContaining([pub(ch.main), pub(ch.alt)]));
      expect(groups[1]!.characters).toEqual([pub(ch.bob)]);
    });
  });

  describe('GET /api/map/structure-timers', () => {
    it('answers only Anchoring and Reinforced structures with an end_time, soonest first, with the decided fields', async () => {
      const { status, body } = await get(`/api/map/structure-timers?map_id=${mapId}`);
      expect(status).toBe(200);
      const data = body.data as Json[];
      for (const s of data) expectShape(s, STRUCTURE_SHAPE, `structure ${String(s.name)}`);
      expect(data.map((s) => s.id)).toEqual([structures.raitaru, structures.astrahus, structures.fortizar]);
      expect(data[2]).toEqual({
        id: structures.fortizar,
        system_id: sys.jita,
        solar_system_id: 30000142,
        solar_system_name: 'Jita',
        structure_type_id: '35833',
        structure_type: 'Fortizar',
        character_eve_id: ch.main.eve_id,
        name: 'Jita Fortizar',
        notes: 'armor timer',
        owner_name: 'Some Corp',
        owner_ticker: 'SC',
        owner_id: '98000123',
        status: 'Reinforced',
        end_time: micro(structureEnd.fortizar!),
        inserted_at: expect.stringMatching(MICRO),
        updated_at: expect.stringMatching(MICRO),
      });
      expect(data[0]).toMatchObject({
        system_id: sys.j152820,
        solar_system_name: 'J152820',
        status: 'Reinforced',
        character_eve_id: null,
        notes: null,
        owner_name: null,
        owner_ticker: null,
        owner_id: null,
      });
      expect(data[1]).toMatchObject({ status: 'Anchoring', end_time: micro(structureEnd.astrahus!) });
    });

    it('filters by system_id (map system record id)', async () => {
      const jita = await get(`/api/map/structure-timers?map_id=${mapId}&system_id=${sys.jita}`);
      expect((jita.body.data as Json[]).map((s) => s.id)).toEqual([structures.astrahus, structures.fortizar]);
      const wh = await get(`/api/map/structure-timers?map_id=${mapId}&system_id=${sys.j152820}`);
      expect((wh.body.data as Json[]).map((s) => s.id)).toEqual([structures.raitaru]);
      const unknown = await get(`/api/map/structure-timers?map_id=${mapId}&system_id=00000000-0000-4000-8000-000000000000`);
      expect(unknown.status).toBe(200);
      expect(unknown.body).toEqual({ data: [] });
      const otherMap = await get(`/api/map/structure-timers?map_id=${mapId}&system_id=${sys.jitaB}`);
      expect(otherMap.body).toEqual({ data: [] });
    });

    it('answers 400 validation_failed for a system_id that is not a UUID', async () => {
      const { status, body } = await get(`/api/map/structure-timers?map_id=${mapId}&system_id=30000142`);
      expect(status).toBe(400);
      expect(body.code).toBe('validation_failed');
    });
  });

  describe('GET /api/map/acls', () => {
    it('answers the ACLs of the map in list form: owner_eve_id, no owner_id, members or api_key', async () => {
      const { status, body } = await get(`/api/map/acls?map_id=${mapId}`);
      expect(status).toBe(200);
      const data = body.data as Json[];
      for (const a of data) expectShape(a, ACL_LIST_SHAPE, `acl ${String(a.name)}`);
      const sorted = [...data].sort((x, y) => String(x.name).localeCompare(String(y.name)));
      expect(sorted).toEqual([
        {
          id: acl.corp!.id,
          name: 'Corp',
          description: null,
          owner_eve_id: ch.loner.eve_id,
          inserted_at: acl.corp!.inserted_at,
          updated_at: acl.corp!.updated_at,
        },
        {
          id: acl.friends!.id,
          name: 'Friends',
          description: 'blues',
          owner_eve_id: ch.main.eve_id,
          inserted_at: acl.friends!.inserted_at,
          updated_at: acl.friends!.updated_at,
        },
      ]);
    });

    it('lists an ACL created through POST /api/map/acls', async () => {
      const created = await t.fetch(`/api/map/acls?map_id=${mapIdB}`, {
        token: keyB,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ acl: { name: 'Created Over HTTP', owner_eve_id: ch.other.eve_id } }),
      });
      expect(created.status).toBe(200);
      const id = ((await created.json()) as { data: { id: string } }).data.id;
      const { body } = await get(`/api/map/acls?slug=${slugB}`, keyB);
      const data = body.data as Json[];
      expect(data.map((a) => a.name).sort()).toEqual(['Created Over HTTP', 'Other Map ACL']);
      for (const a of data) expectShape(a, ACL_LIST_SHAPE);
      expect(data.find((a) => a.id === id)).toMatchObject({ owner_eve_id: ch.other.eve_id, description: null });
    });
  });

  describe.each([
    ['/api/map/systems', ''],
    ['/api/map/system', 'id=30000142&'],
    ['/api/map/connections', ''],
    ['/api/map/characters', ''],
    ['/api/map/systems-kills', ''],
    ['/api/map/character-activity', ''],
    ['/api/map/user_characters', ''],
    ['/api/map/structure-timers', ''],
    ['/api/map/acls', ''],
  ])('map selector and token rules of GET %s', (path, extra) => {
    const url = (selector: string) => `${path}?${extra}${selector}`;
    const expectError = (r: { status: number; res: Response; body: Json }, status: number, code: string) => {
      expect(r.status).toBe(status);
      expect(r.res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(
        Object.keys(r.body)
          .filter((k) => k !== 'details')
          .sort(),
      ).toEqual(['code', 'error']);
      expect(r.body.error).toBeTypeOf('string');
      expect(r.body.code).toBe(code);
    };

    it('answers the same data for map_id only, slug only, and both naming the same map', async () => {
      const byId = await get(url(`map_id=${mapId}`));
      const bySlug = await get(url(`slug=${slug}`));
      const both = await get(url(`map_id=${mapId}&slug=${slug}`));
      const upper = await get(url(`map_id=${mapId.toUpperCase()}`));
      expect([byId.status, bySlug.status, both.status, upper.status]).toEqual([200, 200, 200, 200]);
      expect(Object.keys(byId.body)).toEqual(['data']);
      expect(bySlug.body).toEqual(byId.body);
      expect(both.body).toEqual(byId.body);
      expect(upper.body).toEqual(byId.body);
    });

    it('answers 400 map_identifier_required without map_id and slug', async () => {
      const r = await get(url(''));
      expectError(r, 400, 'map_identifier_required');
      expect(r.body.error).toBe('Map identifier required. Provide `map_id` or `slug`.');
    });

    it('answers 400 when map_id and slug name different maps', async () => {
      expectError(await get(url(`map_id=${mapId}&slug=${slugB}`)), 400, 'map_selector_conflict');
      expectError(await get(url(`map_id=${mapIdB}&slug=${slug}`)), 400, 'map_selector_conflict');
    });

    it('answers 400 when map_id is not a UUID', async () => {
      expectError(await get(url('map_id=not-a-uuid')), 400, 'invalid_map_id');
      expectError(await get(url(`map_id=${slug}`)), 400, 'invalid_map_id');
    });

    it('answers 404 map_not_found for an unknown map_id or slug', async () => {
      expectError(await get(url('map_id=00000000-0000-4000-8000-000000000000')), 404, 'map_not_found');
      expectError(await get(url('slug=no-such-map')), 404, 'map_not_found');
    });

    it("answers 404 map_not_found, never the other map's data, when the key belongs to another map", async () => {
      for (const sel of [`map_id=${mapIdB}`, `slug=${slugB}`, `map_id=${mapIdB}&slug=${slugB}`]) {
        const r = await get(url(sel), key);
        expectError(r, 404, 'map_not_found');
        expect(r.body).not.toHaveProperty('data');
      }
    });

    it('answers 401 with WWW-Authenticate: Bearer and the JSON error for a missing token, even for an unknown or malformed map', async () => {
      for (const sel of [`map_id=${mapId}`, 'map_id=00000000-0000-4000-8000-000000000000', 'map_id=bad', '']) {
        const r = await get(url(sel), null);
        expect(r.status, sel).toBe(401);
        expect(r.res.headers.get('www-authenticate')).toBe('Bearer');
        expect(r.res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(r.body).toEqual({ error: "Missing or invalid 'Bearer' token: this endpoint takes a map API key, and none was given", code: 'unauthorized' });
      }
    });

    it('answers 401 for a malformed Authorization header, a wrong token and an ACL key', async () => {
      const headers: Record<string, string>[] = [
        { authorization: `Basic ${key}` },
        { authorization: 'Bearer' },
        { authorization: 'Bearer short' },
        { authorization: 'Bearer has spaces in it 0123456789' },
        { authorization: `Bearer mik_${'x'.repeat(40)}` },
        { authorization: `Bearer ${aclKey}` },
      ];
      for (const h of headers) {
        const res = await t.fetch(url(`map_id=${mapId}`), { headers: h });
        expect(res.status, h.authorization).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        const body = (await res.json()) as Json;
        expect(Object.keys(body).sort()).toEqual(['code', 'error']);
        expect(body.code).toBe('unauthorized');
      }
    });
  });

  describe('revoked map keys', () => {
    it("answers 401 to a key once it is revoked, while the map's other key keeps working", async () => {
      const issued = await t.platform.admin.issueKey(mapId, { character_eve_id: ch.bob.eve_id, name: 'bob key' });
      expect((await get(`/api/map/systems?map_id=${mapId}`, issued.api_key)).status).toBe(200);
      await t.platform.admin.revokeKey(mapId, issued.id);
      for (const path of ['/api/map/systems', '/api/map/system?id=30000142&', '/api/map/acls']) {
        const sep = path.includes('?') ? '' : '?';
        const r = await get(`${path}${sep}map_id=${mapId}`, issued.api_key);
        expect(r.status, path).toBe(401);
        expect(r.res.headers.get('www-authenticate')).toBe('Bearer');
        expect(r.body).toEqual({
          error: "Missing or invalid 'Bearer' token: this endpoint takes a map API key; the map API key given has been revoked",
          code: 'unauthorized',
        });
      }
      expect((await get(`/api/map/systems?map_id=${mapId}`, key)).status).toBe(200);
    });
  });
});
