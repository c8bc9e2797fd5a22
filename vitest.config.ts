import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: files in parallel would mostly contend for PostgreSQL.
    fileParallelism: true,
    maxWorkers: 2,
    pool: 'forks',
  },
});
