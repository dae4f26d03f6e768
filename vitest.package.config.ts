import { defineConfig } from 'vitest/config';

/**
 * The package test (test/package): the .deb and tarball files `npm run package` built, their
 * contents and lintian, the arm64 runtime under qemu-user, and, as root, the amd64 package
 * installed, used, upgraded and purged on this machine. Not part of `npm test`: it needs the
 * packages built first and changes the machine (a package, a system user); .ci/run runs it:
 *   npm run package && npx vitest run --config vitest.package.config.ts
 * One file at a time, in order: its steps build on each other.
 */
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    env: { TZ: 'UTC' },
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    sequence: { concurrent: false },
  },
});
