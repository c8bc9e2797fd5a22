/**
 * Over 350 lines on purpose: the parsers of the eight source files and their type checks belong
 * together (one error format, one place to compare with the source layout); split, each piece would
 * be a few dozen lines that only make sense beside the others.
 *
 * Reading the static data: a folder with the layout of the public source (`sde/` CSVs and
 * `wormholes/` JSONs) or two URL bases. Every file is parsed and type-checked here, so a broken source
 * fails before anything is written, with the file and line (or JSON entry) in the message.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { StaticDataError, type SdeSolarSystem, type StaticDataInput, type TriglavianSystem, type WormholeClass, type WormholeSystem } from './sde-derive.js';

/** Public base of the SDE CSVs (wanderer-industries/wanderer-assets, generated from CCP's SDE). */
export const DEFAULT_SDE_URL = 'https://wanderer-industries.github.io/wanderer-assets/sde-files';
/** Public base of the wormhole JSONs (wanderer-industries/wanderer, priv/repo/data). */
export const DEFAULT_WORMHOLES_URL = 'https://raw.githubusercontent.com/wanderer-industries/wanderer/main/priv/repo/data';

const FETCH_TIMEOUT_MS = 60_000;

export type SourcePart = 'sde' | 'wormholes';

/** Where the files are read from. */
export interface StaticDataSource {
  /** For progress messages, e.g. the folder or the two URL bases. */
  readonly description: string;
  /** Path or URL of a file, as used in error messages. */
  locate(part: SourcePart, file: string): string;
  /** The file's text; throws StaticDataError when it is missing or unreadable. */
  read(part: SourcePart, file: string): Promise<string>;
}

export interface SourceOptions {
  /** Base URL of the wormhole JSONs when `from` is a URL; defaults to DEFAULT_WORMHOLES_URL. */
  wormholesUrl?: string;
}

/**
 * Opens `from`: an http(s) URL is the base of the SDE CSVs (`<from>/<file>`), with the wormhole JSONs
 * under `options.wormholesUrl`; anything else is a folder holding `sde/` and `wormholes/`.
 */
export function openStaticDataSource(from: string, options: SourceOptions = {}): StaticDataSource {
  if (/^https?:\/\//i.test(from)) {
    return urlSource(from, options.wormholesUrl ?? DEFAULT_WORMHOLES_URL);
  }
  if (options.wormholesUrl) throw new Error('wormholesUrl applies only when the source is a URL');
  return directorySource(path.resolve(from));
}

function directorySource(dir: string): StaticDataSource {
  const locate = (part: SourcePart, file: string) => path.join(dir, part, file);
  return {
    description: dir,
    locate,
    async read(part, file) {
      const where = locate(part, file);
      try {
        return await readFile(where, 'utf8');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        throw new StaticDataError(where, undefined, code === 'ENOENT' ? 'file not found' : `cannot read: ${String(err)}`);
      }
    },
  };
}

function urlSource(sdeBase: string, wormholesBase: string): StaticDataSource {
  const bases: Record<SourcePart, string> = { sde: sdeBase.replace(/\/+$/, ''), wormholes: wormholesBase.replace(/\/+$/, '') };
  const locate = (part: SourcePart, file: string) => `${bases[part]}/${file}`;
  return {
    description: `${bases.sde} and ${bases.wormholes}`,
    locate,
    async read(part, file) {
      const url = locate(part, file);
      let res: Response;
      try {
        res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        const why = cause?.code ?? cause?.message;
        throw new StaticDataError(url, undefined, `download failed: ${(err as Error).message}${why ? ` (${why})` : ''}`);
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw new StaticDataError(url, undefined, `download failed: HTTP ${res.status}${res.status === 404 ? ' (file not found)' : ''}`);
      }
      try {
        return await res.text();
      } catch (err) {
        throw new StaticDataError(url, undefined, `download interrupted: ${(err as Error).message}`);
      }
    },
  };
}

export interface CsvRecord {
  /** 1-based line where the record starts. */
  line: number;
  fields: string[];
}

/**
 * RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line breaks; CRLF or LF; a leading BOM
 * is ignored; blank lines are skipped. The first record is returned as `header`.
 */
export function parseCsv(text: string, file: string): { header: string[]; headerLine: number; records: CsvRecord[] } {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let inQuotes = false;
  let closedQuote = false;
  let line = 1;
  let recordLine = 1;
  const endField = () => {
    fields.push(field);
    field = '';
    closedQuote = false;
  };
  const endRecord = () => {
    endField();
    if (!(fields.length === 1 && fields[0] === '')) records.push({ line: recordLine, fields });
    fields = [];
  };

  const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          inQuotes = false;
          closedQuote = true;
        }
      } else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === ',') {
      endField();
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      recordLine = line;
    } else if (closedQuote) {
      throw new StaticDataError(file, `line ${line}`, 'unexpected text after a closing quote');
    } else if (c === '"' && field === '') {
      inQuotes = true;
    } else {
      field += c;
    }
  }
  if (inQuotes) throw new StaticDataError(file, `line ${recordLine}`, 'unterminated quoted field');
  endRecord();

  const [first, ...rest] = records;
  if (!first) throw new StaticDataError(file, undefined, 'empty file (no header)');
  return { header: first.fields.map((h) => h.trim()), headerLine: first.line, records: rest };
}

