/**
 * The `presence_changed` frames of a stream process (docs/api.md, "Presence"): once a second it takes
 * the maps whose connections changed (here, or on any process through Redis: src/stream/presence.ts,
 * the sets of the partitions of its maps only) among the maps it has connections of, reads each one's
 * presence, and writes it to the map's connections when it differs from what they were last sent; a
 * connection that has had none yet gets the current one at the first tick after it opened (or as it
 * opens: `greeting`). So a connection gets at most one presence frame a second, and none while nothing
 * changes; a round tells at most CHANGE_FRAMES_PER_ROUND connections of a change, the rest in the next
 * rounds (greetings do not wait). The frame has no `id:` line: it never moves the client's
 * Last-Event-ID. Connections of the reference profile get none (the reference
 * server has no such frame).
 */
import type { Db } from '../db/db.js';
import type { Logger } from '../common/log.js';
import type { Redis } from '../redis/redis.js';
import { partitionOf } from '../events/transport/keys.js';
import { markPresenceChanged, presenceChangedSince, presenceDtos, presenceOrder, type PresenceDto, type PresenceSource } from './presence.js';
import { SharedFrame } from './sse-frames.js';

/** A connection as the feed sees it. */
export interface PresenceSink {
  readonly mapId: string;
  readonly compat: boolean;
  /** The presence last sent to it (its JSON), kept here by the feed; undefined until it has had one. */
  presence: string | undefined;
  /** Writes frames encoded once for every connection (as the hub writes events). */
  send(frames: readonly SharedFrame[]): void;
}

/**
 * A round writes for this long at a time, then leaves the event loop to other work for PAUSE_MS: a
 * round of thousands of frames (every connection after a burst of connects) takes about a third of the
 * process instead of all of it, and live events are not held up behind it. Presence may lag a round.
 */
const SLICE_MS = 2;
const PAUSE_MS = 4;

/**
 * Connections a round tells of a change, at most (a greeting does not count); the others are told in
 * the next rounds, the maps left behind first, so every change reaches every connection. A burst of
 * connects changes every map every second; telling each connection each time would cost the process
 * (and its clients) a write per connection a second: at 20,000 connections, a sixth of the process's
 * time while they connect. A steady share a round instead of a larger round later: the writes stay
 * spread out, beside the events.
 */
export const CHANGE_FRAMES_PER_ROUND = 2_000;

/** How long a change waits to be marked in Redis with the others of the moment. */
const MARK_BATCH_MS = 50;

/** Changes are read back this far before the last read, for clocks of other processes a little behind. */
const CLOCK_SLACK_MS = 2_000;

export function presenceFrame(text: string): string {
  return `event: presence_changed\ndata: ${text}\n\n`;
}

export class PresenceFeed {
  private timer: NodeJS.Timeout | undefined;
  /** Maps with connections not told of a change at the last round (told first at the next). */
  private behind = new Set<string>();
  /** Maps whose connections changed in this process since the last tick. */
  private dirty = new Set<string>();
  private since = Date.now();
  private running = false;
  /** Maps changed here not yet marked in Redis, and the timer that marks them. */
  private readonly marks = new Set<string>();
  private markTimer: NodeJS.Timeout | undefined;
  /** The partition of each map with connections here (a hash each, computed once). */
  private readonly partitionOfMap = new Map<string, number>();
  /** The presence of each map with connections here, as its last round read it. */
  private readonly latest = new Map<string, PresenceDto>();

  constructor(
    private readonly o: {
      open: Iterable<PresenceSink>;
      source: PresenceSource;
      db: Db;
      redis?: Redis;
      prefix: string;
      /** EVENTS_PARTITIONS: the changes of a map are kept in its partition's set. */
      partitions: number;
      log: Logger;
      /** CHANGE_FRAMES_PER_ROUND unless given. */
      changeFramesPerRound?: number;
    },
  ) {}

  /** A connection of the map was admitted or released by this process. */
  changed(mapId: string): void {
    this.dirty.add(mapId);
    if (!this.o.redis) return;
    // Marked for the other processes in batches: the maps changed within MARK_BATCH_MS go in one command
    // per partition (a burst of connects costs Redis a few writes, not one each).
    this.marks.add(mapId);
    this.markTimer ??= setTimeout(() => this.flushMarks(), MARK_BATCH_MS);
  }

