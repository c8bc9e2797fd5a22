// The event source of bench/scale.mjs: the product's own Redis publisher (as the relay publishes: each
// map's stream and live channel, and its partition's stream) over the cluster, paced at a rate spread
// round-robin over a list of maps, one round every 10 ms, a round after the one before (as one relay
// publishes). It counts what it published per map (events and payload bytes).
import { monotonicFactory } from 'ulid';
import { dist, envelope, PARTITIONS } from './settings.mjs';

export async function startPublisher(redis, prefix) {
  const { RedisEventPublisher, StreamKeys } = await dist('events/transport/redis.js');
  const publisher = new RedisEventPublisher(redis, new StreamKeys(prefix, PARTITIONS), 1_000);
  const nextId = monotonicFactory();
  /** mapId → { events, bytes } published so far. */
  const published = new Map();
  let maps = [];
  let rate = 0;
  let seq = 0;
  let busy = false;
  let due = 0;
  let skipped = 0;
  let failed = 0;
  const timer = setInterval(() => {
    if (!rate || !maps.length) {
      due = 0;
      return;
    }
    // Events due so far: a round still under way makes the next one bigger (at most a second's worth;
    // past that, events are not made, and counted).
    due += rate / 100;
    if (due > rate) {
      skipped += Math.floor(due - rate);
      due = rate;
    }
    const count = Math.floor(due);
    if (busy || !count) return;
    due -= count;
    const byMap = new Map();
    for (let i = 0; i < count; i++) {
      const mapId = maps[seq++ % maps.length];
      const list = byMap.get(mapId) ?? [];
      list.push(envelope(nextId, mapId));
      byMap.set(mapId, list);
    }
    busy = true;
    void Promise.all(
      [...byMap].map(async ([mapId, events]) => {
        try {
          await publisher.publish(mapId, events);
          const p = published.get(mapId) ?? { events: 0, bytes: 0 };
          p.events += events.length;
          for (const e of events) p.bytes += Buffer.byteLength(JSON.stringify(e));
          published.set(mapId, p);
        } catch {
          failed++;
          publisher.forget();
        }
      }),
    ).finally(() => (busy = false));
  }, 10);
  return {
    /** Publishes `r` events/s over `list` from now on (0: stops). */
    set(list, r) {
      maps = list;
      rate = r;
    },
    /** Events and bytes published so far to the maps of `set` (a Set of ids), or to every map. */
    totals(set) {
      let events = 0;
      let bytes = 0;
      for (const [mapId, p] of published) {
        if (set && !set.has(mapId)) continue;
        events += p.events;
        bytes += p.bytes;
      }
      return { events, bytes };
    },
    /** Events not made because publishing fell a second behind, and failed publish calls. */
    stats: () => ({ skipped, failed }),
    async stop() {
      clearInterval(timer);
      while (busy) await new Promise((r) => setTimeout(r, 10));
    },
  };
}
