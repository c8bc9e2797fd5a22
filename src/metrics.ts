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

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'mapintel_process_' });
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
