import { createHash } from 'node:crypto';
import { mapKey } from '../../redis/redis-keys.js';

/**
 * Redis names of the event transport (the convention of src/redis/redis-keys.ts). Every name of a map
 * carries the map's hash tag (`{m:<id>}`), so
 * a map's stream and its live channel share one cluster slot (one MULTI holds both) and different maps
 * spread over the shards; every name of a partition carries the partition's (`{p:<n>}`).
 *
 * - `<prefix>{m:<id>}:events`: the map's stream (hot history, backfill, catch-up reads), entry ids
 *   derived from the ULIDs (`<ulid ms>-<n>`), bounded by MAXLEN ~.
 * - `<prefix>{m:<id>}:live`: the map's sharded pub/sub channel: each event as it is appended, with the
 *   stream id of the entry before it (stream processes subscribe to the maps they serve).
 * - `<prefix>{p:<n>}:events`: every event of the maps of partition n (consumers that read everything).
 * - `<prefix>{p:<n>}:live`: a wake-up for the readers of partition n.
 */
export class StreamKeys {
  constructor(
    readonly prefix: string,
    /** Partitions of the consumer streams (EVENTS_PARTITIONS). */
    readonly partitions = 1,
  ) {}
  map(mapId: string): string {
    return mapKey(this.prefix, mapId, 'events');
  }
  mapChannel(mapId: string): string {
    return mapKey(this.prefix, mapId, 'live');
  }
  partition(n: number): string {
    return `${this.prefix}{p:${n}}:events`;
  }
  partitionChannel(n: number): string {
    return `${this.prefix}{p:${n}}:live`;
  }
  partitionOf(mapId: string): number {
    return partitionOf(mapId, this.partitions);
  }
}

/**
 * The partition of a map: the first 32 bits of the MD5 of its id, modulo the count. PostgreSQL
 * computes the same (`partitionSql`), so a consumer of some partitions reads just their maps' events
 * from the event log too.
 */
export function partitionOf(mapId: string, partitions: number): number {
  if (partitions <= 1) return 0;
  return createHash('md5').update(mapId).digest().readUInt32BE(0) % partitions;
}

/** `partitionOf` in SQL, of a uuid or text column. */
export function partitionSql(column: string, partitions: number): string {
  return `((('x' || lpad(substr(md5(${column}::text), 1, 8), 16, '0'))::bit(64)::bigint) % ${Math.max(1, Math.floor(partitions))})`;
}
