import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
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
          exclude: [...configDefaults.exclude, 'test/cluster/**', 'test/e2e/**'],
          sequence: { groupOrder: 0 },
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
