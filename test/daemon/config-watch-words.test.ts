import { utimesSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigWatch } from '../../src/daemon/config-watch.js';
import { checkTerminalConfig } from '../../src/sources/build.js';
import { localTime } from '../../src/util/local-time.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A broken config file named the same way by every message (found by a new-user trial: the
 * reload said `good.yaml:8`, the file watch `/tmp/trial-b-run/good.yaml:39`), with times as a
 * person reads them (`loaded 2026-11-30T07:53:39.347Z` was printed).
 */
describe('the config watch of punchgate run', () => {
  let tmp: ReturnType<typeof tempDir>;
  let lines: string[];
  beforeEach(() => {
    tmp = tempDir();
    lines = [];
  });
  afterEach(() => tmp.cleanup());

  const deps = () => ({
    clock: { now: () => Date.now(), elapsed: () => performance.now() },
    logger: pino({ level: 'info' }, { write: (s: string) => void lines.push((JSON.parse(s) as { msg: string }).msg) }),
    checkTerminal: checkTerminalConfig,
  });
  const good = (dir: string) =>
    `site: plant-a\njournal:\n  path: ${dir}/j.db\nhrms:\n  baseUrl: https://hr.example.com\n`;
  const broken = (dir: string) => `${good(dir)}delivery:\n  batchSize: 0\n`;

  it('names the file as --config named it, as check and a reload do, in the header and in each problem', () => {
    // As given on the command line: relative to where punchgate was started.
    const file = relative(process.cwd(), tmp.path('good.yaml'));
    writeFileSync(file, good(tmp.dir));
    const { watch } = ConfigWatch.startWith(file, deps());
    writeFileSync(file, broken(tmp.dir));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    watch.poll();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^${file.replace(/[.]/g, '\\.')} does not load \\(${file.replace(/[.]/g, '\\.')}:7: delivery`),
    );
    // Never the absolute path the watch stats.
    expect(lines[0]).not.toMatch(new RegExp(`(^|[ (])${tmp.dir}`));
  });

  it('a failure to load that is no config error (a reload that threw) is named by the file too', () => {
    const file = relative(process.cwd(), tmp.path('good.yaml'));
    writeFileSync(file, good(tmp.dir));
    const { watch } = ConfigWatch.startWith(file, deps());
    watch.failedToLoad(new Error('EIO: i/o error, read'));
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${file.replace(/[.]/g, '\\.')} does not load \\(${file.replace(/[.]/g, '\\.')}: EIO: i/o error, read\\)`,
        ),
      ),
    ]);
  });

  it('running on the last good copy: when it was loaded, in the one time format', () => {
    const file = tmp.path('good.yaml');
    writeFileSync(file, good(tmp.dir));
    const first = ConfigWatch.startWith(file, deps());
    first.watch.ownsJournal();
    const loadedAt = Date.parse(first.watch.status().loadedAt);
    writeFileSync(file, broken(tmp.dir));
    ConfigWatch.startWith(file, deps());
    const said = lines.find((l) => l.includes('runs on the last good config'));
    expect(said).toContain(`loaded ${localTime(loadedAt)} and kept at`);
    expect(said).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
  });
});
