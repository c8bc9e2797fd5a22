/**
 * Derivations of the static system data (decisions §9). Every input value below is copied from the real
 * data of the public source (SDE 3171578 and the wanderer JSONs), and so is every expectation.
 */
import { describe, expect, it } from 'vitest';
import {
  deriveSolarSystems,
  formatSecurity,
  resolveSystemClass,
  StaticDataError,
  type SdeSolarSystem,
  type StaticDataInput,
  type WormholeClass,
} from '../../src/static-data/sde-derive.js';

// Real entries of wormholeClasses.json (title, shortName, effectPower; missing effectPower = 0).
const CLASSES: WormholeClass[] = [
  { wormholeClassId: -1, shortName: 'CCP', title: 'CCP System', effectPower: 0 },
  { wormholeClassId: 1, shortName: 'C1', title: 'Class 1', effectPower: 1 },
  { wormholeClassId: 2, shortName: 'C2', title: 'Class 2', effectPower: 2 },
  { wormholeClassId: 3, shortName: 'C3', title: 'Class 3', effectPower: 3 },
  { wormholeClassId: 4, shortName: 'C4', title: 'Class 4', effectPower: 4 },
  { wormholeClassId: 5, shortName: 'C5', title: 'Class 5', effectPower: 5 },
  { wormholeClassId: 6, shortName: 'C6', title: 'Class 6', effectPower: 6 },
  { wormholeClassId: 7, shortName: 'H', title: 'High-sec', effectPower: 0 },
  { wormholeClassId: 8, shortName: 'L', title: 'Low-sec', effectPower: 0 },
  { wormholeClassId: 9, shortName: 'N', title: 'Null-sec', effectPower: 0 },
  { wormholeClassId: 12, shortName: 'T', title: 'Class 12 (Thera)', effectPower: 0 },
  { wormholeClassId: 13, shortName: 'C13', title: 'Class 13 (Shattered Frigate)', effectPower: 6 },
  { wormholeClassId: 14, shortName: 'D', title: 'Class 14 (Sentinel Drifter)', effectPower: 2 },
  { wormholeClassId: 19, shortName: 'A1', title: '(Abyssal class 1)', effectPower: 0 },
  { wormholeClassId: 25, shortName: 'P', title: 'Triglavian space (Pochven)', effectPower: 0 },
  { wormholeClassId: 10100, shortName: 'N', title: 'Pirate space', effectPower: 0 },
];

// Real rows of mapSolarSystems.csv (line numbers are not the real ones).
const sys = (
  solarSystemId: number,
  solarSystemName: string,
  regionId: number,
  constellationId: number,
  trueSecurity: number,
  sunTypeId: number,
  line = 2,
): SdeSolarSystem => ({ solarSystemId, solarSystemName, regionId, constellationId, trueSecurity, sunTypeId, line });

const JITA = sys(30000142, 'Jita', 10000002, 20000020, 0.945913, 3796);
const EGBINGER = sys(30002420, 'Egbinger', 10000028, 20000355, 0.034555, 45035);
const BLMX_B = sys(30000619, 'BLMX-B', 10000007, 20000090, -0.032301, 3802);
const MIAKIE = sys(30003539, 'Miakie', 10000043, 20000516, 0.48477, 45030);
const J152820 = sys(31001880, 'J152820', 11000024, 21000232, -0.99, 45047);
const J112747 = sys(31001361, 'J112747', 11000015, 21000150, -0.99, 45039);
const THERA = sys(31000005, 'Thera', 11000031, 21000324, -0.99, 34331);
const J015092 = sys(31002505, 'J015092', 11000001, 21000325, -0.99, 34331);
const SENTINEL = sys(31000001, 'Sentinel MZ', 11000033, 21000334, -0.99, 34331);
const KUHARAH = sys(30000021, 'Kuharah', 10000070, 20000788, -1.0, 56098);
const ZARZAKH = sys(30100000, 'Zarzakh', 10001000, 20010000, -1.0, 78350);
const WF_1LM = sys(30000326, 'WF-1LM', 10000004, 20000047, -0.0019, 45047);

