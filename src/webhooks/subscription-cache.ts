import type { Db } from '../db/db.js';
import type { EventType } from '../events/catalog.js';
import { SubscriptionRepository } from './subscription.repository.js';

export interface CachedSubscription {
  id: string;
  all: boolean;
  types: ReadonlySet<string>;
  /** Events written before this time (epoch ms, floored) are not sent to it. */
  activeSinceMs: number;
}

interface Entry {
  version: string;
  enabled: boolean;
  enabledAtMs: number;
  subs: CachedSubscription[];
}

/** A map without webhook settings (no `webhook_map_state` row): its version matches no stored one. */
export const NO_SETTINGS_VERSION = 'none';
const NONE: Entry = { version: NO_SETTINGS_VERSION, enabled: false, enabledAtMs: 0, subs: [] };

/**
 * Active subscriptions per map, for matching events. Every change to a map's subscriptions or toggle
 * bumps the map's version in the same transaction (src/webhooks/subscription.repository.ts). Either
 * a lookup (`forMaps`) reads the versions of the maps it needs in one query and reloads only the maps
 * whose version moved, or the caller takes what is cached (`cached`) and has the statement that uses
 * it check the versions (the planning insert does, and asks again when one moved): either way a change
 * made by any process counts for every event committed after it.
 */
export class SubscriptionCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly db: Db,
    private readonly subs = new SubscriptionRepository(),
  ) {}

  /** The subscriptions an event of `mapId` of this type, written at `atMs`, goes to. */
  static matching(entry: Entry, type: EventType, atMs: number): CachedSubscription[] {
    if (!entry.enabled || atMs < entry.enabledAtMs) return [];
    return entry.subs.filter((s) => atMs >= s.activeSinceMs && (s.all || s.types.has(type)));
  }

  /** The cached entries of these maps, whatever their versions now; undefined when one is not cached. */
  cached(mapIds: Iterable<string>): Map<string, Entry> | undefined {
    const out = new Map<string, Entry>();
    for (const id of mapIds) {
      const entry = this.entries.get(id);
      if (!entry) return undefined;
      out.set(id, entry);
    }
    return out;
  }

  async forMaps(mapIds: Iterable<string>): Promise<Map<string, Entry>> {
    const ids = [...new Set(mapIds)];
    const states = await this.subs.mapStates(this.db, ids);
    const stale: string[] = [];
    const out = new Map<string, Entry>();
    for (const s of states) {
      const cached = this.entries.get(s.map_id);
      if (cached && cached.version === s.version) out.set(s.map_id, cached);
      else stale.push(s.map_id);
    }
    if (stale.length) {
      const rows = await this.subs.activeOf(this.db, stale);
      for (const id of stale) {
        const state = states.find((s) => s.map_id === id)!;
        const entry: Entry = {
          version: state.version,
          enabled: state.enabled,
          enabledAtMs: Math.floor(state.enabled_at_ms ?? 0),
          subs: rows
            .filter((r) => r.map_id === id)
            .map((r) => ({ id: r.id, all: r.events.includes('*'), types: new Set(r.events), activeSinceMs: Math.floor(r.active_since_ms) })),
        };
        this.entries.set(id, entry);
        out.set(id, entry);
      }
    }
    for (const id of ids) {
      if (out.has(id)) continue;
      out.set(id, NONE);
      this.entries.set(id, NONE);
    }
    if (this.entries.size > 100_000) this.entries.clear();
    return out;
  }
}
