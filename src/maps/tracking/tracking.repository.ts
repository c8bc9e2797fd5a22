import type { Db } from '../../db/db.js';
import { CHARACTER_COLUMNS, toCharacterDto, type CharacterRow } from '../../characters/character.repository.js';
import type { TrackedCharacterDto } from '../map.dto.js';
import type { UserCharactersDto } from './tracking.dto.js';

/** The map_characters table: which characters a map tracks. Its one writer. */
export class TrackingRepository {
  /**
   * Adds the character to the map with `tracked`, or sets `tracked` on it; `updated_at` moves only
   * when the flag changes. Returns the row id, the flag, and the flag before (`was`, null when the
   * character was not on the map).
   */
  async setTracked(db: Db, mapId: string, characterId: string, tracked: boolean): Promise<{ id: string; tracked: boolean; was: boolean | null }> {
    // The CTE reads the row as it was before the statement: the flag the change started from.
    return (await db.one<{ id: string; tracked: boolean; was: boolean | null }>(
      `with prev as (select tracked from map_characters where map_id = ? and character_id = ?)
       insert into map_characters (map_id, character_id, tracked) values (?, ?, ?)
       on conflict (map_id, character_id) do update set tracked = excluded.tracked,
         updated_at = case when map_characters.tracked = excluded.tracked then map_characters.updated_at else now() end
       returning id, tracked, (select tracked from prev) as was`,
      [mapId, characterId, mapId, characterId, tracked],
    ))!;
  }

  /** Removes the character from the map; the removed row's id and flag, if there was one. */
  async remove(db: Db, mapId: string, characterId: string): Promise<{ id: string; tracked: boolean } | undefined> {
    return db.one<{ id: string; tracked: boolean }>('delete from map_characters where map_id = ? and character_id = ? returning id, tracked', [
      mapId,
      characterId,
    ]);
  }

  /** The character's entries on maps that track it. */
  async trackedEntries(db: Db, characterId: string): Promise<{ id: string; map_id: string }[]> {
    return db.all<{ id: string; map_id: string }>('select id, map_id from map_characters where character_id = ? and tracked order by map_id', [characterId]);
  }

  /** The map's characters with their flag, by name. */
  async list(db: Db, mapId: string): Promise<TrackedCharacterDto[]> {
    const rows = await db.all<CharacterRow>(
      `select mc.id, mc.tracked, mc.map_id, ${CHARACTER_COLUMNS}
       from map_characters mc join characters ch on ch.id = mc.character_id
       where mc.map_id = ? order by ch.name, ch.eve_id`,
      [mapId],
    );
    return rows.map((r) => ({ id: r.id as string, character: toCharacterDto(r), tracked: r.tracked as boolean, map_id: r.map_id as string }));
  }

  /** The map's characters grouped by user; a character without a user forms its own group. */
  async byUser(db: Db, mapId: string): Promise<UserCharactersDto[]> {
    const rows = await db.all<CharacterRow>(
      `select coalesce(ch.user_id::text, ch.id::text) as group_key, main.eve_id as main_eve_id, ${CHARACTER_COLUMNS}
       from map_characters mc
       join characters ch on ch.id = mc.character_id
       left join users u on u.id = ch.user_id
       left join characters main on main.id = u.main_character_id and main.user_id = u.id
       where mc.map_id = ? order by ch.name, ch.eve_id`,
      [mapId],
    );
    const groups = new Map<string, UserCharactersDto>();
    for (const r of rows) {
      const key = r.group_key as string;
      let group = groups.get(key);
      if (!group) {
        group = { characters: [], main_character_eve_id: (r.main_eve_id as string | null) ?? null };
        groups.set(key, group);
      }
      group.characters.push(toCharacterDto(r));
    }
    return [...groups.values()];
  }
}
