/**
 * The Redis key convention, one place for every key this service writes.
 *
 * Keys that one script or one MULTI touches together must live on one slot of a Redis Cluster, so
 * they share a hash tag (the part in braces, the only part a cluster hashes). The unit is the map: a
 * map key (API key) belongs to one map, so a map's event stream, its channel, its cap entries and its
 * keys' cap entries all carry the map's tag and live on one slot, while different maps spread over
 * the shards. `REDIS_KEY_PREFIX` stays outside the braces, so deployments sharing a cluster still
 * spread their maps the same way.
 *
 *   <prefix>{m:<mapId>}:<what>        map-scoped (streams, caps, anything per map)
 *   <prefix><what>                    not map-scoped: one key per command (rate-limit buckets), never
 *                                     touched together with another key
 */

/** The hash tag of a map: every key of the map carries it. */
export function mapTag(mapId: string): string {
  return `{m:${mapId}}`;
}

/** A map-scoped key: `<prefix>{m:<mapId>}:<what>`. */
export function mapKey(prefix: string, mapId: string, what: string): string {
  return `${prefix}${mapTag(mapId)}:${what}`;
}