  private flushMarks(): void {
    this.markTimer = undefined;
    const maps = [...this.marks];
    this.marks.clear();
    if (this.o.redis) void markPresenceChanged(this.o.redis, this.o.prefix, this.o.partitions, maps).catch(() => undefined);
  }

  start(periodMs = 1_000): void {
    this.timer ??= setInterval(() => void this.tick(), periodMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    clearTimeout(this.markTimer);
    this.markTimer = undefined;
  }

  private partitionOf(mapId: string): number {
    let n = this.partitionOfMap.get(mapId);
    if (n === undefined) this.partitionOfMap.set(mapId, (n = partitionOf(mapId, this.o.partitions)));
    return n;
  }

  /**
   * The presence a new connection of `keyId` to `mapId` is greeted with as it opens (its sink's
   * `presence` is then set to it): the map's presence as the last round read it, with this connection
   * counted. Undefined when no round has read the map yet or the key was not among its keys (its name
   * is not known here): the connection is then greeted by the next round. A round that reads other
   * numbers tells it, as any change.
   */
  greeting(mapId: string, keyId: string): string | undefined {
    const last = this.latest.get(mapId);
    const own = last?.keys.find((k) => k.key_id === keyId);
    if (!last || !own) return undefined;
    const keys = last.keys.map((k) => (k === own ? { ...k, connections: k.connections + 1 } : k)).sort(presenceOrder);
    return JSON.stringify({ connections: last.connections + 1, keys });
  }

  /** One round: what changed, read and written. */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const byMap = new Map<string, PresenceSink[]>();
      for (const s of this.o.open) {
        if (s.compat) continue;
        const list = byMap.get(s.mapId) ?? [];
        list.push(s);
        byMap.set(s.mapId, list);
      }
      for (const mapId of this.partitionOfMap.keys()) if (!byMap.has(mapId)) this.partitionOfMap.delete(mapId);
      for (const mapId of this.latest.keys()) if (!byMap.has(mapId)) this.latest.delete(mapId);
      const changed = this.dirty;
      this.dirty = new Set();
      // No connection here: nothing to tell anyone, and nothing read.
      if (byMap.size === 0) {
        this.since = Date.now();
        return;
      }
      if (this.o.redis) {
        const from = this.since - CLOCK_SLACK_MS;
        this.since = Date.now();
        const partitions = new Set<number>();
        for (const mapId of byMap.keys()) partitions.add(this.partitionOf(mapId));
        for (const mapId of await presenceChangedSince(this.o.redis, this.o.prefix, partitions, from)) changed.add(mapId);
      }
      // The maps to tell (those left behind last round first): their counts read together, their key
      // names in one query.
      const due = new Map<string, PresenceSink[]>();
      for (const pass of [true, false])
        for (const [mapId, sinks] of byMap) {
          if (this.behind.has(mapId) !== pass) continue;
          if (changed.has(mapId) || sinks.some((s) => s.presence === undefined)) due.set(mapId, sinks);
        }
      this.behind = new Set();
      if (due.size === 0) return;
      const ids = [...due.keys()];
      const counts = await Promise.all(ids.map((mapId) => this.o.source.counts(mapId)));
      const dtos = await presenceDtos(this.o.db, new Map(ids.map((mapId, i) => [mapId, counts[i]!])));
      let budget = this.o.changeFramesPerRound ?? CHANGE_FRAMES_PER_ROUND;
      let slice = performance.now();
      for (const [mapId, sinks] of due) {
        const dto = dtos.get(mapId)!;
        this.latest.set(mapId, dto);
        const text = JSON.stringify(dto);
        const frame = [new SharedFrame(presenceFrame(text))];
        for (const s of sinks) {
          if (s.presence === text) continue;
          if (s.presence !== undefined) {
            if (budget <= 0) {
              // Told at a later round: the map is read again then, and goes first.
              this.behind.add(mapId);
              this.dirty.add(mapId);
              continue;
            }
            budget--;
          }
          s.presence = text;
          s.send(frame);
          if (performance.now() - slice >= SLICE_MS) {
            await new Promise((r) => setTimeout(r, PAUSE_MS));
            slice = performance.now();
          }
        }
      }
    } catch (err) {
      // The next tick tries again (the changes read back CLOCK_SLACK_MS, and new connections stay unsent).
      this.o.log.warn({ err: { message: (err as Error).message } }, 'presence round failed');
    } finally {
      this.running = false;
    }
  }
}
