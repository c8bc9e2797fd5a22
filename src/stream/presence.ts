/**
 * Presence (docs/api.md, "Presence"): the open stream connections of a map across every stream
 * process, per API key, from the stream caps' own bookkeeping (src/stream/stream-caps*.ts), which
 * counts each process's connections of a map per key, in Redis (or in the process without Redis).
 * Reading it costs one script on the map's slot, only when asked: the caps' cost per idle connection
 * is unchanged. A connect or disconnect is counted by its admission or release, so the counts are
 * true as soon as those return; a process that dies without releasing is counted until its caps
 * entry expires (the lease time, 25 s by default).
 *
 * Changes reach the stream processes through sorted sets of the maps whose connections changed, one
 * per event partition (`<prefix>{p:<n>}:presence`, n the map's partition of EVENTS_PARTITIONS, so on a
 * Redis Cluster they spread over the slots as the partitions' event streams do, and no one key is
 * written at every connect of every process). Each process reads, once a second, the sets of the
 * partitions of the maps it holds connections of: the `presence_changed` frames cost Redis at most one
 * command per partition per process per second, however many connections are idle, plus one per
 * connect or disconnect.
 */
import type { Db } from '../db/db.js';
import type { Redis } from '../redis/redis.js';
import type { MapKeyPrincipal } from '../http/principal.js';
import { MapAccess } from '../maps/map-access.js';
import { MapKeyRepository } from '../auth/map-key.repository.js';
import { capKeys } from './stream-caps.redis.js';
import { partitionOf } from '../events/transport/keys.js';
import { PRESENCE, PRESENCE_CHANGES } from './stream-caps.scripts.js';

/** Connections per API key id. */
export type PresenceCounts = Map<string, number>;

/** Where a map's presence is read. */
export interface PresenceSource {
  counts(mapId: string): Promise<PresenceCounts>;
}

/** The presence of a map as the API and the stream's frames give it. */
export interface PresenceDto {
  /** Open stream connections of the map, on every stream process. */
  connections: number;
  /** Per API key of the map with open connections, most connections first: its id and name, never its material. */
  keys: { key_id: string; name: string | null; connections: number }[];
}

/** The presence counts Redis holds (the caps' counts of live processes). */
export class RedisPresence implements PresenceSource {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async counts(mapId: string): Promise<PresenceCounts> {
    const k = capKeys(this.prefix, mapId);
    const flat = (await PRESENCE.run(this.redis, { keys: [k.holders, k.counts], arguments: [String(Date.now())] })) as (string | number)[];
    const out: PresenceCounts = new Map();
    for (let i = 0; i + 1 < flat.length; i += 2) out.set(String(flat[i]), Number(flat[i + 1]));
    return out;
  }
}

/** The key of the maps of partition `partition` whose connections changed lately. */
export function presenceChangesKey(prefix: string, partition: number): string {
  return `${prefix}{p:${partition}}:presence`;
}

/** How long a change stays in a sorted set (readers read it once a second). */
const CHANGES_KEEP_MS = 60_000;

/** Marks maps' connections changed (after admissions or releases), for every process to see: one command per partition. */
export async function markPresenceChanged(redis: Redis, prefix: string, partitions: number, mapIds: Iterable<string>): Promise<void> {
  const now = Date.now();
  const byPartition = new Map<number, { score: number; value: string }[]>();
  for (const mapId of mapIds) {
    const n = partitionOf(mapId, partitions);
    const members = byPartition.get(n) ?? [];
    members.push({ score: now, value: mapId });
    byPartition.set(n, members);
  }
  await Promise.all([...byPartition].map(([n, members]) => redis.zAdd(presenceChangesKey(prefix, n), members)));
}

/**
 * The maps of the given partitions whose connections changed at or after `since` (ms since the epoch);
 * drops older entries. One script per partition, on the partition's slot, all sent at once.
 */
export async function presenceChangedSince(redis: Redis, prefix: string, partitions: Iterable<number>, since: number): Promise<string[]> {
  const now = Date.now();
  const read = [...partitions].map(
    (n) =>
      PRESENCE_CHANGES.run(redis, {
        keys: [presenceChangesKey(prefix, n)],
        arguments: [String(now), String(since), String(CHANGES_KEEP_MS)],
      }) as Promise<string[]>,
  );
  return (await Promise.all(read)).flat();
}

/** Without Redis, one process is the whole deployment: its stream role's caps are the presence its API reads. */
const local = new WeakMap<object, PresenceSource>();

export function registerLocalPresence(owner: object, source: PresenceSource): void {
  local.set(owner, source);
}

export function localPresence(owner: object): PresenceSource | undefined {
  return local.get(owner);
}

const KEYS = new MapKeyRepository();

/** Counts as the DTO: key names from the map's keys (a key deleted meanwhile is left out). */
export async function presenceDto(db: Db, mapId: string, counts: PresenceCounts): Promise<PresenceDto> {
  return (await presenceDtos(db, new Map([[mapId, counts]]))).get(mapId)!;
}

/** The order of a presence's keys: most connections first, then by key id. */
export function presenceOrder(a: PresenceDto['keys'][number], b: PresenceDto['keys'][number]): number {
  return b.connections - a.connections || a.key_id.localeCompare(b.key_id);
}

/** `presenceDto` of several maps, their key names read in one query. */
export async function presenceDtos(db: Db, countsByMap: ReadonlyMap<string, PresenceCounts>): Promise<Map<string, PresenceDto>> {
  const keyIds = new Map<string, string[]>();
  for (const [mapId, counts] of countsByMap) keyIds.set(mapId, [...counts.keys()]);
  const namesByMap = await KEYS.namesOfMaps(db, keyIds);
  const out = new Map<string, PresenceDto>();
  for (const [mapId, counts] of countsByMap) {
    const keys = [...(namesByMap.get(mapId) ?? [])]
      .map(([id, name]) => ({ key_id: id, name, connections: counts.get(id) ?? 0 }))
      .filter((k) => k.connections > 0)
      .sort(presenceOrder);
    out.set(mapId, { connections: keys.reduce((n, k) => n + k.connections, 0), keys });
  }
  return out;
}

/** GET /api/maps/{map_id}/presence. */
export class PresenceService {
  private readonly access: MapAccess;

  constructor(
    private readonly db: Db,
    private readonly source: () => PresenceSource | undefined,
  ) {
    this.access = new MapAccess(db);
  }

  async of(principal: MapKeyPrincipal, mapPath: string): Promise<PresenceDto> {
    const map = await this.access.byPath(principal, mapPath);
    const source = this.source();
    // No stream role here and no Redis to share counts through: no connection can be open.
    const counts = source ? await source.counts(map.id) : new Map<string, number>();
    return presenceDto(this.db, map.id, counts);
  }
}
