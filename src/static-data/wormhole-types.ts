/**
 * Wormhole types of the static data (`wormholes/wormholes.json`, with the class names of
 * `wormholeClasses.json`): read and checked here, written by the importer, read for `static_details`.
 * A source without wormholes.json imports no types (the details then name an unknown destination).
 */
import type { Db } from '../db/db.js';
import { StaticDataError } from './sde-derive.js';
import type { StaticDataSource } from './sde-source.js';

/** A class a wormhole type leads to. */
export interface WormholeDestination {
  /** Class id of the static data, e.g. `c13`, `hs`, `pochven`. */
  id: string;
  /** e.g. `Class 13`, `High-Sec`; the id when the class is unknown. */
  name: string;
  /** e.g. `C13`, `H`; the id when the class is unknown. */
  short_name: string;
}

/** A wormhole_types row. */
export interface WormholeTypeRow {
  name: string;
  destinations: WormholeDestination[];
  lifetime: string | null;
  total_mass: number | null;
  max_mass_per_jump: number | null;
  mass_regen: number | null;
}

type Json = Record<string, unknown>;

function list(text: string, file: string): Json[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new StaticDataError(file, undefined, `invalid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(value) || !value.every((e) => typeof e === 'object' && e !== null && !Array.isArray(e))) {
    throw new StaticDataError(file, undefined, 'expected a JSON array of objects');
  }
  return value as Json[];
}

/** A mass written as a number or as decimal text (the data has both); null when absent or empty (K162 has ""). */
function mass(e: Json, key: string, file: string, where: string): number | null {
  const v = e[key];
  if (v === undefined || v === null || v === '') return null;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw new StaticDataError(file, where, `${key} must be a mass in kg, got ${JSON.stringify(v)}`);
  return n;
}

/** Parses wormholes.json, naming destinations from wormholeClasses.json. */
export function parseWormholeTypes(typesText: string, typesFile: string, classesText: string, classesFile: string): WormholeTypeRow[] {
  const classes = new Map<string, WormholeDestination>();
  for (const c of list(classesText, classesFile)) {
    if (typeof c.id === 'string' && typeof c.title === 'string' && typeof c.shortName === 'string') {
      classes.set(c.id, { id: c.id, name: c.title, short_name: c.shortName });
    }
  }
  const seen = new Set<string>();
  return list(typesText, typesFile).map((e, i) => {
    const where = `entry ${i}${typeof e.name === 'string' ? ` (${e.name})` : ''}`;
    if (typeof e.name !== 'string' || !/^[A-Za-z0-9]{1,16}$/.test(e.name)) throw new StaticDataError(typesFile, where, 'name must be a wormhole type code');
    const name = e.name.toUpperCase();
    if (seen.has(name)) throw new StaticDataError(typesFile, where, `${name} is listed twice`);
    seen.add(name);
    const dest = e.dest === undefined || e.dest === null ? [] : e.dest;
    if (!Array.isArray(dest) || !dest.every((d) => typeof d === 'string'))
      throw new StaticDataError(typesFile, where, 'dest must be a list of class ids or null');
    const lifetime = e.lifetime === undefined || e.lifetime === null || e.lifetime === '' ? null : String(e.lifetime);
    return {
      name,
      destinations: (dest as string[]).map((id) => classes.get(id) ?? { id, name: id, short_name: id }),
      lifetime,
      total_mass: mass(e, 'total_mass', typesFile, where),
      max_mass_per_jump: mass(e, 'max_mass_per_jump', typesFile, where),
      mass_regen: mass(e, 'mass_regen', typesFile, where),
    };
  });
}

/** The source's wormhole types, or none when it has no wormholes.json. */
export async function loadWormholeTypes(source: StaticDataSource): Promise<WormholeTypeRow[]> {
  let types: string;
  try {
    types = await source.read('wormholes', 'wormholes.json');
  } catch (err) {
    if (err instanceof StaticDataError && /file not found/.test(err.message)) return [];
    throw err;
  }
  const classes = await source.read('wormholes', 'wormholeClasses.json');
  return parseWormholeTypes(types, source.locate('wormholes', 'wormholes.json'), classes, source.locate('wormholes', 'wormholeClasses.json'));
}

/** The wormhole_types table: the importer's writes and the static information's reads. */
export class WormholeTypeRepository {
  /** Replaces every type with `rows` (inside the importer's transaction). */
  async replaceAll(db: Db, rows: readonly WormholeTypeRow[]): Promise<void> {
    await db.run('delete from wormhole_types');
    if (rows.length === 0) return;
    await db.run(
      `insert into wormhole_types (name, destinations, lifetime, total_mass, max_mass_per_jump, mass_regen)
       select name, destinations, lifetime, total_mass, max_mass_per_jump, mass_regen
       from jsonb_to_recordset(?::jsonb) as t(name text, destinations jsonb, lifetime text, total_mass bigint, max_mass_per_jump bigint, mass_regen bigint)`,
      [JSON.stringify(rows)],
    );
  }

  /** The types among `names`, by name. */
  async byNames(db: Db, names: readonly string[]): Promise<Map<string, WormholeTypeRow>> {
    if (names.length === 0) return new Map();
    const rows = await db.all<WormholeTypeRow & { total_mass: string | null; max_mass_per_jump: string | null; mass_regen: string | null }>(
      `select name, destinations, lifetime, total_mass::text, max_mass_per_jump::text, mass_regen::text from wormhole_types
       where name = any(select jsonb_array_elements_text(?::jsonb))`,
      [JSON.stringify(names.map((n) => n.toUpperCase()))],
    );
    const num = (v: string | null) => (v === null ? null : Number(v));
    return new Map(
      rows.map((r) => [r.name, { ...r, total_mass: num(r.total_mass), max_mass_per_jump: num(r.max_mass_per_jump), mass_regen: num(r.mass_regen) }]),
    );
  }
}