function input(systems: SdeSolarSystem[], patch: Partial<StaticDataInput> = {}): StaticDataInput {
  return {
    systemsFile: 'sde/mapSolarSystems.csv',
    systems,
    constellations: new Map([
      [20000020, 'Kimotoro'],
      [20000355, 'Elfrard'],
      [20000090, 'VS-8P0'],
      [20000516, 'Mofa'],
      [21000232, 'E-C00232'],
      [21000150, 'C-C00150'],
      [21000324, 'G-C00324'],
      [21000325, 'A-C00325'],
      [21000334, 'K-C00334'],
      [20000788, 'Krai Svarog'],
      [20010000, 'Duzna Kah'],
      [20000047, 'L5-H1O'],
    ]),
    regions: new Map([
      [10000002, 'The Forge'],
      [10000028, 'Molden Heath'],
      [10000007, 'Cache'],
      [10000043, 'Domain'],
      [11000024, 'E-R00024'],
      [11000015, 'C-R00015'],
      [11000031, 'G-R00031'],
      [11000001, 'A-R00001'],
      [11000033, 'K-R00033'],
      [10000070, 'Pochven'],
      [10001000, 'Yasna Zakh'],
      [10000004, 'UUA-F4'],
    ]),
    // Real rows of mapLocationWormholeClasses.csv for these systems (all three levels where present).
    locationClasses: new Map([
      [10000002, 7],
      [20000020, 7],
      [10000028, 7],
      [20000355, 7],
      [30002420, 8],
      [10000007, 9],
      [20000090, 9],
      [10000043, 7],
      [20000516, 7],
      [11000024, 5],
      [21000232, 5],
      [11000015, 3],
      [21000150, 3],
      [11000031, 12],
      [21000324, 12],
      [11000001, 1],
      [21000325, 1],
      [11000033, 1],
      [21000334, 1],
      [31000001, 14],
      [10000070, 25],
      [20000788, 25],
    ]),
    wormholeClasses: CLASSES,
    // Real entries of wormholeSystems.json.
    wormholeSystems: [
      { solarSystemId: 31001880, statics: ['H296'], wanderers: ['D792', 'C140', 'Z142'], effectName: 'Pulsar' },
      {
        solarSystemId: 31001361,
        statics: ['U210'],
        wanderers: ['V301', 'I182', 'N968', 'T405', 'N770', 'A982', 'F135'],
        effectName: null,
      },
      { solarSystemId: 31000005, statics: ['E587', 'Q063', 'V898'], wanderers: [], effectName: null },
      {
        solarSystemId: 31002505,
        statics: ['N110', 'Z060'],
        wanderers: ['H121', 'C125', 'O883', 'M609', 'L614', 'S804', 'F353'],
        effectName: 'Black Hole',
      },
      {
        solarSystemId: 31000001,
        statics: ['D382'],
        wanderers: ['R474', 'N062', 'D382', 'Y683', 'O477', 'Z647'],
        effectName: 'Red Giant',
      },
    ],
    // Real entries of triglavianSystems.json.
    triglavianSystems: [
      { solarSystemId: 30000021, statics: ['C729'], effectName: 'Dazh Liminality Locus', effectPower: 1, invasionStatus: 'Final' },
      { solarSystemId: 30003539, statics: undefined, effectName: 'Imperial Stellar Observatory', effectPower: 1, invasionStatus: 'Edencom' },
    ],
    // shatteredConstellations.json (all 8 keys).
    shatteredConstellations: new Set([21000334, 21000325, 21000326, 21000327, 21000328, 21000329, 21000330, 21000333]),
    ...patch,
  };
}

function derive(system: SdeSolarSystem, patch?: Partial<StaticDataInput>) {
  const [row] = deriveSolarSystems(input([system], patch));
  return row!;
}

