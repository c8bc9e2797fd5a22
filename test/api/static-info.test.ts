/**
 * Contract of GET /api/common/system-static-info (spec 4.2, 2.2; decisions §1, §9): no authentication,
 * the exact field set and types, values derived from the real fixture data, 404 and 400 cases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/app.js';
import { importFixture } from '../support/factories.js';

type Json = Record<string, unknown>;

const FIELDS = [
  'solar_system_id',
  'triglavian_invasion_status',
  'solar_system_name',
  'solar_system_name_lc',
  'system_class',
  'class_title',
  'type_description',
  'region_id',
  'region_name',
  'constellation_id',
  'constellation_name',
  'security',
  'is_shattered',
  'effect_name',
  'effect_power',
  'statics',
  'wandering',
  'static_details',
  'sun_type_id',
];

/** Asserts the exact 2.2 field set and the JSON type of every field. */
function expectStaticShape(d: Json): void {
  expect(Object.keys(d).sort()).toEqual([...FIELDS].sort());
  for (const f of ['solar_system_id', 'system_class', 'region_id', 'constellation_id', 'effect_power', 'sun_type_id']) {
    expect(Number.isInteger(d[f]), `${f} is an integer`).toBe(true);
  }
  for (const f of [
    'triglavian_invasion_status',
    'solar_system_name',
    'solar_system_name_lc',
    'class_title',
    'type_description',
    'region_name',
    'constellation_name',
  ]) {
    expect(d[f], f).toBeTypeOf('string');
  }
  expect(d.security).toMatch(/^-?\d+\.\d$/);
  expect(d.is_shattered).toBeTypeOf('boolean');
  if (d.effect_name !== null) expect(d.effect_name).toBeTypeOf('string');
  for (const f of ['statics', 'wandering']) {
    expect(Array.isArray(d[f]), `${f} is an array`).toBe(true);
    for (const code of d[f] as unknown[]) expect(code, f).toMatch(/^[A-Z0-9]{4}$/);
  }
}

const JITA = {
  solar_system_id: 30000142,
  triglavian_invasion_status: 'Normal',
  solar_system_name: 'Jita',
  solar_system_name_lc: 'jita',
  system_class: 7,
  class_title: '0.9',
  type_description: 'High-sec',
  region_id: 10000002,
  region_name: 'The Forge',
  constellation_id: 20000020,
  constellation_name: 'Kimotoro',
  security: '0.9',
  is_shattered: false,
  effect_name: null,
  effect_power: 0,
  statics: [],
  wandering: [],
  sun_type_id: 3796,
};

const THERA = {
  solar_system_id: 31000005,
  triglavian_invasion_status: 'Normal',
  solar_system_name: 'Thera',
  solar_system_name_lc: 'thera',
  system_class: 12,
  class_title: 'T',
  type_description: 'Class 12 (Thera)',
  region_id: 11000031,
  region_name: 'G-R00031',
  constellation_id: 21000324,
  constellation_name: 'G-C00324',
  security: '-1.0',
  is_shattered: false,
  effect_name: null,
  effect_power: 0,
  statics: ['E587', 'Q063', 'V898'],
  wandering: [],
  sun_type_id: 34331,
};

const J152820 = {
  solar_system_id: 31001880,
  triglavian_invasion_status: 'Normal',
  solar_system_name: 'J152820',
  solar_system_name_lc: 'j152820',
  system_class: 5,
  class_title: 'C5',
  type_description: 'Class 5',
  region_id: 11000024,
  region_name: 'E-R00024',
  constellation_id: 21000232,
  constellation_name: 'E-C00232',
  security: '-1.0',
  is_shattered: false,
  effect_name: 'Pulsar',
  effect_power: 5,
  statics: ['H296'],
  wandering: ['D792', 'C140', 'Z142'],
  sun_type_id: 45047,
};

const J000685 = {
  solar_system_id: 31002595,
  triglavian_invasion_status: 'Normal',
  solar_system_name: 'J000685',
  solar_system_name_lc: 'j000685',
  system_class: 13,
  class_title: 'C13',
  type_description: 'Class 13 (Shattered Frigate)',
  region_id: 11000032,
  region_name: 'H-R00032',
  constellation_id: 21000333,
  constellation_name: 'H-C00333',
  security: '-1.0',
  is_shattered: true,
  effect_name: 'Wolf-Rayet Star',
  effect_power: 6,
  statics: ['M001', 'Q003'],
  wandering: [],
  sun_type_id: 34331,
};

