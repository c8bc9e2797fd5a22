/**
 * Stargate jumps of the static data (`sde/mapSolarSystemJumps.csv`, header
 * `fromSolarSystemID,toSolarSystemID`, one row per direction): read and checked here, written by the
 * importer with the solar systems, read by the route finder (routes/route-graph-source.ts). A source
 * without the file imports no jumps (the route finder then only knows the wormhole connections it is
 * given).
 */
import type { Db } from '../db/db.js';
import { StaticDataError } from './sde-derive.js';
import { parseCsv, type StaticDataSource } from './sde-source.js';

export const JUMPS_FILE = 'mapSolarSystemJumps.csv';

/** One stargate, one way: a `solar_system_jumps` row. */
export interface StargateJump {
  from_solar_system_id: number;
  to_solar_system_id: number;
}

function systemId(value: string, file: string, line: number, column: string, known: ReadonlySet<number>): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new StaticDataError(file, `line ${line}`, `${column} must be an integer, got "${value}"`);
  if (!known.has(n)) throw new StaticDataError(file, `line ${line}`, `${column} ${n} is not a solar system of mapSolarSystems.csv`);
  return n;
}

/** Parses the jumps CSV; both ends must be systems of the source (`known`), a pair may not repeat. */
export function parseStargateJumps(text: string, file: string, known: ReadonlySet<number>): StargateJump[] {
  const { header, headerLine, records } = parseCsv(text, file);
  const from = header.indexOf('fromSolarSystemID');
  const to = header.indexOf('toSolarSystemID');
  for (const [i, col] of [
    [from, 'fromSolarSystemID'],
    [to, 'toSolarSystemID'],
  ] as const) {
    if (i < 0) throw new StaticDataError(file, `line ${headerLine}`, `missing column "${col}" (header: ${header.join(',')})`);
  }
  const seen = new Set<string>();
  return records.map((r) => {
    if (r.fields.length !== header.length) throw new StaticDataError(file, `line ${r.line}`, `expected ${header.length} fields, found ${r.fields.length}`);
    const a = systemId((r.fields[from] ?? '').trim(), file, r.line, 'fromSolarSystemID', known);
    const b = systemId((r.fields[to] ?? '').trim(), file, r.line, 'toSolarSystemID', known);
    if (a === b) throw new StaticDataError(file, `line ${r.line}`, `a jump from ${a} to itself`);
    const key = `${a}|${b}`;
    if (seen.has(key)) throw new StaticDataError(file, `line ${r.line}`, `the jump from ${a} to ${b} is listed twice`);
    seen.add(key);
    return { from_solar_system_id: a, to_solar_system_id: b };
  });
}

/** The source's stargate jumps between the systems `known`, or null when it has no jumps file. */
export async function loadStargateJumps(source: StaticDataSource, known: ReadonlySet<number>): Promise<StargateJump[] | null> {
  let text: string;
  try {
    text = await source.read('sde', JUMPS_FILE);
  } catch (err) {
    if (err instanceof StaticDataError && /file not found/.test(err.message)) return null;
    throw err;
  }
  return parseStargateJumps(text, source.locate('sde', JUMPS_FILE), known);
}

/** The solar_system_jumps table: the importer's writes and the route graph's read. */
export class StargateJumpRepository {
  /** Replaces every jump with `rows` (inside the importer's transaction). */
  async replaceAll(db: Db, rows: readonly StargateJump[]): Promise<void> {
    await db.run('delete from solar_system_jumps');
    if (rows.length === 0) return;
    await db.runBound(`insert into solar_system_jumps (from_solar_system_id, to_solar_system_id) select * from unnest($1::int[], $2::int[])`, [
      rows.map((r) => r.from_solar_system_id),
      rows.map((r) => r.to_solar_system_id),
    ]);
  }

  /** Every jump, as two parallel lists (from, to). */
  async all(db: Db): Promise<{ from: number[]; to: number[] }> {
    const rows = await db.all<{ from: number[] | null; to: number[] | null }>(
      'select array_agg(from_solar_system_id) as "from", array_agg(to_solar_system_id) as "to" from solar_system_jumps',
    );
    return { from: rows[0]?.from ?? [], to: rows[0]?.to ?? [] };
  }
}

/** The stamp of the last import (`static_data_imports`, one row): a process compares it to tell that its copy of the graph is out of date. */
export class StaticDataImportRepository {
  async mark(db: Db, systems: number, jumps: number): Promise<void> {
    await db.run(
      `insert into static_data_imports (id, imported_at, systems, jumps) values (1, clock_timestamp(), ?, ?)
       on conflict (id) do update set imported_at = excluded.imported_at, systems = excluded.systems, jumps = excluded.jumps`,
      [systems, jumps],
    );
  }

  /** The last import's time (as text, to the microsecond), or null before the first import. */
  async last(db: Db): Promise<string | null> {
    const row = await db.one<{ at: string }>(`select imported_at::text as at from static_data_imports where id = 1`);
    return row?.at ?? null;
  }
}
