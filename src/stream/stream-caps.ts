/**
 * Global caps on live stream connections (spec 8, decisions §6): per map and per API key across every
 * stream process, plus a ceiling per process. A connection holds a lease; leases are renewed while
 * the connection lives, released when it closes, and expire on their own when a process dies (so its
 * slots come back within the lease time). Admission is atomic: with Redis one Lua script checks and
 * takes both slots; in-process, one synchronous step does the same.
 *
 * Redis holds the counts, the processes hold the truth: each renewal writes every lease of the
 * process's live connections again (re-adding any Redis no longer has) and keeps the sets alive, so
 * a cap counts a connection for as long as it is open, whatever the gaps between admissions, and
 * after Redis lost its data (a restart without persistence, a failover to an empty replica) the
 * counts are whole again at each process's next renewal. Until then nothing is admitted: the first
 * process that sees the loss (an epoch key gone or changed) opens a recovery window of one renewal
 * period plus the longest reconnection wait, during which admissions answer 503 with Retry-After.
 */
import { randomUUID } from 'node:crypto';
import { REDIS_RECONNECT_MAX_MS, type Redis } from '../core/redis.js';
import { DeadlineExceededError, withDeadline } from '../common/deadline.js';
import { DependencyUnavailableError } from '../common/errors.js';
import { ADMIT, RENEW } from './stream-caps.scripts.js';

export type StreamLimitCode = 'map_stream_limit' | 'key_stream_limit' | 'server_stream_limit';

export interface CapLimits {
  perMap: number;
  perKey: number;
  perProcess: number;
}

export interface CapTiming {
  /** A lease not renewed for this long is free again (default 25 s). */
  leaseMs: number;
  /** Renewal period (default a third of the lease). */
  renewMs: number;
}

/** The timing of a lease of `leaseMs`: renewed three times within it. */
export function capTiming(leaseMs: number): CapTiming {
  return { leaseMs, renewMs: Math.max(100, Math.floor(leaseMs / 3)) };
}

export interface Lease {
  release(): Promise<void>;
}

export type Admission =
  | { admitted: true; lease: Lease }
  | { admitted: false; code: StreamLimitCode; retryAfterS: number }
  /** Redis lost the leases; the processes are writing theirs again: nothing is admitted meanwhile. */
  | { admitted: false; code: 'caps_recovering'; retryAfterS: number };

/** This process's leases as the caps see them, for the metrics. */
export interface LeaseStats {
  /** Leases of this process's live connections. */
  held: number;
  /** Of those, how many Redis holds as far as this process knows: fewer for a renewal period after Redis lost some (written again at that renewal). */
  inRedis: number;
}

export interface StreamCaps {
  admit(mapId: string, keyId: string): Promise<Admission>;
  /** Connections this process holds (admissions under way included: they count against its ceiling). */
  held(): number;
  stats(): LeaseStats;
  /** Stops renewing and releases every lease of this process. */
  close(): Promise<void>;
}

// Reclaimed within 30 s of a process's death: a lease lives 25 s past its last renewal.
export const DEFAULT_CAP_TIMING: CapTiming = capTiming(25_000);
/** How long an admission waits for Redis (node-redis's own default command timeout). */
const COMMAND_DEADLINE_MS = 5_000;

/** Seconds a refused client should wait: about when a slot may have come back. */
function retryAfter(timing: CapTiming): number {
  return Math.max(1, Math.ceil(timing.renewMs / 1000));
}

/**
 * After Redis lost the leases, how long admissions wait for every process to write its own again:
 * each renews within a renewal period of its reconnection, and reconnects within
 * REDIS_RECONNECT_MAX_MS of Redis being back.
 */
function recoveryMs(timing: CapTiming): number {
  return timing.renewMs + REDIS_RECONNECT_MAX_MS;
}

/** Leases renewed by one command. */
const RENEW_BATCH = 1_000;

interface Held {
  mapKey: string;
  keyKey: string;
  /** Admitted (false while its admission is under way: not renewed yet). */
  live: boolean;
}

/** Where a client's reconnections are heard (node-redis emits `ready` after each). */
export interface ReconnectSource {
  on(event: 'ready', listener: () => void): unknown;
  off(event: 'ready', listener: () => void): unknown;
}

export interface RedisCapsHooks {
  /** A renewal found leases Redis no longer had (and wrote them again). */
  onLost?: (count: number) => void;
  /** Where reconnections of the caps' Redis connection are heard: each one renews at once. */
  reconnects?: ReconnectSource;
}

