import type { Db } from '../db/db.js';
import { MapKeyRepository } from './map-key.repository.js';

/** Hex characters of a key's sha256 kept per key: 64 bits, so a made-up token matches one by chance about never. */
const PREFIX_LENGTH = 16;
/** A miss looks for keys created since the last look at most this often (one small query, whatever the traffic). */
const REFRESH_MIN_INTERVAL_MS = 1_000;
/** The directory is read whole this often, which drops revoked keys and deleted ACLs. */
const FULL_RELOAD_MS = 5 * 60_000;
/** How far back a refresh looks before the previous one: a key's `inserted_at` is its transaction's start, which may precede its commit. */
const OVERLAP_MS = 60_000;

/**
 * Which tokens may be keys, told without a lookup per token: the sha256 prefixes of every valid map key
 * and ACL key, kept in the process. The rate limiter asks it only once a client address has spent its
 * budget of lookups on unknown tokens: a token found here is still resolved (within a small budget of
 * its own), so a valid key is never refused for what other clients behind its address sent, while a
 * flood of made-up tokens costs no lookup at all. Read on first use; a token it does not know makes it
 * look for keys created since (at most once a second: a key created on another replica is known here
 * within about a second), and it is read whole every 5 minutes.
 */
export class KeyDirectory {
  private prefixes = new Set<string>();
  private loadedAt = 0;
  private refreshedAt = 0;
  /** The database clock at the last refresh's start (ms), the lower bound of the next incremental read. */
  private since: number | undefined;
  private pending: Promise<void> | undefined;

  private readonly mapKeys = new MapKeyRepository();

  constructor(private readonly db: Db) {}

  /**
   * Whether the token whose sha256 is `hash` may be a key (a valid one when last read; revoked since is
   * possible). A token not known waits for the next refresh (at most a second) before the answer is no.
   */
  async mayBeKey(hash: string): Promise<boolean> {
    const prefix = hash.slice(0, PREFIX_LENGTH);
    const now = Date.now();
    if (this.since !== undefined && now - this.loadedAt < FULL_RELOAD_MS && this.prefixes.has(prefix)) return true;
    await this.refresh();
    return this.prefixes.has(prefix);
  }

  /** The next refresh: shared by every caller meanwhile, at most one per REFRESH_MIN_INTERVAL_MS. */
  private refresh(): Promise<void> {
    this.pending ??= (async () => {
      const wait = this.refreshedAt + REFRESH_MIN_INTERVAL_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        const full = this.since === undefined || Date.now() - this.loadedAt >= FULL_RELOAD_MS;
        await this.read(full);
      } finally {
        this.refreshedAt = Date.now();
        this.pending = undefined;
      }
    })();
    return this.pending;
  }

  private async read(full: boolean): Promise<void> {
    const from = full ? null : new Date(this.since! - OVERLAP_MS);
    const mapKeys = await this.mapKeys.livePrefixes(this.db, PREFIX_LENGTH, from);
    const rows = await this.db.all<{ prefix: string | null; at: string }>(
      `select k.prefix, (extract(epoch from now()) * 1000)::float8::text as at from (
         select left(api_key_hash, ${PREFIX_LENGTH}) as prefix from acls where (?::timestamptz is null or inserted_at >= ?::timestamptz)
         union all
         select null) k`,
      [from, from],
    );
    const keys = [...mapKeys, ...rows.filter((r) => r.prefix !== null).map((r) => r.prefix!)];
    if (full) {
      this.prefixes = new Set(keys);
      this.loadedAt = Date.now();
    } else for (const k of keys) this.prefixes.add(k);
    this.since = Number(rows[0]!.at);
  }
}
