import type { Db } from '../db/db.js';

/** What map content takes from the static data of a solar system. */
export interface SolarSystemInfo {
  solar_system_id: number;
  solar_system_name: string;
  type_description: string | null;
  class_title: string | null;
  statics: string[] | null;
}

/** Lookups of the `solar_systems` static data (the importer writes it: sde-importer.ts). */
export class SolarSystemRepository {
  /** The systems among `ids` that the static data knows, by id. */
  async byIds(db: Db, ids: readonly number[]): Promise<Map<number, SolarSystemInfo>> {
    if (ids.length === 0) return new Map();
    const rows = await db.all<SolarSystemInfo>(
      `select solar_system_id, solar_system_name, type_description, class_title, statics from solar_systems
       where solar_system_id = any(select jsonb_array_elements_text(?::jsonb)::int)`,
      [JSON.stringify([...new Set(ids)])],
    );
    return new Map(rows.map((r) => [r.solar_system_id, r]));
  }

  /** What the route graph needs of every solar system (routes/route-graph.ts). */
  async forRoutes(db: Db): Promise<{ solar_system_id: number; solar_system_name: string; security: string; system_class: number }[]> {
    return db.all('select solar_system_id, solar_system_name, security, system_class from solar_systems');
  }

  /** The first `limit` solar system ids in id order (the demo's fallback when its preferred systems are missing). */
  async firstIds(db: Db, limit: number): Promise<number[]> {
    return (await db.all<{ solar_system_id: number }>('select solar_system_id from solar_systems order by solar_system_id limit ?', [limit])).map(
      (r) => r.solar_system_id,
    );
  }
}
