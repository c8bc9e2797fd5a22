/**
 * The stream caps shared by every process through Redis (src/stream/stream-caps.ts has the contract).
 *
 * A process holds its counts per map under one entry of its own, not a lease per connection: for each
 * map it serves, its number of connections and its number per API key, in the map's keys (hash-tagged:
 * one slot of a Redis Cluster), and one renewable entry in the map's holders. Each renewal period it
 * renews one entry per map it serves, so the caps cost Redis O(maps served), not O(connections).
 * Admission reads every live holder's counts and adds one, in one script on the map's slot: exact and
 * atomic. A process that dies stops renewing; its entry expires after the lease time and its counts
 * with it. After Redis lost a map's keys (restart without persistence, failover to an empty replica)
 * the holders write their counts again at their next renewal (each reconnection renews at once), and
 * until then the map admits nothing: the first process that sees the loss opens the map's recovery
 * window (one renewal period plus the longest reconnection wait), answered 503 with Retry-After.
 * Scripts and key layout: src/stream/stream-caps.scripts.ts.
 */
import { randomUUID } from 'node:crypto';
import { REDIS_RECONNECT_MAX_MS, type ReconnectSource, type Redis } from '../redis/redis.js';
import { mapKey } from '../redis/redis-keys.js';
import { DeadlineExceededError, withDeadline } from '../common/deadline.js';
import { DependencyUnavailableError } from '../common/errors.js';
import { ADMIT, COUNT, RELEASE, RENEW } from './stream-caps.scripts.js';
import { DEFAULT_CAP_TIMING, retryAfter, type Admission, type CapLimits, type CapTiming, type LeaseStats, type StreamCaps } from './stream-caps.js';

export type { ReconnectSource } from '../redis/redis.js';

