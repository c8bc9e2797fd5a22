/**
 * Backfill of a resuming stream client (decisions §6): every event of the map after its last id, in
 * order, from the hot history when it still reaches back that far, else from the PostgreSQL event
 * log; an id older than retained history, more events behind than the backfill maximum, or after the
 * map's newest event gets a reset instead: never a silent partial replay, never a silent stream.
 */
import type { EventEnvelope } from '../events/envelope.js';
import type { EventHistory } from '../events/transport/types.js';

export interface EventLogReader {
  list(mapId: string, after: string | undefined, limit: number): Promise<EventEnvelope[]>;
  oldestId(mapId: string): Promise<string | null>;
  newestId(mapId: string): Promise<string | null>;
}

export type BackfillResult =
  | { kind: 'replayed'; count: number; lastId: string | null }
  | { kind: 'reset'; reason: 'retention' | 'backfill_limit'; earliestEventId: string | null }
  /** The id is after the map's newest event (or the map has none): not one the map has sent. */
  | { kind: 'reset'; reason: 'unknown_event_id'; earliestEventId: string | null; newestEventId: string | null };

const PAGE = 500;

/**
 * Reads the events after `afterId` and hands each to `emit` in id order; `emit` may be async (it
 * writes a frame). Returns what happened: replayed (with the last id handed over) or reset. A null
 * `afterId` is a connection that has had no event of a map that had none when it connected: every
 * event the map has now came after, and is read from the event log (no retention reset).
 */
export async function backfill(
  /** `logOnly`: read the event log even where the hot history reaches (it may share a hole the live events had). */
  sources: { history: EventHistory; log: EventLogReader; logOnly?: boolean },
  mapId: string,
  afterId: string | null,
  max: number,
  emit: (e: EventEnvelope) => void | Promise<void>,
): Promise<BackfillResult> {
  if (afterId !== null) {
    // Ids only grow, and the event log has every id before the hot history does: an id past both newest
    // ones was never the map's (another map's, or a clock ahead). Replaying after it would send nothing,
    // and live events would be taken for ones the client has, until time passed it.
    const [hotNewest, logNewest] = await Promise.all([sources.history.lastId(mapId), sources.log.newestId(mapId)]);
    const newest = hotNewest === null ? logNewest : logNewest === null || hotNewest > logNewest ? hotNewest : logNewest;
    if (newest === null || afterId > newest) {
      return { kind: 'reset', reason: 'unknown_event_id', earliestEventId: await sources.log.oldestId(mapId), newestEventId: newest };
    }
  }
  const hotFirst = afterId === null || sources.logOnly ? null : await sources.history.firstId(mapId);
  // Trimming drops the oldest entries only: when the hot history still holds an id at or before the
  // client's, it holds every later one.
  const fromHot = hotFirst !== null && afterId !== null && hotFirst <= afterId;
  if (!fromHot && afterId !== null) {
    const oldest = await sources.log.oldestId(mapId);
    if (oldest !== null && oldest > afterId) return { kind: 'reset', reason: 'retention', earliestEventId: oldest };
  }
  const read = (after: string | null, limit: number) =>
    fromHot ? sources.history.range(mapId, after, limit) : sources.log.list(mapId, after ?? undefined, limit);
  // Counted before anything is sent, so a client too far behind gets a reset, not a partial replay.
  let probe = afterId;
  let behind = 0;
  while (behind <= max) {
    const page = await read(probe, Math.min(PAGE, max + 1 - behind));
    if (page.length === 0) break;
    behind += page.length;
    probe = page.at(-1)!.id;
  }
  if (behind > max) {
    const first = (await read(afterId, 1))[0];
    return { kind: 'reset', reason: 'backfill_limit', earliestEventId: first?.id ?? null };
  }
  let cursor = afterId;
  let count = 0;
  for (;;) {
    const page = await read(cursor, PAGE);
    if (page.length === 0) break;
    for (const e of page) await emit(e);
    count += page.length;
    cursor = page.at(-1)!.id;
    if (count >= behind) break;
  }
  return { kind: 'replayed', count, lastId: count ? cursor : null };
}
