/**
 * The `presence_changed` frames of a stream process (docs/api.md, "Presence"): once a second it takes
 * the maps whose connections changed (here, or on any process through Redis: src/stream/presence.ts,
 * the sets of the partitions of its maps only) among the maps it has connections of, reads each one's presence, and writes it to the map's
 * connections when it differs from what they were last sent; a connection that has had none yet gets
 * the current one at the first tick after it opened. So a connection gets at most one presence frame
 * a second, and none while nothing changes; while changes would take more than CHANGE_FRAMES_PER_SECOND
 * frames a second, they reach connections less often (greetings do not wait). The frame has no `id:` line: it never moves the client's
 * Last-Event-ID. Connections of the reference profile get none (the reference server has no such frame).
 */
import type { Db } from '../db/db.js';
import type { Logger } from '../common/log.js';
import type { Redis } from '../redis/redis.js';
import { partitionOf } from '../events/transport/keys.js';
import { markPresenceChanged, presenceChangedSince, presenceDtos, type PresenceDto, type PresenceSource } from './presence.js';
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
 * Frames a second, at most, that tell connections of a change (a greeting does not count): a round
 * that wrote more puts the next change off for as long as they are worth at this rate, while new
 * connections are still greeted every round. A burst of connects changes every map every second;
 * telling each connection each time would cost the process (and its clients) a write per connection a
 * second: at 20,000 connections, a sixth of the process's time while they connect.
 */
export const CHANGE_FRAMES_PER_SECOND = 2_000;

/** How long a change waits to be marked in Redis with the others of the moment. */
const MARK_BATCH_MS = 50;

/** Changes are read back this far before the last read, for clocks of other processes a little behind. */
const CLOCK_SLACK_MS = 2_000;

export function presenceFrame(text: string): string {
  return `event: presence_changed\ndata: ${text}\n\n`;
}

export class PresenceFeed {
  private timer: NodeJS.Timeout | undefined;
  /** Until when changes wait (only greetings are written): see CHANGE_FRAMES_PER_SECOND. */
  private changesDueAt = 0;
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
      /** CHANGE_FRAMES_PER_SECOND unless given. */
      changeFramesPerSecond?: number;
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
    const keys = last.keys
      .map((k) => (k === own ? { ...k, connections: k.connections + 1 } : k))
      .sort((a, b) => b.connections - a.connections || a.key_id.localeCompare(b.key_id));
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
      // The maps to tell: their counts read together, their key names in one query. While changes wait,
      // only maps with new connections are read, and the changed ones are kept for a later round.
      const started = Date.now();
      const changes = started >= this.changesDueAt;
      const due = new Map<string, PresenceSink[]>();
      for (const [mapId, sinks] of byMap) {
        const greet = sinks.some((s) => s.presence === undefined);
        if (greet || (changes && changed.has(mapId))) due.set(mapId, sinks);
        if (!changes && changed.has(mapId)) this.dirty.add(mapId);
      }
      if (due.size === 0) return;
      const ids = [...due.keys()];
      const counts = await Promise.all(ids.map((mapId) => this.o.source.counts(mapId)));
      const dtos = await presenceDtos(this.o.db, new Map(ids.map((mapId, i) => [mapId, counts[i]!])));
      let told = 0;
      let slice = performance.now();
      for (const [mapId, sinks] of due) {
        const dto = dtos.get(mapId)!;
        this.latest.set(mapId, dto);
        const text = JSON.stringify(dto);
        const frame = [new SharedFrame(presenceFrame(text))];
        let deferred = false;
        for (const s of sinks) {
          if (s.presence === text) continue;
          if (s.presence !== undefined) {
            if (!changes) {
              deferred = true;
              continue;
            }
            told++;
          }
          s.presence = text;
          s.send(frame);
          if (performance.now() - slice >= SLICE_MS) {
            await new Promise((r) => setTimeout(r, PAUSE_MS));
            slice = performance.now();
          }
        }
        if (deferred) this.dirty.add(mapId);
      }
      const rate = this.o.changeFramesPerSecond ?? CHANGE_FRAMES_PER_SECOND;
      if (told > rate) this.changesDueAt = started + Math.round((told / rate) * 1000);
    } catch (err) {
      // The next tick tries again (the changes read back CLOCK_SLACK_MS, and new connections stay unsent).
      this.o.log.warn({ err: { message: (err as Error).message } }, 'presence round failed');
    } finally {
      this.running = false;
    }
  }
}
