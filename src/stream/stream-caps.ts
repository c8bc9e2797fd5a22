/**
 * Global caps on live stream connections (spec 8, decisions §6): per map and per API key across every
 * stream process, plus a ceiling per process. A connection holds a lease; leases are renewed while
 * the connection lives, released when it closes, and expire on their own when a process dies (so its
 * slots come back within the lease time). Admission is atomic: with Redis one Lua script checks and
 * takes both slots; in-process, one synchronous step does the same.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from '../core/redis.js';
import { DeadlineExceededError, withDeadline } from '../deadline.js';
import { DependencyUnavailableError } from '../errors.js';

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

export interface Lease {
  release(): Promise<void>;
}

export type Admission = { admitted: true; lease: Lease } | { admitted: false; code: StreamLimitCode; retryAfterS: number };

export interface StreamCaps {
  admit(mapId: string, keyId: string): Promise<Admission>;
  /** Connections this process holds. */
  held(): number;
  /** Stops renewing and releases every lease of this process. */
  close(): Promise<void>;
}

// Reclaimed within 30 s of a process's death: a lease lives 25 s past its last renewal.
const DEFAULT_TIMING: CapTiming = { leaseMs: 25_000, renewMs: 8_000 };
/** How long an admission waits for Redis (node-redis's own default command timeout). */
const COMMAND_DEADLINE_MS = 5_000;

/** Seconds a refused client should wait: about when a slot may have come back. */
function retryAfter(timing: CapTiming): number {
  return Math.max(1, Math.ceil(timing.renewMs / 1000));
}

/**
 * KEYS[1] map set, KEYS[2] key set; ARGV: now, expiry, lease id, map cap, key cap, key ttl seconds.
 * Each set holds lease ids scored by expiry; expired ones are dropped before counting.
 */
const ADMIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 2 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[6])
return 0
`;

/** KEYS: pairs of sets; ARGV[1] expiry, ARGV[2..] lease ids (one per pair); only leases still present are renewed. */
const RENEW = `
for i = 1, #KEYS, 2 do
  local id = ARGV[(i + 1) / 2 + 1]
  redis.call('ZADD', KEYS[i], 'XX', ARGV[1], id)
  redis.call('ZADD', KEYS[i + 1], 'XX', ARGV[1], id)
end
return 0
`;

/** Leases renewed by one command. */
const RENEW_BATCH = 1_000;

interface Held {
  mapKey: string;
  keyKey: string;
}

/** Caps shared by every process through Redis. */
export class RedisStreamCaps implements StreamCaps {
  private readonly leases = new Map<string, Held>();
  private readonly keyNames = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;
  private readonly process = randomUUID();
  private seq = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: CapLimits,
    private readonly timing: CapTiming = DEFAULT_TIMING,
  ) {
    this.timer = setInterval(() => void this.renew().catch(() => undefined), timing.renewMs);
    this.timer.unref();
  }

  held(): number {
    return this.leases.size;
  }

  async admit(mapId: string, keyId: string): Promise<Admission> {
    if (this.leases.size >= this.limits.perProcess) return { admitted: false, code: 'server_stream_limit', retryAfterS: retryAfter(this.timing) };
    const held = { mapKey: this.keyOf('map', mapId), keyKey: this.keyOf('key', keyId) };
    const id = `${this.process}:${(++this.seq).toString(36)}`;
    // Reserve the local slot first: concurrent admissions of this process must not all pass the ceiling.
    this.leases.set(id, held);
    const now = Date.now();
    try {
      const verdict = Number(
        await this.bounded(
          this.redis.eval(ADMIT, {
            keys: [held.mapKey, held.keyKey],
            arguments: [
              String(now),
              String(now + this.timing.leaseMs),
              id,
              String(this.limits.perMap),
              String(this.limits.perKey),
              String(Math.ceil((this.timing.leaseMs * 2) / 1000)),
            ],
          }),
        ),
      );
      if (verdict !== 0) {
        this.leases.delete(id);
        return { admitted: false, code: verdict === 1 ? 'map_stream_limit' : 'key_stream_limit', retryAfterS: retryAfter(this.timing) };
      }
    } catch (err) {
      this.leases.delete(id);
      throw err;
    }
    return { admitted: true, lease: { release: () => this.release(id) } };
  }

  /** An admission waits at most COMMAND_DEADLINE_MS for Redis, then answers 503 (the lease, if made, expires unrenewed). */
  private bounded<T>(command: Promise<T>): Promise<T> {
    return withDeadline(command, COMMAND_DEADLINE_MS, 'stream cap admission').catch((err: unknown) => {
      throw err instanceof DeadlineExceededError ? new DependencyUnavailableError('Redis') : err;
    });
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.leases.keys()].map((id) => this.release(id).catch(() => undefined)));
  }

  private async release(id: string): Promise<void> {
    const held = this.leases.get(id);
    if (!held) return;
    this.leases.delete(id);
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

  /** Extends every lease this process holds, RENEW_BATCH leases a command (bounded memory and Redis time). */
  private async renew(): Promise<void> {
    if (this.leases.size === 0) return;
    const until = String(Date.now() + this.timing.leaseMs);
    let keys: string[] = [];
    let ids: string[] = [until];
    for (const [id, held] of this.leases) {
      keys.push(held.mapKey, held.keyKey);
      ids.push(id);
      if (keys.length >= 2 * RENEW_BATCH) {
        await this.redis.eval(RENEW, { keys, arguments: ids });
        keys = [];
        ids = [until];
      }
    }
    if (keys.length) await this.redis.eval(RENEW, { keys, arguments: ids });
  }
}

/** The same caps in one process (no REDIS_URL): one process is the whole deployment. */
export class MemoryStreamCaps implements StreamCaps {
  private readonly byMap = new Map<string, number>();
  private readonly byKey = new Map<string, number>();
  private count = 0;

  constructor(
    private readonly limits: CapLimits,
    private readonly timing: CapTiming = DEFAULT_TIMING,
  ) {}

  held(): number {
    return this.count;
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
