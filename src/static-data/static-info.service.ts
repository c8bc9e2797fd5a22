/** Read side of the static system data (spec 4.2 `GET /api/common/system-static-info`). */
import type { Db } from '../db/db.js';
import type { StaticDataDb } from './sde-importer.js';
import type { SystemStaticInfoDto } from './static-info.dto.js';

const INT4_MIN = -2_147_483_648;
const INT4_MAX = 2_147_483_647;

export class StaticInfoService {
  constructor(private readonly db: Db) {}

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
    return row ?? null;
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
