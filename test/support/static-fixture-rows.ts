/**
 * The static information the importer writes for three systems of the fixture (assets/eve-static-sample),
 * as the importer tests expect it, without `static_details` (test/api/static-info.test.ts checks those).
 */
import type { StaticInfoService } from '../../src/static-data/static-info.service.js';
import type { SystemStaticInfoDto } from '../../src/static-data/static-info.dto.js';

/** The static information without `static_details` (checked in test/api/static-info.test.ts). */
export type StaticFields = Omit<SystemStaticInfoDto, 'static_details'>;

export async function withoutDetails(service: StaticInfoService, id: number): Promise<StaticFields | null> {
  const info = await service.getSystemStaticInfo(id);
  if (!info) return info;
  const { static_details: _details, ...fields } = info;
  return fields;
}

export const J152820: StaticFields = {
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

export const JITA: StaticFields = {
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

export const THERA: StaticFields = {
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
