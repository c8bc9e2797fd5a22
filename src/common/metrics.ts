import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of a process; the registry is passed in, never global. */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  dbPool: Gauge<'state'>;
  eventsPublished: Counter;
  eventPublishLatency: Histogram;
  tokenLookups: Counter;
  mapReads: Counter<'result'>;
}

/**
 * prom-client's default gauges that end in `_total` though they are not counters (Prometheus keeps
 * `_total` for counters); each is the sum of the same gauge without the suffix, which has a `type` label.
 */
const DEFAULT_GAUGES_NAMED_LIKE_COUNTERS = ['nodejs_active_resources_total', 'nodejs_active_handles_total', 'nodejs_active_requests_total'];

/** Prefix of every metric of the service (the operator's controller-runtime names aside). */
const METRIC_PREFIX = 'mapintel_';

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) {
    // prom-client's names begin with their area (process_, nodejs_): one prefix before them, not two.
    collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
    for (const name of DEFAULT_GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(`${METRIC_PREFIX}${name}`);
  }
  return {
    registry,
    httpRequests: new Counter({
      name: 'mapintel_http_requests_total',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'mapintel_http_request_duration_seconds',
      help: 'HTTP request latency by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    dbPool: new Gauge({
      name: 'mapintel_db_pool_connections',
      help: 'PostgreSQL pool connections by state (total, idle, waiting)',
      labelNames: ['state'],
      registers: [registry],
    }),
    eventsPublished: new Counter({
      name: 'mapintel_events_published_total',
      help: 'Events the relay published to the transport',
      registers: [registry],
    }),
    eventPublishLatency: new Histogram({
      name: 'mapintel_events_publish_latency_seconds',
      help: 'Time from writing an event in PostgreSQL to its publication on the transport',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
      registers: [registry],
    }),
    tokenLookups: new Counter({
      name: 'mapintel_auth_token_lookups_total',
      help: 'API key resolutions that needed the database (the caches did not know the token)',
      registers: [registry],
    }),
    mapReads: new Counter({
      name: 'mapintel_map_read_cache_total',
      help: 'Map reads by how they were answered: hit (from the cache), miss (computed), not_modified (304), uncached (a change not yet versioned)',
      labelNames: ['result'],
      registers: [registry],
    }),
  };
}