/** Caps shared by every process through Redis. */
export class RedisStreamCaps implements StreamCaps {
  private readonly leases = new Map<string, Held>();
  private readonly keyNames = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;
  private readonly process = randomUUID();
  private readonly epochKey: string;
  private readonly recoveryKey: string;
  /** The caps' epoch as this process last saw it ('' before it saw one). */
  private epoch = '';
  private seq = 0;
  private renewing: Promise<void> | undefined;
  private renewAgain = false;
  /** Leases Redis no longer had at the last renewal (written again then). */
  private lostAtRenewal = 0;
  private readonly onReady = () => void this.renewNow().catch(() => undefined);

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: CapLimits,
    private readonly timing: CapTiming = DEFAULT_CAP_TIMING,
    private readonly hooks: RedisCapsHooks = {},
  ) {
    const epochKey = `${prefix}stream:caps:epoch`;
    this.epochKey = epochKey;
    this.recoveryKey = `${prefix}stream:caps:recovering`;
    this.timer = setInterval(() => void this.renewNow().catch(() => undefined), timing.renewMs);
    this.timer.unref();
    hooks.reconnects?.on('ready', this.onReady);
    // Knowing the epoch from the start, this process can tell a loss from a new deployment.
    void (async () => {
      const epoch = await this.redis.get(epochKey);
      if (typeof epoch === 'string' && epoch !== '' && this.epoch === '') this.epoch = epoch;
    })().catch(() => undefined);
  }

  held(): number {
    return this.leases.size;
  }

  stats(): LeaseStats {
    let held = 0;
    for (const l of this.leases.values()) if (l.live) held++;
    return { held, inRedis: Math.max(0, held - this.lostAtRenewal) };
  }

  async admit(mapId: string, keyId: string): Promise<Admission> {
    if (this.leases.size >= this.limits.perProcess) return { admitted: false, code: 'server_stream_limit', retryAfterS: retryAfter(this.timing) };
    const held: Held = { mapKey: this.keyOf('map', mapId), keyKey: this.keyOf('key', keyId), live: false };
    const id = `${this.process}:${(++this.seq).toString(36)}`;
    const holdsOthers = this.leases.size > 0;
    // Reserve the local slot first: concurrent admissions of this process must not all pass the ceiling.
    this.leases.set(id, held);
    const now = Date.now();
    const known = this.epoch;
    let reply: [number, string, number];
    try {
      reply = (await this.bounded(
        this.redis.eval(ADMIT, {
          keys: [held.mapKey, held.keyKey, this.epochKey, this.recoveryKey],
          arguments: [
            String(now),
            String(now + this.timing.leaseMs),
            id,
            String(this.limits.perMap),
            String(this.limits.perKey),
            String(this.timing.leaseMs * 2),
            known,
            randomUUID(),
            String(recoveryMs(this.timing)),
            holdsOthers ? '1' : '0',
          ],
        }),
      )) as [number, string, number];
    } catch (err) {
      this.leases.delete(id);
      throw err;
    }
    const [verdict, epoch, wait] = reply;
    this.sawEpoch(epoch);
    if (verdict !== 0) {
      this.leases.delete(id);
      if (verdict === 3) return { admitted: false, code: 'caps_recovering', retryAfterS: Math.max(1, Math.ceil(Number(wait) / 1000)) };
      return { admitted: false, code: verdict === 1 ? 'map_stream_limit' : 'key_stream_limit', retryAfterS: retryAfter(this.timing) };
    }
    // Released while its admission was under way (the connection closed): the slot is given back.
    if (this.leases.get(id) !== held) {
      await this.redis.multi().zRem(held.mapKey, id).zRem(held.keyKey, id).exec();
      return { admitted: false, code: 'server_stream_limit', retryAfterS: retryAfter(this.timing) };
    }
    held.live = true;
    return { admitted: true, lease: { release: () => this.release(id) } };
  }

  /** The epoch Redis answered with; a change under a known one means Redis lost the leases: write them again now. */
  private sawEpoch(epoch: string): void {
    const lost = this.epoch !== '' && epoch !== this.epoch;
    this.epoch = epoch;
    if (lost) void this.renewNow().catch(() => undefined);
  }

  /** An admission waits at most COMMAND_DEADLINE_MS for Redis, then answers 503 (the lease, if made, expires unrenewed). */
  private bounded<T>(command: Promise<T>): Promise<T> {
    return withDeadline(command, COMMAND_DEADLINE_MS, 'stream cap admission').catch((err: unknown) => {
      throw err instanceof DeadlineExceededError ? new DependencyUnavailableError('Redis') : err;
    });
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.hooks.reconnects?.off('ready', this.onReady);
    await Promise.all([...this.leases.keys()].map((id) => this.release(id).catch(() => undefined)));
  }

  private async release(id: string): Promise<void> {
    const held = this.leases.get(id);
    if (!held) return;
    this.leases.delete(id);
    // Not admitted yet: its admission gives the slot back when it answers.
    if (!held.live) return;
    await this.redis.multi().zRem(held.mapKey, id).zRem(held.keyKey, id).exec();
  }

  /**
   * The Redis key of a map's or an API key's leases, one string per map or key however many
   * connections hold it (20,000 connections of 200 maps keep 200 strings, not 20,000).
   */
  private keyOf(kind: 'map' | 'key', id: string): string {
    const cacheKey = `${kind}:${id}`;
    let key = this.keyNames.get(cacheKey);
    if (key === undefined) {
      key = `${this.prefix}stream:caps:${kind}:${id}`;
      if (this.keyNames.size >= 100_000) this.keyNames.clear();
      this.keyNames.set(cacheKey, key);
    }
    return key;
  }

  /** Renews now (after a reconnection, or a loss seen by an admission); one renewal at a time, another after it when asked meanwhile. */
  private renewNow(): Promise<void> {
    if (this.renewing) {
      this.renewAgain = true;
      return this.renewing;
    }
    this.renewing = (async () => {
      try {
        do {
          this.renewAgain = false;
          await this.renew();
        } while (this.renewAgain);
      } finally {
        this.renewing = undefined;
      }
    })();
    return this.renewing;
  }

  /**
   * Writes every lease of this process's live connections again, RENEW_BATCH leases a command
   * (bounded memory and Redis time). The ids of a batch are taken and sent in one step, on the one
   * connection the releases use too: a lease released after is removed after, never written back.
   */
  private async renew(): Promise<void> {
    const until = String(Date.now() + this.timing.leaseMs);
    let keys: string[] = [this.epochKey, this.recoveryKey];
    let ids: string[] = [];
    let lost = 0;
    const send = async () => {
      const [epoch, missing] = (await this.redis.eval(RENEW, {
        keys,
        arguments: [until, String(this.timing.leaseMs * 2), this.epoch, randomUUID(), String(recoveryMs(this.timing)), ...ids],
      })) as [string, number];
      this.epoch = epoch;
      lost += Number(missing);
      keys = [this.epochKey, this.recoveryKey];
      ids = [];
    };
    for (const [id, held] of this.leases) {
      if (!held.live) continue;
      keys.push(held.mapKey, held.keyKey);
      ids.push(id);
      if (ids.length >= RENEW_BATCH) await send();
    }
    if (ids.length) await send();
    this.lostAtRenewal = lost;
    if (lost > 0) this.hooks.onLost?.(lost);
  }
}

