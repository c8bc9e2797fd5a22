import { configDefaults, defineConfig } from 'vitest/config';

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
          exclude: [...configDefaults.exclude, 'test/cluster/**', 'test/e2e/**', 'test/pgbouncer/**'],
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
      // After the rest: a control plane per file loads the two cores, and timing-sensitive tests elsewhere should not share them with it.
      { extends: true, test: { name: 'cluster', include: ['test/cluster/**/*.test.ts'], sequence: { groupOrder: 1 } } },
      // The chart on a real node (make test-e2e: scripts/e2e/run.mjs starts the cluster first); one file at a time, in order.
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 600_000,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
