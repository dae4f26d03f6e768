import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, in seconds (measured 2026-11-28 with `--reporter=json`, per directory
 * or one file alone, on a shared 2-core box under load: the order matters, not the figures).
 * A file missing here (or renamed) only starts later; nothing else depends on this list.
 */
export const LONG_FILES: Readonly<Record<string, number>> = {
  'test/adms/daemon-crash.test.ts': 83,
  'test/cli/import-large.test.ts': 71,
  'test/hikvision/listen-daemon.test.ts': 41,
  'test/delivery/hostile-hrms.test.ts': 40,
  'test/hikvision/daemon-firmware.test.ts': 38,
  'test/service/check.test.ts': 38,
  'test/hikvision/cli.test.ts': 37,
  'test/adms/bounds-daemon.test.ts': 33,
  'test/daemon/config-broken.test.ts': 33,
  'test/hikvision/daemon.test.ts': 32,
  'test/hikvision/daemon-hostile.test.ts': 32,
  'test/journal/other-names.test.ts': 31,
  'test/sinks/frappe-beside-hrms.test.ts': 25,
  'test/adms/trust-daemon.test.ts': 23,
  'test/adms/daemon-cli.test.ts': 23,
  'test/daemon/replace-box.test.ts': 23,
  'test/dahua/daemon.test.ts': 22,
  'test/sinks/journal.test.ts': 22,
  'test/web/daemon-metrics.test.ts': 21,
};

/**
 * Longest files first, so that the two workers finish together: a worker that picks up a
 * three-minute file near the end of the run keeps the whole run waiting for it while the other
 * has nothing left to do. Vitest orders by the durations of the last run when its cache has them
 * all (then its own order is kept: failed files first, then longest first); a fresh checkout (CI,
 * `npm ci`) has no cache, and vitest would order by file size, which puts some of the longest
 * files in the last third. Then the measured list above decides, the rest keep vitest's order.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const root = this.ctx.config.root;
    const cached = (f: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(root, f.moduleId)}`) !== undefined;
    if (ordered.every(cached)) return ordered;
    const seconds = (f: TestSpecification) => LONG_FILES[relative(root, f.moduleId)] ?? 0;
    // Array.prototype.sort is stable: files of equal weight keep vitest's order.
    return ordered.sort((a, b) => seconds(b) - seconds(a));
  }
}
