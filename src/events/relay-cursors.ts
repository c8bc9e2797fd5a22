import pg from 'pg';
import type { Logger } from '../common/log.js';
import { Alarm } from './alarm.js';
import { pgConnectionOptions, type DatabaseTimeouts } from '../db/pg-options.js';
import { prepared } from '../db/prepared.js';
import { poolOptions } from './relay-sql.js';

/**
 * Publication cursors move at most this often (decision 0006: a statement per relay pass was a tenth
 * of the statements PostgreSQL ran in a paced run).
 */
const CURSOR_EVERY_MS = 100;

export interface PublicationCursorsOptions {
  databaseUrl: string;
  schema: string;
  timeouts?: DatabaseTimeouts;
  /** Keep its one connection open while idle (DATABASE_POOL_MIN above 0). */
  keepConnection?: boolean;
  log: Logger;
  /** While true, moves are paced (at most every CURSOR_EVERY_MS); once false (stopping), made at once. */
  paced: () => boolean;
  connectionProblem: (err: Error, msg: string) => void;
  /** A move failed: the relay publishes those events again (the transport skips them), which queues it anew. */
  failed: () => void;
}

/**
 * Each map's publication cursor (`map_event_cursors`): where recovery publishes again and what pruning
 * may delete. Moves run on a connection of their own with `synchronous_commit=off`: a move lost in a
 * crash only makes the next relay publish those events again, and the transport skips them (the ids
 * themselves are committed durably before anything is published). Moves queued while one runs are
 * merged into the next (one statement for all of them, `greatest` keeps each cursor monotonic), so a
 * busy relay moves cursors far less often than it publishes.
 */
export class PublicationCursors {
  private readonly pool: pg.Pool;
  /** Cuts short the wait between two moves (a drain, a recovery or a stop wants them made now). */
  private readonly alarm = new Alarm();
  /** The queued moves; settled, never rejected. */
  private moves: Promise<void> = Promise.resolve();
  /** Per map, the newest published id whose cursor move is not made yet; and whether a move runs. */
  private readonly pending = new Map<string, string>();
  private moving = false;

  constructor(private readonly opts: PublicationCursorsOptions) {
    this.pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: 1,
      min: opts.keepConnection ? 1 : 0,
      ...pgConnectionOptions(opts.timeouts, [poolOptions(opts.schema), '-c synchronous_commit=off'].join(' ')),
    });
    this.pool.on('error', (err) => opts.connectionProblem(err, 'relay pool error'));
    this.pool.on('connect', (client) => client.on('error', (err) => opts.connectionProblem(err, 'relay connection error')));
  }

  /** `eventId` of `mapId` is published: queue its cursor move (never backwards). */
  due(mapId: string, eventId: string): void {
    if ((this.pending.get(mapId) ?? '') < eventId) this.pending.set(mapId, eventId);
    this.move();
  }

  /** Makes the queued moves now and settles when none is left (a failed one is left to `failed`). */
  async flush(): Promise<void> {
    this.alarm.ring();
    await this.moves;
  }

  async end(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  private move(): void {
    if (this.moving) return;
    this.moving = true;
    this.moves = (async () => {
      while (this.pending.size) {
        if (this.opts.paced()) await this.alarm.sleep(CURSOR_EVERY_MS);
        const due = [...this.pending];
        this.pending.clear();
        try {
          await this.pool.query(
            prepared(`insert into map_event_cursors as c (map_id, published_event_id) select * from unnest($1::uuid[], $2::text[])
             on conflict (map_id) do update set published_event_id = greatest(c.published_event_id, excluded.published_event_id)`),
            [due.map(([m]) => m), due.map(([, id]) => id)],
          );
        } catch (err) {
          this.opts.log.warn({ err: { message: (err as Error).message } }, 'relay: publication cursor not moved; recovering');
          this.opts.failed();
          break;
        }
      }
      this.moving = false;
    })();
  }
}
