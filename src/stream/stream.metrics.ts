import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { LeaseStats } from './stream-caps.js';

/** Metrics of the stream role, registered on the process's registry when the role starts. */
export interface StreamMetrics {
  clients: Gauge;
  admissions: Counter<'result'>;
  delivered: Counter;
  backfilled: Counter;
  resets: Counter<'reason'>;
  slowConsumers: Counter;
  gaps: Counter;
  closed: Counter<'reason'>;
  latency: Histogram;
  leases: Gauge;
  leasesInRedis: Gauge;
  leasesReasserted: Counter;
  received: Counter<'how'>;
  receivedBytes: Counter<'how'>;
  mapsWatched: Gauge;
  backfillBytes: Gauge;
}

/**
 * `leases` reads the caps' own view of this process's leases when the metrics are scraped; `maps` the
 * number of maps the process's tail watches.
 */
export function streamMetrics(
  registry: Registry,
  leases: () => LeaseStats,
  maps: () => number = () => 0,
  backfillBytes: () => number = () => 0,
): StreamMetrics {
  const m: StreamMetrics = {
    clients: new Gauge({ name: 'mapintel_stream_clients', help: 'Stream connections open in this process', registers: [registry] }),
    admissions: new Counter({
      name: 'mapintel_stream_admissions_total',
      help: 'Stream connection attempts by result (admitted, map_stream_limit, key_stream_limit, server_stream_limit)',
      labelNames: ['result'],
      registers: [registry],
    }),
    delivered: new Counter({ name: 'mapintel_stream_events_delivered_total', help: 'Live events written to stream connections', registers: [registry] }),
    backfilled: new Counter({ name: 'mapintel_stream_events_backfilled_total', help: 'Events replayed to resuming stream connections', registers: [registry] }),
    resets: new Counter({
      name: 'mapintel_stream_resets_total',
      help: 'Resets sent instead of a replay, by reason',
      labelNames: ['reason'],
      registers: [registry],
    }),
    slowConsumers: new Counter({
      name: 'mapintel_stream_slow_consumer_disconnects_total',
      help: 'Connections closed because their unsent bytes passed STREAM_MAX_BUFFER_BYTES',
      registers: [registry],
    }),
    gaps: new Counter({
      name: 'mapintel_stream_live_gaps_total',
      help: 'Live events that named a predecessor a connection did not have (events missing on the way, e.g. published by a relay of an earlier release during an upgrade): the connection read the missing ones from the event log first',
      registers: [registry],
    }),
    closed: new Counter({
      name: 'mapintel_stream_server_closes_total',
      help: 'Connections this server closed, by reason (slow_consumer, resync_failed, shutdown, revoked); clients resume with their last id',
      labelNames: ['reason'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'mapintel_stream_publish_to_write_seconds',
      help: 'Time from an event being written in PostgreSQL to its frame being written to a stream connection',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers: [registry],
    }),
    leases: new Gauge({
      name: 'mapintel_stream_leases',
      help: 'Cap leases this process holds, one per open stream connection: equal to mapintel_stream_clients at rest (a difference is a slot held without a connection, or the reverse)',
      registers: [registry],
      collect() {
        this.set(leases().held);
      },
    }),
    leasesInRedis: new Gauge({
      name: 'mapintel_stream_leases_in_redis',
      help: "Of this process's leases, how many Redis held at the last renewal: fewer than mapintel_stream_leases when Redis lost some (they are written again at that renewal)",
      registers: [registry],
      collect() {
        this.set(leases().inRedis);
      },
    }),
    leasesReasserted: new Counter({
      name: 'mapintel_stream_leases_reasserted_total',
      help: 'Leases of live connections written again because Redis no longer had them (Redis restarted or failed over without its data)',
      registers: [registry],
    }),
    received: new Counter({
      name: 'mapintel_stream_redis_events_received_total',
      help: 'Events this process received from Redis, by how (live: a map channel message; catch_up: a read of a map stream after a gap or a reconnection); only those of maps it has connections for',
      labelNames: ['how'],
      registers: [registry],
    }),
    receivedBytes: new Counter({
      name: 'mapintel_stream_redis_received_bytes_total',
      help: 'Bytes of the events this process received from Redis (message or entry payloads), by how',
      labelNames: ['how'],
      registers: [registry],
    }),
    mapsWatched: new Gauge({
      name: 'mapintel_stream_maps_watched',
      help: 'Maps whose events this process receives: those it has stream connections for',
      registers: [registry],
      collect() {
        this.set(maps());
      },
    }),
    backfillBytes: new Gauge({
      name: 'mapintel_stream_backfill_bytes',
      help: 'Bytes of replay pages this process holds for resuming connections (at most STREAM_BACKFILL_BUDGET_BYTES, or one page)',
      registers: [registry],
      collect() {
        this.set(backfillBytes());
      },
    }),
  };
  // Every known label value from the start, at 0: a dashboard panel or an alert over them has a series
  // (a rate of 0) before the first close or refusal, instead of no data.
  for (const reason of ['slow_consumer', 'resync_failed', 'shutdown', 'revoked']) m.closed.inc({ reason }, 0);
  for (const how of ['live', 'catch_up']) {
    m.received.inc({ how }, 0);
    m.receivedBytes.inc({ how }, 0);
  }
  for (const result of ['admitted', 'map_stream_limit', 'key_stream_limit', 'server_stream_limit', 'caps_recovering']) m.admissions.inc({ result }, 0);
  return m;
}