const KUHARAH = {
  solar_system_id: 30000021,
  triglavian_invasion_status: 'Final',
  solar_system_name: 'Kuharah',
  solar_system_name_lc: 'kuharah',
  system_class: 25,
  class_title: 'P',
  type_description: 'Triglavian space (Pochven)',
  region_id: 10000070,
  region_name: 'Pochven',
  constellation_id: 20000788,
  constellation_name: 'Krai Svarog',
  security: '-1.0',
  is_shattered: false,
  effect_name: 'Dazh Liminality Locus',
  effect_power: 1,
  statics: ['C729'],
  wandering: [],
  sun_type_id: 56098,
};

describe('GET /api/common/system-static-info', () => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer({ env: { SERVICE_RATE_LIMIT_PER_MINUTE: '100000' } });
    await importFixture(t.platform);
  });
  afterAll(async () => t?.close());

  const get = async (query: string) => {
    const res = await t.fetch(`/api/common/system-static-info${query}`);
    return { res, status: res.status, body: (await res.json()) as Json };
  };

  it.each([
    ['high-sec Jita', JITA],
    ['Thera', THERA],
    ['the C5 wormhole J152820 with effect and wanderers', J152820],
    ['the shattered C13 wormhole J000685', J000685],
    ['the Pochven system Kuharah', KUHARAH],
  ])('answers %s without a token, with exactly the fields of spec 2.2 and their values', async (_label, expected) => {
    const { status, res, body } = await get(`?id=${expected.solar_system_id}`);
    expect(status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(Object.keys(body)).toEqual(['data']);
    expectStaticShape(body.data as Json);
    const { static_details: details, ...fields } = body.data as Json;
    expect(fields).toEqual(expected);
    expect((details as Json[]).map((d) => d.name)).toEqual(expected.statics);
  });

  it('details each static: its destination classes (several for C729), mass and lifetime from wormholes.json', async () => {
    const kuharah = (await get(`?id=${KUHARAH.solar_system_id}`)).body.data as Json;
    expect(kuharah.static_details).toEqual([
      {
        name: 'C729',
        destination: { id: 'hs', name: 'High-sec', short_name: 'H', destinations: ['hs', 'ls', 'ns', 'pochven'] },
        properties: { lifetime: '12', max_mass: 1000000000, max_jump_mass: 1000000000, mass_regeneration: 0 },
      },
    ]);
    const j152820 = (await get(`?id=${J152820.solar_system_id}`)).body.data as Json;
    expect(j152820.static_details).toEqual([
      {
        name: 'H296',
        destination: { id: 'c5', name: 'Class 5', short_name: 'C5', destinations: ['c5'] },
        properties: { lifetime: '24', max_mass: 3300000000, max_jump_mass: 2000000000, mass_regeneration: 0 },
      },
    ]);
    expect((await get(`?id=${JITA.solar_system_id}`)).body.data).toMatchObject({ statics: [], static_details: [] });
  });

  it('names an unknown destination for a static the static data has no type for', async () => {
    await t.platform.orm.em.fork().getConnection().execute("delete from wormhole_types where name = 'E587'");
    const thera = (await get(`?id=${THERA.solar_system_id}`)).body.data as Json;
    expect((thera.static_details as Json[])[0]).toEqual({
      name: 'E587',
      destination: { id: null, name: 'Unknown', short_name: '?', destinations: [] },
      properties: { lifetime: null, max_mass: null, max_jump_mass: null, mass_regeneration: null },
    });
    expect((thera.static_details as Json[]).map((d) => d.name)).toEqual(['E587', 'Q063', 'V898']);
    await importFixture(t.platform);
  });

  it('answers 404 system_not_found for a solar system id that is not in the static data', async () => {
    for (const id of ['30000001', '0', '2147483647']) {
      const { status, res, body } = await get(`?id=${id}`);
      expect(status, id).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(body, id).toEqual({ error: 'System not found', code: 'system_not_found' });
    }
  });

  it('answers 400 validation_failed with an id detail for a non-integer, empty or missing id', async () => {
    for (const query of ['?id=abc', '?id=1.5', '?id=30000142abc', '?id=', '']) {
      const { status, res, body } = await get(query);
      expect(status, query).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(body, query).toMatchObject({ error: expect.any(String), code: 'validation_failed' });
      expect(Object.keys(body).sort()).toEqual(['code', 'details', 'error']);
      expect(body.details, query).toEqual([{ field: 'id', message: query === '' ? "'id' is required" : 'must be an integer' }]);
    }
  });

  it('says what is wrong with an id out of range', async () => {
    for (const [query, message] of [
      ['?id=-1', 'min 0'],
      ['?id=2147483648', 'max 2147483647'],
    ] as const) {
      const { status, body } = await get(query);
      expect(status, query).toBe(400);
      expect(body, query).toMatchObject({ code: 'validation_failed', details: [{ field: 'id', message }] });
    }
  });
});