/** Adds `d` to a count of a map of counts, dropping it at 0. */
function bump(counts: Map<string, number>, key: string, d: number): void {
  const n = (counts.get(key) ?? 0) + d;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/** How long an admission waits for Redis (node-redis's own default command timeout). */
const COMMAND_DEADLINE_MS = 5_000;

/**
 * After Redis lost a map's counts, how long admissions wait for every holder to write its own again:
 * each renews within a renewal period of its reconnection, and reconnects within
 * REDIS_RECONNECT_MAX_MS of Redis being back.
 */
function recoveryMs(timing: CapTiming): number {
  return timing.renewMs + REDIS_RECONNECT_MAX_MS;
}

/** The Redis keys of a map's caps (one hash tag: one slot). */
export function capKeys(prefix: string, mapId: string): { holders: string; counts: string; recovering: string } {
  return {
    holders: mapKey(prefix, mapId, 'caps:holders'),
    counts: mapKey(prefix, mapId, 'caps:counts'),
    recovering: mapKey(prefix, mapId, 'caps:recovering'),
  };
}

/** The connections of a map, and of one of its keys, that Redis counts now (every process's). */
export async function countedConnections(redis: Redis, prefix: string, mapId: string, keyId = ''): Promise<{ map: number; key: number }> {
  const k = capKeys(prefix, mapId);
  const [map, key] = (await COUNT.run(redis, { keys: [k.holders, k.counts], arguments: [String(Date.now()), keyId] })) as [number, number];
  return { map: Number(map), key: Number(key) };
}

/** What this process serves of one map. */
interface MapHeld {
  keys: { holders: string; counts: string; recovering: string };
  /** Admitted connections of the map. */
  live: number;
  /** Admitted connections per API key (a key at 0 stays until a renewal has written it). */
  byKey: Map<string, number>;
  /** Admissions under way per API key. */
  pendingByKey: Map<string, number>;
  /** The map's epoch as this process last saw it ('' before it saw one). */
  epoch: string;
  /** Admissions under way (the entry is kept while any is). */
  pending: number;
}

interface Held {
  mapId: string;
  keyId: string;
  /** Admitted (false while its admission is under way). */
  live: boolean;
}

export interface RedisCapsHooks {
  /** A renewal found connections Redis no longer counted (and wrote them again). */
  onLost?: (count: number) => void;
  /** Where reconnections of the caps' Redis connection are heard: each one renews at once. */
  reconnects?: ReconnectSource;
}

export class RedisStreamCaps implements StreamCaps {
  private readonly leases = new Map<string, Held>();
  private readonly maps = new Map<string, MapHeld>();
  private readonly timer: NodeJS.Timeout;
  private readonly process = randomUUID();
  private seq = 0;
  /** Renewals started so far: an admission refused after one started while it was pending was counted by it. */
  private renewals = 0;
  private renewing: Promise<void> | undefined;
  private renewAgain = false;
  /** Connections Redis no longer counted at the last renewal (written again then). */
  private lostAtRenewal = 0;
  /** When the connection last came back (0: never lost since this process started). */
  private reconnectedAt = 0;
  private readonly onReady = () => {
    this.reconnectedAt = Date.now();
    void this.renewNow().catch(() => undefined);
  };

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: CapLimits,
    private readonly timing: CapTiming = DEFAULT_CAP_TIMING,
    private readonly hooks: RedisCapsHooks = {},
  ) {
    this.timer = setInterval(() => void this.renewNow().catch(() => undefined), timing.renewMs);
    this.timer.unref();
    hooks.reconnects?.on('ready', this.onReady);
  }

  held(): number {
    return this.leases.size;
  }

  stats(): LeaseStats {
    let held = 0;
    for (const m of this.maps.values()) held += m.live;
    return { held, inRedis: Math.max(0, held - this.lostAtRenewal) };
  }

  async admit(mapId: string, keyId: string): Promise<Admission> {
    if (this.leases.size >= this.limits.perProcess) return { admitted: false, code: 'server_stream_limit', retryAfterS: retryAfter(this.timing) };
    const id = (++this.seq).toString(36);
    const lease: Held = { mapId, keyId, live: false };
    // Reserve the local slot first: concurrent admissions of this process must not all pass the ceiling.
    this.leases.set(id, lease);
    const map = this.mapOf(mapId);
    map.pending++;
    bump(map.pendingByKey, keyId, 1);
    const now = Date.now();
    const known = map.epoch;
    const renewalsBefore = this.renewals;
    let reply: [number, string, number];
    try {
      reply = (await this.bounded(
        ADMIT.run(this.redis, {
          keys: [map.keys.holders, map.keys.counts, map.keys.recovering],
          arguments: [
            String(now),
            String(now + this.timing.leaseMs),
            this.process,
            keyId,
            String(this.limits.perMap),
            String(this.limits.perKey),
            String(this.timing.leaseMs * 2),
            known,
            randomUUID(),
            String(recoveryMs(this.timing)),
            this.reconnectedAt > 0 && now - this.reconnectedAt < recoveryMs(this.timing) ? '1' : '0',
            String(map.live),
            String(map.byKey.get(keyId) ?? 0),
          ],
        }),
      )) as [number, string, number];
    } catch (err) {
      this.leases.delete(id);
      this.settle(mapId, keyId, map);
      throw err;
    }
    const [verdict, epoch, wait] = reply;
    this.sawEpoch(map, epoch);
    if (verdict !== 0) {
      this.leases.delete(id);
      this.settle(mapId, keyId, map);
      // A renewal sent while this admission was under way counted it (so an admission is never
      // undercounted); refused, it is written off again before the refusal answers, or the map would
      // look one fuller to every process until the next renewal.
      if (this.renewals !== renewalsBefore) await this.renewNow().catch(() => undefined);
      if (verdict === 3) return { admitted: false, code: 'caps_recovering', retryAfterS: Math.max(1, Math.ceil(Number(wait) / 1000)) };
      return { admitted: false, code: verdict === 1 ? 'map_stream_limit' : 'key_stream_limit', retryAfterS: retryAfter(this.timing) };
    }
    map.pending--;
    bump(map.pendingByKey, keyId, -1);
    map.live++;
    map.byKey.set(keyId, (map.byKey.get(keyId) ?? 0) + 1);
    // Released while its admission was under way (the connection closed): the slot is given back.
    if (this.leases.get(id) !== lease) {
      lease.live = true;
      await this.giveBack(lease);
      return { admitted: false, code: 'server_stream_limit', retryAfterS: retryAfter(this.timing) };
    }
    lease.live = true;
    return { admitted: true, lease: { release: () => this.release(id) } };
  }

  private mapOf(mapId: string): MapHeld {
    let map = this.maps.get(mapId);
    if (!map) {
      map = { keys: capKeys(this.prefix, mapId), live: 0, byKey: new Map(), pendingByKey: new Map(), epoch: '', pending: 0 };
      this.maps.set(mapId, map);
    }
    return map;
  }

  /** An admission ended without a connection: the map is forgotten once nothing of it is left here. */
  private settle(mapId: string, keyId: string, map: MapHeld): void {
    map.pending--;
    bump(map.pendingByKey, keyId, -1);
    if (map.live === 0 && map.pending === 0 && this.maps.get(mapId) === map) this.maps.delete(mapId);
  }

  /** The epoch Redis answered with; a change under a known one means Redis lost the map's counts: write them again now. */
  private sawEpoch(map: MapHeld, epoch: string): void {
    const lost = map.epoch !== '' && epoch !== map.epoch;
    map.epoch = epoch;
    if (lost) void this.renewNow().catch(() => undefined);
  }

  /** An admission waits at most COMMAND_DEADLINE_MS for Redis, then answers 503 (a count it made is written again or expires with the entry). */
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
    const lease = this.leases.get(id);
    if (!lease) return;
    this.leases.delete(id);
    // Not admitted yet: its admission gives the slot back when it answers.
    if (!lease.live) return;
    await this.giveBack(lease);
  }

  /** Takes one admitted connection off this process's counts, here and in Redis (in the order the releases are sent). */
  private async giveBack(lease: Held): Promise<void> {
    const map = this.maps.get(lease.mapId);
    if (!map) return;
    map.live--;
    // At 0 the key stays until the next renewal has written it: a release lost in an outage is made good then.
    map.byKey.set(lease.keyId, Math.max(0, (map.byKey.get(lease.keyId) ?? 1) - 1));
    if (map.live === 0 && map.pending === 0) this.maps.delete(lease.mapId);
    await RELEASE.run(this.redis, { keys: [map.keys.holders, map.keys.counts], arguments: [this.process, lease.keyId, String(map.live + map.pending)] });
  }

  /** Renews now (after a reconnection, or a loss seen by an admission); one renewal at a time, another after it when asked meanwhile. */
  renewNow(): Promise<void> {
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
   * Renews this process's entry of each map it serves, one script a map, with its counts (written
   * again only when Redis lost them). The counts of a map are taken and sent in one step, on the one
   * connection its admissions and releases use too, so Redis sees them in the order they happened.
   */
  private async renew(): Promise<void> {
    this.renewals++;
    const until = String(Date.now() + this.timing.leaseMs);
    const ttl = String(this.timing.leaseMs * 2);
    const recovery = String(recoveryMs(this.timing));
    const renewals: Promise<number>[] = [];
    for (const map of this.maps.values()) {
      if (map.live === 0) continue;
      // Admissions under way count too: one refused after this is counted until the next renewal (never
      // fewer than Redis may hold: a cap is never passed).
      const counts: string[] = [];
      const keys = new Set([...map.byKey.keys(), ...map.pendingByKey.keys()]);
      for (const keyId of keys) counts.push(keyId, String((map.byKey.get(keyId) ?? 0) + (map.pendingByKey.get(keyId) ?? 0)));
      for (const [keyId, n] of map.byKey) if (n === 0) map.byKey.delete(keyId);
      renewals.push(
        (
          RENEW.run(this.redis, {
            keys: [map.keys.holders, map.keys.counts, map.keys.recovering],
            arguments: [this.process, until, ttl, map.epoch, randomUUID(), recovery, String(map.live + map.pending), ...counts],
          }) as Promise<[string, number]>
        ).then(([epoch, lost]) => {
          map.epoch = epoch;
          return Number(lost);
        }),
      );
    }
    const lost = (await Promise.all(renewals)).reduce((a, b) => a + b, 0);
    this.lostAtRenewal = lost;
    if (lost > 0) this.hooks.onLost?.(lost);
  }
}
