import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/sequencer.js';

/** Test files git neither tracks nor ignores (a scratch file) are not run: see .ci/untracked.cjs. */
const untracked = (
  createRequire(import.meta.url)('./.ci/untracked.cjs') as { untrackedFiles: () => string[] }
).untrackedFiles();

/**
 * Every test runs with TZ=UTC, set here once (a box's zone must never change a punch's time, and
 * a test must not depend on the zone of the machine it runs on). `*.berlin.test.ts` files run in
 * Europe/Berlin to prove that wall-clock times survive a zone with DST changes.
 */
const BERLIN = 'test/**/*.berlin.test.ts';
/** The built packages, installed on the machine as root: run by .ci/run with vitest.package.config.ts. */
const PACKAGE = 'test/package/**';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real servers and child processes; two cores on the CI box.
    pool: 'forks',
    maxWorkers: 2,
    // The longest files start first (a fresh checkout has no durations of a last run).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'utc',
          include: ['test/**/*.test.ts'],
          exclude: [BERLIN, PACKAGE, ...untracked],
          env: { TZ: 'UTC' },
        },
      },
      { extends: true, test: { name: 'berlin', include: [BERLIN], exclude: untracked, env: { TZ: 'Europe/Berlin' } } },
    ],
  },
});