/** The same caps in one process (no REDIS_URL): one process is the whole deployment. */
export class MemoryStreamCaps implements StreamCaps {
  private readonly byMap = new Map<string, number>();
  private readonly byKey = new Map<string, number>();
  private count = 0;

  constructor(
    private readonly limits: CapLimits,
    private readonly timing: CapTiming = DEFAULT_CAP_TIMING,
  ) {}

  held(): number {
    return this.count;
  }

  stats(): LeaseStats {
    return { held: this.count, inRedis: this.count };
  }

  async admit(mapId: string, keyId: string): Promise<Admission> {
    const retryAfterS = retryAfter(this.timing);
    if (this.count >= this.limits.perProcess) return { admitted: false, code: 'server_stream_limit', retryAfterS };
    if ((this.byMap.get(mapId) ?? 0) >= this.limits.perMap) return { admitted: false, code: 'map_stream_limit', retryAfterS };
    if ((this.byKey.get(keyId) ?? 0) >= this.limits.perKey) return { admitted: false, code: 'key_stream_limit', retryAfterS };
    const bump = (m: Map<string, number>, k: string, d: number) => {
      const n = (m.get(k) ?? 0) + d;
      if (n > 0) m.set(k, n);
      else m.delete(k);
    };
    bump(this.byMap, mapId, 1);
    bump(this.byKey, keyId, 1);
    this.count++;
    let released = false;
    return {
      admitted: true,
      lease: {
        release: async () => {
          if (released) return;
          released = true;
          bump(this.byMap, mapId, -1);
          bump(this.byKey, keyId, -1);
          this.count--;
        },
      },
    };
  }

  async close(): Promise<void> {
    this.byMap.clear();
    this.byKey.clear();
    this.count = 0;
  }
}
