/** Read side of the static system data (spec 4.2 `GET /api/common/system-static-info`). */
import type { Db } from '../db/db.js';
import type { StaticDataDb } from './sde-importer.js';
import type { StaticDetailDto, SystemStaticInfoDto } from './static-info.dto.js';
import { WormholeTypeRepository, type WormholeTypeRow } from './wormhole-types.js';

const INT4_MIN = -2_147_483_648;
const INT4_MAX = 2_147_483_647;

export class StaticInfoService {
  constructor(
    private readonly db: Db,
    private readonly wormholeTypes = new WormholeTypeRepository(),
  ) {}

  /** The static information of one solar system, or null when the id is unknown (or not an int4). */
  async getSystemStaticInfo(solarSystemId: number): Promise<SystemStaticInfoDto | null> {
    if (!Number.isInteger(solarSystemId) || solarSystemId < INT4_MIN || solarSystemId > INT4_MAX) return null;
    const row = await this.db
      .kysely<StaticDataDb>()
      .selectFrom('solar_systems')
      .select([
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
        'sun_type_id',
      ])
      .where('solar_system_id', '=', solarSystemId)
      .executeTakeFirst();
    if (!row) return null;
    const types = await this.wormholeTypes.byNames(this.db, row.statics);
    return { ...row, static_details: row.statics.map((name) => staticDetail(name, types.get(name.toUpperCase()))) };
  }

  /** Number of solar systems imported (0 before the first import). */
  async count(): Promise<number> {
    const { n } = await this.db
      .kysely<StaticDataDb>()
      .selectFrom('solar_systems')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(n);
  }
}

/** The details of one static; a type the static data does not know has an unknown destination and no properties. */
export function staticDetail(name: string, type: WormholeTypeRow | undefined): StaticDetailDto {
  const first = type?.destinations[0];
  return {
    name,
    destination: {
      id: first?.id ?? null,
      name: first?.name ?? 'Unknown',
      short_name: first?.short_name ?? '?',
      destinations: type?.destinations.map((d) => d.id) ?? [],
    },
    properties: {
      lifetime: type?.lifetime ?? null,
      max_mass: type?.total_mass ?? null,
      max_jump_mass: type?.max_mass_per_jump ?? null,
      mass_regeneration: type?.mass_regen ?? null,
    },
  };
}
