/**
 * The event transport, split by audience. Each interface has a Redis Streams implementation
 * (redis.ts) and an in-process one (memory.ts) with the same semantics; one contract suite per
 * interface runs against both (test/integration/event-transport.test.ts).
 *
 *   relay ──publish──> per-map streams ──history──> stream backfill
 *                      ├─ per-map channels ──tail────> stream pods (only the maps they serve)
 *                      └─ partition streams ──feed───> webhook workers (durable position in PostgreSQL)
 *
 * Why per map and per partition: docs/decisions/0008-per-map-fan-out.md.
 */
import type { EventEnvelope } from '../envelope.js';

/** The relay's side: appends each map's events in order, exactly once. */
export interface EventPublisher {
  /**
   * Appends a map's events, in order. Events at or below the map's last id are skipped. Returns how many
   * were added. The events follow each other in the map's event log, and `prev` is the id of the one
   * before the first (null: the first is the map's first event; absent: not known): it travels with
   * them, so a reader can tell a hole (see PrevId).
   */
  publish(mapId: string, events: readonly EventEnvelope[], prev?: PrevId): Promise<number>;
  /** Drops cached stream positions (a relay that (re)takes a partition calls it). */
  forget(): void;
}

/** A map's recent events (the hot history), for backfill. */
export interface EventHistory {
  /** Id of the newest event in the map's hot history, or null. */
  lastId(mapId: string): Promise<string | null>;
  /** Id of the oldest event still in the map's hot history, or null (older ids come from PostgreSQL). */
  firstId(mapId: string): Promise<string | null>;
  /** Hot history of a map after `afterId` (exclusive; null = from the oldest kept), oldest first. */
  range(mapId: string, afterId: string | null, count: number): Promise<EventEnvelope[]>;
}

/**
 * The id of the event before an event in its map's event log: null before the map's first event,
 * undefined when the publisher did not say (a publisher of an earlier release). A reader whose last
 * event of the map is not this one has missed events (published elsewhere, or lost on the way) and
 * reads them from the event log before going on: decisions/0015, "No silent gap in a live stream".
 */
export type PrevId = string | null | undefined;

/** What a tail hands its subscribers. */
export interface TailListener {
  /** Each event published after the tail started, in publish order (per map: id order), with the id of the map's event before it. */
  event(e: EventEnvelope, prev?: PrevId): void;
  /** The end of a run of events read together (one read of the transport): a subscriber that batches writes them now. */
  flush?(): void;
  /**
   * The tail may have missed events of `mapId` (of every map when absent): the transport restarted or
   * trimmed past its position. Subscribers must re-read what they need from history.
   */
  resync(mapId?: string): void;
}

/** Live events handed to local subscribers. */
export interface EventFeed {
  start(): Promise<void>;
  subscribe(listener: TailListener): () => void;
  stop(): Promise<void>;
}

/**
 * The live read of a stream process: the events of the maps it watches, and only those. Watching a map
 * is counted (each `watch` needs its `unwatch`); once `watch` resolves, every event of the map published
 * after that reaches the subscribers, in id order, or a `resync` of the map says some may be missing.
 */
export interface EventTail extends EventFeed {
  watch(mapId: string): Promise<void>;
  unwatch(mapId: string): void;
}

/**
 * Every event of every map (of some partitions), for consumers that handle them all: it starts at the
 * newest entry present when it starts and keeps the position of the last entry it read.
 */
export interface PartitionFeed extends EventFeed {
  /** Reads these partitions from now on (a partition added starts at its newest entry). */
  setPartitions(partitions: readonly number[]): Promise<void>;
}

/**
 * The webhook workers' read: every published event once per consumer name, at least once, with the
 * position kept durably in PostgreSQL (per map, the last event id handled), so nothing is lost when
 * the transport trims or restarts: the transport only makes new events arrive sooner.
 */
export interface EventConsumer {
  /** Events after the committed position, in id order per map; waits up to `waitMs` when there are none. */
  next(max: number, waitMs: number): Promise<EventEnvelope[]>;
  /** Records durably that these events are handled (per map, the highest id counts). */
  commit(events: readonly EventEnvelope[]): Promise<void>;
  close(): Promise<void>;
}
