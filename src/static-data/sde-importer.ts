/**
 * The static data importer: reads a source, derives the `solar_systems` rows and upserts them all in one
 * transaction, with the wormhole types and the stargate jumps, which it replaces. Running it again with
 * the same data changes nothing but rewrites the rows (idempotent).
 */
import type { Db } from '../db/db.js';
import { deriveSolarSystems, type SolarSystemRow } from './sde-derive.js';
import { loadStaticData, openStaticDataSource } from './sde-source.js';
import { loadWormholeTypes, WormholeTypeRepository } from './wormhole-types.js';
import { JUMPS_FILE, loadStargateJumps, StargateJumpRepository, StaticDataImportRepository } from './stargate-jumps.js';

/** Kysely view of the one table the importer writes. */
export interface StaticDataDb {
  solar_systems: SolarSystemRow;
}

export interface ImportOptions {
  /** Receives human-readable progress lines ("read 8437 systems", "wrote 2000/8437", "done in 1.2 s"). */
  progress?: (msg: string) => void;
  /** Base URL of the wormhole JSONs when `from` is a URL (default: the public wanderer repository). */
  wormholesUrl?: string;
  /** Rows per INSERT statement (19 parameters each; PostgreSQL allows 65535 per statement). */
  batchSize?: number;
}

export interface ImportResult {
  /** Systems in the source (= rows written). */
  systems: number;
  /** Rows that did not exist before. */
  inserted: number;
  /** Rows that existed and were overwritten. */
  updated: number;
  /** Stargate jumps written (one per direction; 0 when the source has no jumps file). */
  jumps: number;
  durationMs: number;
}

const DEFAULT_BATCH_SIZE = 1000;
const MAX_BATCH_SIZE = Math.floor(65535 / 19);

let importsInProcess = 0;

/** How many imports this process has committed: the route graph of this process reloads after one at once (others within its revalidation period). */
export function importsCommitted(): number {
  return importsInProcess;
}

/**
 * Imports the static system data from `from` (a folder with `sde/` and `wormholes/`, or the base URL of the
 * SDE CSVs) into `solar_systems`. The whole source is read and validated before the single transaction
 * starts, so a missing file or malformed row throws (StaticDataError, naming file and line) and writes nothing.
 */
export async function importStaticData(database: Db, from: string, opts: ImportOptions = {}): Promise<ImportResult> {
  const started = performance.now();
  const progress = opts.progress ?? (() => {});
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
    throw new RangeError(`batchSize must be an integer from 1 to ${MAX_BATCH_SIZE}`);
  }

  const source = openStaticDataSource(from, opts.wormholesUrl ? { wormholesUrl: opts.wormholesUrl } : {});
  progress(`reading ${source.description}`);
  const rows = deriveSolarSystems(await loadStaticData(source));
  const wormholeTypes = await loadWormholeTypes(source);
  const jumps = await loadStargateJumps(source, new Set(rows.map((r) => r.solar_system_id)));
  progress(`read ${rows.length} systems`);
  progress(`read ${wormholeTypes.length} wormhole types`);
  progress(
    jumps ? `read ${jumps.length} stargate jumps` : `no ${JUMPS_FILE} in the source: no stargate jumps (routes only over the wormhole connections given)`,
  );

  const { inserted, updated } = await database.transaction(async (tx) => {
    const db = tx.kysely<StaticDataDb>();
    const existing = new Set((await db.selectFrom('solar_systems').select('solar_system_id').execute()).map((r) => r.solar_system_id));
    for (let i = 0; i < rows.length; i += batchSize) {
      const batch = rows.slice(i, i + batchSize);
      await db
        .insertInto('solar_systems')
        .values(batch)
        .onConflict((oc) =>
          oc.column('solar_system_id').doUpdateSet((eb) => ({
            solar_system_name: eb.ref('excluded.solar_system_name'),
            solar_system_name_lc: eb.ref('excluded.solar_system_name_lc'),
            region_id: eb.ref('excluded.region_id'),
            region_name: eb.ref('excluded.region_name'),
            constellation_id: eb.ref('excluded.constellation_id'),
            constellation_name: eb.ref('excluded.constellation_name'),
            true_security: eb.ref('excluded.true_security'),
            security: eb.ref('excluded.security'),
            system_class: eb.ref('excluded.system_class'),
            class_title: eb.ref('excluded.class_title'),
            type_description: eb.ref('excluded.type_description'),
            effect_name: eb.ref('excluded.effect_name'),
            effect_power: eb.ref('excluded.effect_power'),
            statics: eb.ref('excluded.statics'),
            wandering: eb.ref('excluded.wandering'),
            sun_type_id: eb.ref('excluded.sun_type_id'),
            triglavian_invasion_status: eb.ref('excluded.triglavian_invasion_status'),
            is_shattered: eb.ref('excluded.is_shattered'),
          })),
        )
        .execute();
      progress(`wrote ${i + batch.length}/${rows.length}`);
    }
    await new WormholeTypeRepository().replaceAll(tx, wormholeTypes);
    await new StargateJumpRepository().replaceAll(tx, jumps ?? []);
    await new StaticDataImportRepository().mark(tx, rows.length, jumps?.length ?? 0);
    const fresh = rows.reduce((n, r) => n + (existing.has(r.solar_system_id) ? 0 : 1), 0);
    return { inserted: fresh, updated: rows.length - fresh };
  });

  importsInProcess++;

  const durationMs = Math.round(performance.now() - started);
  progress(`done in ${(durationMs / 1000).toFixed(1)} s (${inserted} inserted, ${updated} updated)`);
  return { systems: rows.length, inserted, updated, jumps: jumps?.length ?? 0, durationMs };
}