describe('formatSecurity', () => {
  it.each([
    [0.945913, '0.9'], // Jita
    [0.48477, '0.5'], // Miakie: high-sec by rounding
    [0.034555, '0.1'], // Egbinger: 0 < x < 0.05 shows 0.1, never 0.0
    [0.049927, '0.1'], // Espigoure
    [-0.032301, '0.0'], // BLMX-B: rounds to negative zero, printed 0.0
    [-0.0019, '0.0'], // WF-1LM
    [-0.85, '-0.8'], // A2V6-6: a tie rounds toward +∞
    [-0.99, '-1.0'], // every J-space system
    [-1.0, '-1.0'], // Zarzakh, Pochven
  ])('real true security %d displays as %s', (trueSecurity, text) => {
    expect(formatSecurity(trueSecurity)).toBe(text);
  });

  it.each([
    [0, '0.0'],
    [-0, '0.0'],
    [0.05, '0.1'],
    [0.15, '0.2'],
    [0.45, '0.5'],
    [0.44999, '0.4'],
    [-0.05, '0.0'],
    [-0.05001, '-0.1'],
    [1, '1.0'],
  ])('edge %d displays as %s', (trueSecurity, text) => {
    expect(formatSecurity(trueSecurity)).toBe(text);
  });
});

describe('resolveSystemClass', () => {
  const classes = input([]).locationClasses;

  it('prefers the system entry over constellation and region (Egbinger: 8 over 7, 7)', () => {
    expect(resolveSystemClass(EGBINGER, classes)).toBe(8);
    expect(resolveSystemClass(SENTINEL, classes)).toBe(14);
  });

  it('uses the constellation entry, else the region entry', () => {
    expect(resolveSystemClass(KUHARAH, classes)).toBe(25);
    const regionOnly = new Map([[10000002, 7]]);
    expect(resolveSystemClass(JITA, regionOnly)).toBe(7);
  });

  it('forces Zarzakh (30100000, no entry at any level) to 10100', () => {
    expect(resolveSystemClass(ZARZAKH, classes)).toBe(10100);
    expect(resolveSystemClass({ ...ZARZAKH, solarSystemId: 30100001 }, classes)).toBe(-1);
  });

  it('falls back to -1 when no level has an entry (WF-1LM)', () => {
    expect(resolveSystemClass(WF_1LM, classes)).toBe(-1);
  });
});

