/**
 * Global caps on live stream connections (spec 8, decisions §6): per map and per API key across every
 * stream process, plus a ceiling per process. A connection holds a lease while it lives, released when
 * it closes; the counts of a process that dies come back on their own within the lease time.
 * Admission is atomic: with Redis one Lua script on the map's slot checks and takes both slots
 * (src/stream/stream-caps.redis.ts: counts per process and map under one renewable entry, so the caps
 * cost Redis O(maps a process serves) per renewal, not O(connections)); in-process, one synchronous
 * step does the same. An API key belongs to one map, so its cap is counted within that map.
 */
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
/** Seconds a refused client should wait: about when a slot may have come back. */
export function retryAfter(timing: CapTiming): number {
  return Math.max(1, Math.ceil(timing.renewMs / 1000));
}

/** The same caps in one process (no REDIS_URL): one process is the whole deployment. */
export class MemoryStreamCaps implements StreamCaps {
  private readonly byMap = new Map<string, number>();
  private readonly byKey = new Map<string, number>();
  /** Connections per map and key: the presence (src/stream/presence.ts). */
  private readonly byMapKey = new Map<string, Map<string, number>>();
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
    this.bumpPresence(mapId, keyId, 1);
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
          this.bumpPresence(mapId, keyId, -1);
          this.count--;
        },
      },
    };
  }

  /** The map's connections per key (a PresenceSource). */
  async counts(mapId: string): Promise<Map<string, number>> {
    return new Map(this.byMapKey.get(mapId) ?? []);
  }

  private bumpPresence(mapId: string, keyId: string, d: number): void {
    const keys = this.byMapKey.get(mapId) ?? new Map<string, number>();
    const n = (keys.get(keyId) ?? 0) + d;
    if (n > 0) keys.set(keyId, n);
    else keys.delete(keyId);
    if (keys.size) this.byMapKey.set(mapId, keys);
    else this.byMapKey.delete(mapId);
  }

  async close(): Promise<void> {
    this.byMap.clear();
    this.byKey.clear();
    this.byMapKey.clear();
    this.count = 0;
  }
}
