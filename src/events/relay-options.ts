import type pg from 'pg';
import type { Logger } from '../common/log.js';
import type { Metrics } from '../common/metrics.js';
import type { DatabaseTimeouts } from '../db/pg-options.js';
import type { EventType } from './catalog.js';
import type { EventPublisher, PrevId } from './transport/types.js';

// What the event relay (relay.ts) is built with, and the rows it moves.

export interface RelayOptions {
  databaseUrl: string;
  /**
   * Where the session goes (LISTEN and the partition locks live as long as their connection): a direct
   * connection or a pooler in session mode when `databaseUrl` is a pooler in transaction mode
   * (DATABASE_SESSION_URL); `databaseUrl` when left out.
   */
  sessionUrl?: string;
  /** search_path schema (tests isolate by schema). */
  schema: string;
  /** Connect and query deadlines of its connections; the documented defaults when left out. */
  timeouts?: DatabaseTimeouts;
  /**
   * Whether each of its pools keeps one connection open while idle (DATABASE_POOL_MIN above 0): the
   * first events after a quiet spell are published without opening a connection first.
   */
  keepConnections?: boolean;
  /**
   * The NOTIFY payload of this process's outbox (Outbox.origin), whose commits wake this relay directly
   * (poke): a NOTIFY carrying it is not a reason for another pass.
   */
  origin?: string;
  /** Where events go: Redis Streams, or the in-process store without REDIS_URL. */
  publisher: EventPublisher;
  log: Logger;
  metrics?: Metrics;
  partitions: number;
  batchSize: number;
  /** Safety poll when no NOTIFY arrives (ms). */
  pollIntervalMs: number;
  /** Event log retention (ms); pruned in batches by the relay holding partition 0. */
  retentionMs: number;
  pruneIntervalMs: number;
  /**
   * Other hourly housekeeping the relay of partition 0 runs after pruning the event log (the api
   * role prunes old kills here), so it runs once across all processes.
   */
  housekeeping?: (pool: pg.Pool) => Promise<unknown>;
}

export interface PendingRow {
  seq: string;
  map_id: string;
  type: EventType;
  payload: Record<string, unknown>;
  created_ms: string;
}

export interface AssignedRow {
  map_id: string;
  event_id: string;
  type: EventType;
  payload: Record<string, unknown>;
  created_ms: string;
  /** The id of the map's event before this one in the log (null: none; undefined: not known). */
  prev_id?: PrevId;
}
