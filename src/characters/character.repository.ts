import type { Db } from '../db/db.js';
import type { CharacterDto } from './character.dto.js';
import { NotFoundError } from '../common/errors.js';

/** The columns of a character as its DTO carries them (`ch` is the characters alias). */
export const CHARACTER_COLUMNS = `ch.eve_id, ch.name, ch.corporation_id, ch.corporation_ticker, ch.alliance_id, ch.alliance_ticker`;

/** A characters row as CHARACTER_COLUMNS selects it (optionally prefixed in joins). */
export type CharacterRow = Record<string, unknown>;

export function toCharacterDto(row: CharacterRow, prefix = ''): CharacterDto {
  return {
    eve_id: row[`${prefix}eve_id`] as string,
    name: row[`${prefix}name`] as string,
    corporation_id: row[`${prefix}corporation_id`] as string,
    corporation_ticker: row[`${prefix}corporation_ticker`] as string,
    alliance_id: (row[`${prefix}alliance_id`] as string | null) ?? null,
    alliance_ticker: (row[`${prefix}alliance_ticker`] as string | null) ?? null,
  };
}

/** A character with its row id and owning user. */
export interface StoredCharacter {
  id: string;
  user_id: string | null;
  character: CharacterDto;
}

/** The fields a character is written with: those of its DTO. */
export type CharacterFields = CharacterDto;

function stored(row: CharacterRow): StoredCharacter {
  return { id: row.id as string, user_id: (row.user_id as string | null) ?? null, character: toCharacterDto(row) };
}

/** The characters table: its one writer and every lookup of a character. */
export class CharacterRepository {
  async list(db: Db): Promise<StoredCharacter[]> {
    return (await db.all<CharacterRow>(`select ch.id, ch.user_id, ${CHARACTER_COLUMNS} from characters ch order by ch.name, ch.eve_id`)).map(stored);
  }

  async byEveId(db: Db, eveId: string): Promise<StoredCharacter | undefined> {
    const row = await db.one<CharacterRow>(`select ch.id, ch.user_id, ${CHARACTER_COLUMNS} from characters ch where ch.eve_id = ?`, [eveId]);
    return row && stored(row);
  }

  /** The character with this eve_id, or 404 `character_not_found` (with `message` when given). */
  async requireByEveId(db: Db, eveId: string, message = 'Character not found'): Promise<StoredCharacter> {
    const found = await this.byEveId(db, eveId);
    if (!found) throw new NotFoundError(message, 'character_not_found');
    return found;
  }

  async byId(db: Db, id: string): Promise<StoredCharacter | undefined> {
    const row = await db.one<CharacterRow>(`select ch.id, ch.user_id, ${CHARACTER_COLUMNS} from characters ch where ch.id = ?`, [id]);
    return row && stored(row);
  }

  /** DTOs by row id (ids not found are left out). */
  async dtosByIds(db: Db, ids: readonly string[]): Promise<Map<string, CharacterDto>> {
    if (ids.length === 0) return new Map();
    const rows = await db.all<CharacterRow>(
      `select ch.id, ${CHARACTER_COLUMNS} from characters ch where ch.id = any(select jsonb_array_elements_text(?::jsonb)::uuid)`,
      [JSON.stringify(ids)],
    );
    return new Map(rows.map((r) => [r.id as string, toCharacterDto(r)]));
  }

  async ofUser(db: Db, userId: string): Promise<CharacterDto[]> {
    return (await db.all<CharacterRow>(`select ${CHARACTER_COLUMNS} from characters ch where ch.user_id = ? order by ch.name`, [userId])).map((r) =>
      toCharacterDto(r),
    );
  }

  /** Creates or updates by eve_id; the owning user changes only when `userId` is given (null clears it). */
  async upsert(db: Db, c: CharacterFields, userId: string | null | undefined): Promise<StoredCharacter> {
    const row = await db.one<CharacterRow>(
      `insert into characters as ch (eve_id, name, corporation_id, corporation_ticker, alliance_id, alliance_ticker, user_id)
       values (?, ?, ?, ?, ?, ?, ?)
       on conflict (eve_id) do update set name = excluded.name, corporation_id = excluded.corporation_id,
         corporation_ticker = excluded.corporation_ticker, alliance_id = excluded.alliance_id,
         alliance_ticker = excluded.alliance_ticker,
         user_id = ${userId !== undefined ? 'excluded.user_id' : 'ch.user_id'}, updated_at = now()
       returning ch.id, ch.user_id, ${CHARACTER_COLUMNS}`,
      [c.eve_id, c.name, c.corporation_id, c.corporation_ticker, c.alliance_id, c.alliance_ticker, userId ?? null],
    );
    return stored(row!);
  }

  /**
   * How a member is shown: a character's name, a corporation's or an alliance's ticker, taken from
   * any known character of it; undefined when no character knows it.
   */
  async labelFor(db: Db, type: 'character' | 'corporation' | 'alliance', eveId: string): Promise<string | undefined> {
    const column = { character: 'eve_id', corporation: 'corporation_id', alliance: 'alliance_id' }[type];
    const label = { character: 'name', corporation: 'corporation_ticker', alliance: 'alliance_ticker' }[type];
    return (await db.one<{ label: string | null }>(`select ${label} as label from characters where ${column} = ? limit 1`, [eveId]))?.label ?? undefined;
  }
}