/** A CSV read into rows of named string fields, checked for the needed columns and field counts. */
function csvRows<K extends string>(text: string, file: string, columns: readonly K[]): { line: number; get(col: K): string }[] {
  const { header, headerLine, records } = parseCsv(text, file);
  const index = new Map<K, number>();
  for (const col of columns) {
    const i = header.indexOf(col);
    if (i < 0) throw new StaticDataError(file, `line ${headerLine}`, `missing column "${col}" (header: ${header.join(',')})`);
    index.set(col, i);
  }
  return records.map((r) => {
    if (r.fields.length !== header.length) {
      throw new StaticDataError(file, `line ${r.line}`, `expected ${header.length} fields, found ${r.fields.length}`);
    }
    return { line: r.line, get: (col: K) => (r.fields[index.get(col)!] ?? '').trim() };
  });
}

function intField(value: string, file: string, line: number, column: string): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new StaticDataError(file, `line ${line}`, `${column} must be an integer, got "${value}"`);
  }
  return n;
}

function floatField(value: string, file: string, line: number, column: string): number {
  const n = Number(value);
  if (value === '' || !Number.isFinite(n)) throw new StaticDataError(file, `line ${line}`, `${column} must be a number, got "${value}"`);
  return n;
}

function textField(value: string, file: string, line: number, column: string): string {
  if (value === '') throw new StaticDataError(file, `line ${line}`, `${column} is empty`);
  return value;
}

/** id → name from a two-column CSV (regions, constellations); duplicate ids are errors. */
function nameMap(text: string, file: string, idColumn: string, nameColumn: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const row of csvRows(text, file, [idColumn, nameColumn])) {
    const id = intField(row.get(idColumn), file, row.line, idColumn);
    if (out.has(id)) throw new StaticDataError(file, `line ${row.line}`, `duplicate ${idColumn} ${id}`);
    out.set(id, textField(row.get(nameColumn), file, row.line, nameColumn));
  }
  return out;
}

const SYSTEM_COLUMNS = ['solarSystemID', 'solarSystemName', 'regionID', 'constellationID', 'security', 'sunTypeID'] as const;

function parseSystems(text: string, file: string): SdeSolarSystem[] {
  const seen = new Set<number>();
  return csvRows(text, file, SYSTEM_COLUMNS).map((row) => {
    const solarSystemId = intField(row.get('solarSystemID'), file, row.line, 'solarSystemID');
    if (seen.has(solarSystemId)) throw new StaticDataError(file, `line ${row.line}`, `duplicate solarSystemID ${solarSystemId}`);
    seen.add(solarSystemId);
    const sun = row.get('sunTypeID');
    return {
      solarSystemId,
      solarSystemName: textField(row.get('solarSystemName'), file, row.line, 'solarSystemName'),
      regionId: intField(row.get('regionID'), file, row.line, 'regionID'),
      constellationId: intField(row.get('constellationID'), file, row.line, 'constellationID'),
      trueSecurity: floatField(row.get('security'), file, row.line, 'security'),
      // Systems without a star (Abyssal, void) have "None"; the column is NOT NULL, 0 as in the reference.
      sunTypeId: sun === 'None' || sun === '' ? 0 : intField(sun, file, row.line, 'sunTypeID'),
      line: row.line,
    };
  });
}

function parseLocationClasses(text: string, file: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const row of csvRows(text, file, ['locationID', 'wormholeClassID'] as const)) {
    const id = intField(row.get('locationID'), file, row.line, 'locationID');
    if (out.has(id)) throw new StaticDataError(file, `line ${row.line}`, `duplicate locationID ${id}`);
    out.set(id, intField(row.get('wormholeClassID'), file, row.line, 'wormholeClassID'));
  }
  return out;
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new StaticDataError(file, undefined, `invalid JSON: ${(err as Error).message}`);
  }
}

type JsonObject = Record<string, unknown>;

/** Checks one JSON entry's fields; errors name the file and the entry (index and id when known). */
class EntryReader {
  constructor(
    private readonly file: string,
    private readonly where: string,
    private readonly entry: JsonObject,
  ) {}

  static list(value: unknown, file: string): EntryReader[] {
    if (!Array.isArray(value)) throw new StaticDataError(file, undefined, 'expected a JSON array');
    return value.map((e, i) => {
      if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new StaticDataError(file, `entry ${i}`, 'expected an object');
      const id = (e as JsonObject).solarSystemID ?? (e as JsonObject).wormholeClassID;
      return new EntryReader(file, `entry ${i}${id !== undefined ? ` (${JSON.stringify(id)})` : ''}`, e as JsonObject);
    });
  }

