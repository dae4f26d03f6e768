import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { applyMigration, MIGRATIONS } from '../../src/journal/migrations.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A journal on a file system mounted read-only (an upgrade trial: the first start of the new
 * version, which upgrades the journal, met a read-only disk). punchgate run says "read-only file
 * system: remount it read-write"; check said "cannot be opened by this user ... chown -R punchgate:",
 * which no owner change can fix. Now check names the mount as run does. Mounting needs root;
 * elsewhere the test checks nothing.
 */
describe('check of a journal on a read-only mount', () => {
  const tmp = tempDir('punchgate-check-rofs-');
  let mounted: string | undefined;
  afterEach(() => {
    if (mounted) spawnSync('umount', [mounted]);
    mounted = undefined;
    tmp.cleanup();
  });

  /** A tmpfs at `folder` with a config and the journal `make` writes, then mounted read-only. */
  function readOnlySite(make: (journal: string) => void): { config: string; journal: string } | undefined {
    const folder = tmp.path('box');
    mkdirSync(folder, { recursive: true });
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', folder]).status !== 0) return undefined;
    mounted = folder;
    const journal = join(folder, 'journal.db');
    const config = join(folder, 'punchgate.yaml');
    writeFileSync(
      config,
      stringify({
        site: 'plant-a',
        journal: { path: journal },
        hrms: { baseUrl: 'http://127.0.0.1:9' },
        terminals: [],
      }),
    );
    make(journal);
    expect(spawnSync('mount', ['-o', 'remount,ro', folder]).status).toBe(0);
    return { config, journal };
  }

  const cases: [string, (journal: string) => void][] = [
    // What an older punchgate left (schema 10; a journal in rollback mode opens read-only there).
    [
      'an older journal to be upgraded',
      (journal) => {
        const db = new Database(journal);
        db.transaction(() => {
          for (const m of MIGRATIONS.slice(0, 10)) applyMigration(db, m);
          db.pragma('user_version = 10');
        })();
        db.close();
      },
    ],
    // Today's journal in WAL mode (without its -shm, SQLite cannot open it there at all).
    ['a journal of this version', (journal) => Journal.open({ path: journal, site: 'plant-a', mode: 'owner' }).close()],
  ];

  for (const [name, make] of cases) {
    it(`${name}: check FAILs it in run's words (remount), not as a matter of owners`, async () => {
      if (process.getuid?.() !== 0) return;
      const site = readOnlySite(make);
      if (!site) return;
      const before = readFileSync(site.journal);

      const run = await runPunchgate(['--config', site.config, 'run']);
      expect(run.status).toBe(75);
      expect(run.stderr).toContain('is on a read-only file system');

      const check = await runPunchgate(['--config', site.config, 'check']);
      const line = check.stdout.split('\n').find((l) => l.includes(' journal:')) ?? '';
      expect(line).toMatch(/^FAIL journal: .* is on a read-only file system \(/);
      expect(line).toContain('remount it read-write');
      expect(line).not.toContain('chown');
      expect(readFileSync(site.journal).equals(before)).toBe(true);
    });
  }
});