describe('deriveSolarSystems', () => {
  it('high-sec (Jita): class title is the security text, no wormhole data', () => {
    expect(derive(JITA)).toStrictEqual({
      solar_system_id: 30000142,
      solar_system_name: 'Jita',
      solar_system_name_lc: 'jita',
      region_id: 10000002,
      region_name: 'The Forge',
      constellation_id: 20000020,
      constellation_name: 'Kimotoro',
      true_security: 0.945913,
      security: '0.9',
      system_class: 7,
      class_title: '0.9',
      type_description: 'High-sec',
      effect_name: null,
      effect_power: 0,
      statics: [],
      wandering: [],
      sun_type_id: 3796,
      triglavian_invasion_status: 'Normal',
      is_shattered: false,
    });
  });

  it('low-sec (Egbinger) and null-sec (BLMX-B)', () => {
    expect(derive(EGBINGER)).toMatchObject({ system_class: 8, security: '0.1', class_title: '0.1', type_description: 'Low-sec' });
    expect(derive(BLMX_B)).toMatchObject({ system_class: 9, security: '0.0', class_title: '0.0', type_description: 'Null-sec' });
  });

  it('C5 wormhole (J152820): statics, wandering, effect and the class effect power', () => {
    expect(derive(J152820)).toStrictEqual({
      solar_system_id: 31001880,
      solar_system_name: 'J152820',
      solar_system_name_lc: 'j152820',
      region_id: 11000024,
      region_name: 'E-R00024',
      constellation_id: 21000232,
      constellation_name: 'E-C00232',
      true_security: -0.99,
      security: '-1.0',
      system_class: 5,
      class_title: 'C5',
      type_description: 'Class 5',
      effect_name: 'Pulsar',
      effect_power: 5,
      statics: ['H296'],
      wandering: ['D792', 'C140', 'Z142'],
      sun_type_id: 45047,
      triglavian_invasion_status: 'Normal',
      is_shattered: false,
    });
  });

  it('a wormhole without effect keeps the class effect power (J112747, C3)', () => {
    expect(derive(J112747)).toMatchObject({ system_class: 3, class_title: 'C3', effect_name: null, effect_power: 3, statics: ['U210'] });
  });

  it('Thera: class 12, short name T, no effect power', () => {
    expect(derive(THERA)).toMatchObject({
      system_class: 12,
      class_title: 'T',
      type_description: 'Class 12 (Thera)',
      security: '-1.0',
      effect_name: null,
      effect_power: 0,
      statics: ['E587', 'Q063', 'V898'],
      wandering: [],
      is_shattered: false,
    });
  });

  it('shattered: constellation listed in shatteredConstellations.json (J015092, C1)', () => {
    expect(derive(J015092)).toMatchObject({ system_class: 1, class_title: 'C1', is_shattered: true, effect_name: 'Black Hole', effect_power: 1 });
    expect(derive(J015092, { shatteredConstellations: new Set() }).is_shattered).toBe(false);
  });

  it('Drifter (Sentinel MZ): class 14 from its system entry, shattered constellation', () => {
    expect(derive(SENTINEL)).toMatchObject({
      solar_system_name: 'Sentinel MZ',
      solar_system_name_lc: 'sentinel mz',
      system_class: 14,
      class_title: 'D',
      type_description: 'Class 14 (Sentinel Drifter)',
      effect_name: 'Red Giant',
      effect_power: 2,
      statics: ['D382'],
      is_shattered: true,
    });
  });

  it('Triglavian override (Kuharah, Pochven): status, statics and effect', () => {
    expect(derive(KUHARAH)).toMatchObject({
      system_class: 25,
      class_title: 'P',
      type_description: 'Triglavian space (Pochven)',
      security: '-1.0',
      triglavian_invasion_status: 'Final',
      effect_name: 'Dazh Liminality Locus',
      effect_power: 1,
      statics: ['C729'],
      wandering: [],
    });
  });

  it('Triglavian override without statics (Miakie, Edencom high-sec) keeps statics empty', () => {
    expect(derive(MIAKIE)).toMatchObject({
      system_class: 7,
      security: '0.5',
      class_title: '0.5',
      triglavian_invasion_status: 'Edencom',
      effect_name: 'Imperial Stellar Observatory',
      effect_power: 1,
      statics: [],
    });
  });

  it('Zarzakh: forced class 10100, its class short name (not the security)', () => {
    expect(derive(ZARZAKH)).toMatchObject({ system_class: 10100, class_title: 'N', type_description: 'Pirate space', security: '-1.0' });
  });

  it('no class entry: class -1 "CCP"', () => {
    expect(derive(WF_1LM)).toMatchObject({ system_class: -1, class_title: 'CCP', type_description: 'CCP System', security: '0.0' });
  });

  it('copies arrays, so rows never alias the parsed input', () => {
    const data = input([J152820]);
    const [row] = deriveSolarSystems(data);
    row!.statics.push('X');
    expect(data.wormholeSystems[0]!.statics).toEqual(['H296']);
  });

  it('rejects an unknown constellation, region or class, naming file and line', () => {
    const orphan = { ...JITA, constellationId: 20999999, line: 42 };
    expect(() => deriveSolarSystems(input([orphan]))).toThrow(StaticDataError);
    expect(() => deriveSolarSystems(input([orphan]))).toThrow('sde/mapSolarSystems.csv line 42: solar system 30000142: unknown constellationID 20999999');
    expect(() => deriveSolarSystems(input([{ ...JITA, regionId: 10999999 }]))).toThrow(/line 2: .*unknown regionID 10999999/);
    const noClasses = input([JITA], { wormholeClasses: CLASSES.filter((c) => c.wormholeClassId !== 7) });
    expect(() => deriveSolarSystems(noClasses)).toThrow(/wormhole class 7 is not in wormholeClasses\.json/);
  });
});