  private fail(key: string, expected: string): never {
    throw new StaticDataError(this.file, this.where, `${key} must be ${expected}, got ${JSON.stringify(this.entry[key]) ?? 'nothing'}`);
  }

  int(key: string, fallback?: number): number {
    const v = this.entry[key];
    if (v === undefined && fallback !== undefined) return fallback;
    return Number.isSafeInteger(v) ? (v as number) : this.fail(key, 'an integer');
  }

  string(key: string): string {
    const v = this.entry[key];
    return typeof v === 'string' && v !== '' ? v : this.fail(key, 'a non-empty string');
  }

  nullableString(key: string): string | null {
    const v = this.entry[key];
    if (v === undefined || v === null) return null;
    return typeof v === 'string' ? v : this.fail(key, 'a string or null');
  }

  strings(key: string, optional: true): string[] | undefined;
  strings(key: string, optional?: false): string[];
  strings(key: string, optional = false): string[] | undefined {
    const v = this.entry[key];
    if (v === undefined && optional) return undefined;
    return Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : this.fail(key, 'an array of strings');
  }
}

function parseWormholeClasses(text: string, file: string): WormholeClass[] {
  return EntryReader.list(parseJson(text, file), file).map((e) => ({
    wormholeClassId: e.int('wormholeClassID'),
    shortName: e.string('shortName'),
    title: e.string('title'),
    effectPower: e.int('effectPower', 0),
  }));
}

function parseWormholeSystems(text: string, file: string): WormholeSystem[] {
  return EntryReader.list(parseJson(text, file), file).map((e) => ({
    solarSystemId: e.int('solarSystemID'),
    statics: e.strings('statics'),
    wanderers: e.strings('wanderers', true) ?? [],
    effectName: e.nullableString('effectName'),
  }));
}

function parseTriglavianSystems(text: string, file: string): TriglavianSystem[] {
  return EntryReader.list(parseJson(text, file), file).map((e) => ({
    solarSystemId: e.int('solarSystemID'),
    statics: e.strings('statics', true),
    effectName: e.nullableString('effectName'),
    effectPower: e.int('effectPower', 0),
    invasionStatus: e.string('invasionStatus'),
  }));
}

/** shatteredConstellations.json is an object keyed by constellation id (`{"21000334": true}`). */
function parseShattered(text: string, file: string): Set<number> {
  const value = parseJson(text, file);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new StaticDataError(file, undefined, 'expected an object keyed by constellation id');
  }
  const out = new Set<number>();
  for (const [key, flag] of Object.entries(value)) {
    if (!/^\d+$/.test(key)) throw new StaticDataError(file, `key "${key}"`, 'must be a constellation id');
    if (flag) out.add(Number(key));
  }
  return out;
}

/** Reads and validates every file the derivation needs (fetched in parallel; the first failing file in this order is reported). */
export async function loadStaticData(source: StaticDataSource): Promise<StaticDataInput> {
  const at = (part: SourcePart, file: string) => source.locate(part, file);
  const settled = await Promise.allSettled([
    source.read('sde', 'mapSolarSystems.csv'),
    source.read('sde', 'mapConstellations.csv'),
    source.read('sde', 'mapRegions.csv'),
    source.read('sde', 'mapLocationWormholeClasses.csv'),
    source.read('wormholes', 'wormholeClasses.json'),
    source.read('wormholes', 'wormholeSystems.json'),
    source.read('wormholes', 'triglavianSystems.json'),
    source.read('wormholes', 'shatteredConstellations.json'),
  ]);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const [systems, constellations, regions, locations, classes, wormholes, triglavian, shattered] = settled.map(
    (r) => (r as PromiseFulfilledResult<string>).value,
  ) as [string, string, string, string, string, string, string, string];
  return {
    systemsFile: at('sde', 'mapSolarSystems.csv'),
    systems: parseSystems(systems, at('sde', 'mapSolarSystems.csv')),
    constellations: nameMap(constellations, at('sde', 'mapConstellations.csv'), 'constellationID', 'constellationName'),
    regions: nameMap(regions, at('sde', 'mapRegions.csv'), 'regionID', 'regionName'),
    locationClasses: parseLocationClasses(locations, at('sde', 'mapLocationWormholeClasses.csv')),
    wormholeClasses: parseWormholeClasses(classes, at('wormholes', 'wormholeClasses.json')),
    wormholeSystems: parseWormholeSystems(wormholes, at('wormholes', 'wormholeSystems.json')),
    triglavianSystems: parseTriglavianSystems(triglavian, at('wormholes', 'triglavianSystems.json')),
    shatteredConstellations: parseShattered(shattered, at('wormholes', 'shatteredConstellations.json')),
  };
}
