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
  /**
   * How many events of the map have an id after `after` (every one for null) and, with `upTo`, at most
   * `upTo`, counting at most `limit`: ids only, no payload read.
   */
  countAfter(mapId: string, after: string | null, limit: number, upTo?: string): Promise<number>;
}

export type BackfillResult =
  | { kind: 'replayed'; count: number; lastId: string | null }
  | { kind: 'reset'; reason: 'retention' | 'backfill_limit'; earliestEventId: string | null }
  /** The id is after the map's newest event (or the map has none): not one the map has sent. */
  | { kind: 'reset'; reason: 'unknown_event_id'; earliestEventId: string | null; newestEventId: string | null };

/** Events in a page at most. */
const PAGE = 500;
/** Bytes a page is sized to hold (from the sizes of the events read so far): big events come a few at a time. */
export const PAGE_BYTES = 256 * 1024;
/** The size assumed of an event before any has been read. */
const FIRST_GUESS_BYTES = 4096;

/**
 * The bytes of replay pages a process holds at once, over every resuming connection: a page is read
 * only once its estimated size fits (one page is always let through, so a single event larger than the
 * budget still goes). First come, first served.
 */
export class BackfillBudget {
  private used = 0;
  private readonly waiting: { bytes: number; grant: () => void }[] = [];

  constructor(readonly capacity: number) {}

  /** Bytes held now. */
  inUse(): number {
    return this.used;
  }

  async take(bytes: number): Promise<void> {
    if (this.waiting.length === 0 && (this.used === 0 || this.used + bytes <= this.capacity)) {
      this.used += bytes;
      return;
    }
    await new Promise<void>((grant) => this.waiting.push({ bytes, grant }));
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!;
      if (this.used !== 0 && this.used + next.bytes > this.capacity) break;
      this.waiting.shift();
      this.used += next.bytes;
      next.grant();
    }
  }
}

/**
 * Reads the events after `afterId` and hands each to `emit` in id order; `emit` may be async (it
 * writes a frame, and waits until the client's socket takes it) and returns the bytes it wrote. Returns
 * what happened: replayed (with the last id handed over) or reset. A null `afterId` is a connection
 * that has had no event of a map that had none when it connected: every event the map has now came
 * after, and is read from the event log (no retention reset).
 *
 * The decision (replay or reset) is made from the gap's ends and the event log's count of ids, without
 * reading a payload; the replay is read in pages of about PAGE_BYTES, each only once the client has
 * taken the one before and the process's `budget` has room for it.
 */
export async function backfill(
  /**
   * `budget`: the process's bytes of replay pages; `logOnly`: read the event log even where the hot
   * history reaches (it may share a hole the live events had).
   */
  sources: { history: EventHistory; log: EventLogReader; budget?: BackfillBudget; logOnly?: boolean },
  mapId: string,
  afterId: string | null,
  max: number,
  emit: (e: EventEnvelope) => number | void | Promise<number | void>,
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
  // client's, it holds every later one, unless Redis lost some of them (a failover to a replica that
  // had not got them, keys flushed and written again): each page read from it is checked against the
  // log's ids below.
  let fromHot = hotFirst !== null && afterId !== null && hotFirst <= afterId;
  if (!fromHot && afterId !== null) {
    const oldest = await sources.log.oldestId(mapId);
    if (oldest !== null && oldest > afterId) return { kind: 'reset', reason: 'retention', earliestEventId: oldest };
  }
  const read = (after: string | null, limit: number) =>
    fromHot ? sources.history.range(mapId, after, limit) : sources.log.list(mapId, after ?? undefined, limit);
  // Counted (ids only, in the event log, which has every event the hot history has) before anything is
  // sent, so a client too far behind gets a reset, not a partial replay.
  const behind = await sources.log.countAfter(mapId, afterId, max + 1);
  if (behind > max) {
    const first = (await read(afterId, 1))[0];
    return { kind: 'reset', reason: 'backfill_limit', earliestEventId: first?.id ?? null };
  }
  let cursor = afterId;
  let count = 0;
  let bytesSeen = 0;
  // Until the sources have nothing more: events committed since the count are replayed too (the hub
  // skips their live copies). Bounded, for a map written to faster than its replay is read.
  while (count <= max + PAGE) {
    const average = count ? Math.max(1, bytesSeen / count) : FIRST_GUESS_BYTES;
    const limit = Math.max(1, Math.min(PAGE, Math.floor(PAGE_BYTES / average)));
    const estimate = Math.round(limit * average);
    await sources.budget?.take(estimate);
    try {
      let page = await read(cursor, limit);
      // A page of the hot history that lacks an event the log has between the same ends (Redis lost
      // it), or an end of the hot history before the log's end: the log answers from here on.
      if (fromHot && (page.length === 0 || (await sources.log.countAfter(mapId, cursor, page.length + 1, page.at(-1)!.id)) > page.length)) {
        fromHot = false;
        page = await read(cursor, limit);
      }
      if (page.length === 0) break;
      for (const e of page) {
        const wrote = await emit(e);
        bytesSeen += typeof wrote === 'number' ? wrote : FIRST_GUESS_BYTES;
      }
      count += page.length;
      cursor = page.at(-1)!.id;
    } finally {
      sources.budget?.give(estimate);
    }
  }
  return { kind: 'replayed', count, lastId: count ? cursor : null };
}
