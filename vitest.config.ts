import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The suites of the redis-cluster tier (make test-redis-cluster): the stream, caps (the churn test
 * included), event, webhook and rate-limit suites that use Redis, on a 3-master Redis Cluster started by
 * its global setup, plus the failover test (test/redis-cluster/). Left out, each for needing one Redis
 * server of its own that it stops, restarts or cuts (their cluster counterpart is the failover test):
 * dependency-down, stream-resilience, webhook-faults. Of event-tail, the two tests that cut a
 * subscription by CLIENT ID (which names a client of one server) skip on the cluster. Suites without
 * Redis gain nothing from it.
 */
const REDIS_CLUSTER_SUITES = [
  'test/redis-cluster/**/*.test.ts',
  'test/integration/stream.test.ts',
  'test/integration/stream-wire.test.ts',
  'test/integration/stream-backfill.test.ts',
  'test/integration/stream-aborted-connects.test.ts',
  'test/integration/stream-caps.test.ts',
  'test/integration/stream-caps-processes.test.ts',
  'test/integration/stream-churn.test.ts',
  'test/integration/stream-fanout.test.ts',
  'test/integration/stream-presence.test.ts',
  'test/integration/stream-no-gap.test.ts',
  'test/integration/stream-filters.test.ts',
  'test/integration/map-event-id.test.ts',
  'test/integration/stream-live-gap.test.ts',
  'test/integration/event-transport.test.ts',
  'test/integration/event-tail.test.ts',
  'test/integration/redis-script.test.ts',
  'test/integration/stream-connect-newest.test.ts',
  'test/integration/event-relay.test.ts',
  'test/integration/event-relay-failover.test.ts',
  'test/integration/event-consumer-partitions.test.ts',
  'test/integration/webhook-position.test.ts',
  'test/integration/rate-limit.test.ts',
  'test/integration/roles.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // Every event payload a test sees is checked against the event catalog (test/support/event-catalog.ts).
    setupFiles: ['test/support/catalog-setup.ts'],
    // Generous: a test checks behaviour, and a busy machine stretches every step of it.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: files in parallel would mostly contend for PostgreSQL.
    fileParallelism: true,
    maxWorkers: 2,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'service',
          // The typed client package's tests run against the service like the rest (clients/typescript).
          include: ['test/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/cluster/**', 'test/e2e/**', 'test/pgbouncer/**', 'test/redis-cluster/**'],
          sequence: { groupOrder: 0 },
        },
      },
      // make test-pgbouncer (scripts/pgbouncer-tier.mjs starts the pooler first): the suites that move events,
      // through PgBouncer in transaction mode, and what the service refuses without DATABASE_SESSION_URL.
      {
        extends: true,
        test: {
          name: 'pgbouncer',
          include: [
            'test/pgbouncer/**/*.test.ts',
            'test/integration/event-*.test.ts',
            'test/integration/stream*.test.ts',
            'test/integration/webhook-*.test.ts',
            'test/api/webhooks.test.ts',
            'test/api/events-log.test.ts',
          ],
          // One file at a time: every file's database gets pooled server connections of its own.
          fileParallelism: false,
          sequence: { groupOrder: 3 },
        },
      },
      // `make check`'s static checks of the source tree (layers, table owners, import circles): no
      // global setup, so they need neither PostgreSQL nor Redis. The fast tier runs them too.
      {
        test: {
          name: 'static',
          include: ['test/unit/layers.test.ts', 'test/unit/table-owners.test.ts', 'test/unit/cache-headers.test.ts'],
          sequence: { groupOrder: 3 },
        },
      },
      // After the rest: a control plane per file loads the two cores, and timing-sensitive tests elsewhere should not share them with it.
      { extends: true, test: { name: 'cluster', include: ['test/cluster/**/*.test.ts'], sequence: { groupOrder: 1 } } },
      // make test-redis-cluster: the suites above against a Redis Cluster (TEST_REDIS_URL and TEST_REDIS_CLUSTER from its setup).
      {
        extends: true,
        test: {
          name: 'redis-cluster',
          include: REDIS_CLUSTER_SUITES,
          globalSetup: ['test/support/global-setup.ts', 'test/support/redis-cluster.ts'],
          sequence: { groupOrder: 3 },
        },
      },
      // The chart on a real node (make test-e2e: scripts/e2e/run.mjs starts the cluster first); one file at a time, in order.
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // The upgrade check runs only when run.mjs built a previous release (E2E_PREVIOUS_REF; docs/upgrading.md).
          exclude: [...configDefaults.exclude, ...(process.env.E2E_PREVIOUS_CHART ? [] : ['test/e2e/upgrade.test.ts'])],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 600_000,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
