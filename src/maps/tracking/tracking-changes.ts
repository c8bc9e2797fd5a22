/**
 * Tracking changes with their events, for every writer (the editing API and administration): a
 * character that becomes tracked emits character_added, one that stops being tracked (untracked or
 * removed) character_removed, in the transaction of the change.
 */
import type { Db } from '../../db/db.js';
import type { Outbox } from '../../events/outbox.js';
import type { StoredCharacter } from '../../characters/character.repository.js';
import { characterAddedEvent, characterRemovedEvent, mapCharacterPayload } from '../event-payloads.js';
import type { TrackingRepository } from './tracking.repository.js';

/** Sets the flag (adding the character to the map when needed) and emits the event its change calls for. */
export async function changeTracking(
  tx: Db,
  outbox: Outbox,
  tracking: TrackingRepository,
  mapId: string,
  character: StoredCharacter,
  tracked: boolean,
): Promise<{ id: string; tracked: boolean }> {
  const row = await tracking.setTracked(tx, mapId, character.id, tracked);
  const payload = () => mapCharacterPayload(row.id, character.id, character.character, row.tracked);
  if (row.tracked && row.was !== true) await outbox.append(tx.em, [characterAddedEvent(mapId, payload())]);
  if (!row.tracked && row.was === true) await outbox.append(tx.em, [characterRemovedEvent(mapId, payload())]);
  return row;
}

/** Removes the character from the map; character_removed when it was tracked. */
export async function removeFromMap(tx: Db, outbox: Outbox, tracking: TrackingRepository, mapId: string, character: StoredCharacter): Promise<void> {
  const removed = await tracking.remove(tx, mapId, character.id);
  if (removed?.tracked) await outbox.append(tx.em, [characterRemovedEvent(mapId, mapCharacterPayload(removed.id, character.id, character.character, false))]);
}
