import type { Db } from '../../db/db.js';

/** The map_characters table: which characters a map tracks. Its one writer. */
export class TrackingRepository {
  /**
   * Adds the character to the map with `tracked`, or sets `tracked` on it; `updated_at` moves only
   * when the flag changes. Returns the row id and the flag.
   */
  async setTracked(db: Db, mapId: string, characterId: string, tracked: boolean): Promise<{ id: string; tracked: boolean }> {
    return (await db.one<{ id: string; tracked: boolean }>(
      `insert into map_characters (map_id, character_id, tracked) values (?, ?, ?)
       on conflict (map_id, character_id) do update set tracked = excluded.tracked,
         updated_at = case when map_characters.tracked = excluded.tracked then map_characters.updated_at else now() end
       returning id, tracked`,
      [mapId, characterId, tracked],
    ))!;
  }

  async remove(db: Db, mapId: string, characterId: string): Promise<void> {
    await db.run('delete from map_characters where map_id = ? and character_id = ?', [mapId, characterId]);
  }
}
