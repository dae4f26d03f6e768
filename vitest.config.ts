import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real servers and child processes; two cores on the CI box.
    pool: 'forks',
    maxWorkers: 2,
  },
});
