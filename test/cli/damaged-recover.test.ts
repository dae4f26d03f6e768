import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, symlinkSync, writeSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { cliSandbox } from '../helpers/cli.js';
import { zeroNewestPunchPage, zeroOldPunchPage } from '../helpers/damaged-journal.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** The sqlite3 shell of this box (Debian's 3.40.1 here, as on a Raspberry Pi OS box): the fix names it. */
const hasSqlite3 = spawnSync('sqlite3', ['-version']).status === 0;

const at = (day: number, n: number) =>
  `2026-11-${String(day).padStart(2, '0')} ${String(6 + Math.floor(n / 3600)).padStart(2, '0')}:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}`;

/** A journal of 1,500 punches delivered (day 1), then 600 owed (day 2), made as the daemon makes them. */
function sandbox() {
  const s = cliSandbox({ status: { listen: false } });
  cleanups.push(s.tmp.cleanup);
  const journal = s.tmp.path('journal.db');
  const j = Journal.open({ path: journal, site: 'plant-a', mode: 'owner' });
  const punches = (day: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      terminal: 'gate-1',
      device: 'SN-1',
      biometricCode: String(1000 + (i % 97)),
      logTime: at(day, i),
    }));
  j.ingest(punches(1, 1500));
  for (let c = j.claim(500); c.length > 0; c = j.claim(500))
    j.settle(c.map((p) => ({ id: p.id, kind: 'delivered' as const })));
  j.ingest(punches(2, 600));
  j.close();
  return { ...s, journal };
}

const rows = (path: string, sql: string) => {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
};
const byState = (path: string) =>
  Object.fromEntries(
    (rows(path, 'SELECT state, count(*) AS n FROM punches GROUP BY state') as { state: string; n: number }[]).map(
      (r) => [r.state, r.n],
    ),
  );

describe('a damaged journal, mended as punchgate says (found by a damaged-journal trial)', () => {
  it.skipIf(!hasSqlite3)(
    "the recovery its check prints works with the box's own sqlite3: every owed punch back, none delivered owed again, the counts true",
    async () => {
      const s = sandbox();
      // A page of delivered punches zeroed (a failing SD card): the daemon does not read it, check does.
      zeroOldPunchPage(s.journal);
      const check = await s.cli('check');
      const line = check.stdout.split('\n').find((l) => / journal: /.test(l)) ?? '';
      expect(line).toMatch(/^FAIL journal: \S+journal\.db is damaged/);
      // The commands as printed: the first part with sh, the restore with this punchgate.
      const recipe =
        /recover what it holds into a new file \(apt-get install sqlite3\): (.*), then put it in place: punchgate restore --force (\S+) /.exec(
          line,
        );
      expect(recipe, line).not.toBeNull();
      execFileSync('sh', ['-c', recipe![1]!], { stdio: 'ignore' });
      const restored = await s.cli('restore', '--force', recipe![2]!);
      expect(restored.status, restored.stderr).toBe(0);

      const after = byState(s.journal);
      expect(after.pending).toBe(600);
      // The rows of the zeroed page are gone, never turned back into owed punches.
      expect(after.delivered).toBeGreaterThan(1300);
      expect(after.delivered).toBeLessThan(1500);
      // The kept counts say what the rows say (status, /metrics and check read them).
      expect(rows(s.journal, `SELECT state, n FROM punch_totals WHERE n > 0 ORDER BY state`)).toEqual([
        { state: 'delivered', n: after.delivered },
        { state: 'pending', n: 600 },
      ]);
      expect((await s.cli('check')).stdout).toMatch(
        /^PASS journal: \S+journal\.db: quick_check ok, queue 600 pending/m,
      );
    },
  );

  it.each(['zeroed', 'torn'] as const)(
    'a nightly backup of it (a page %s) is refused in one line that names the journal and the way on, and no backup is left (74)',
    async (how) => {
      const s = sandbox();
      const page = zeroOldPunchPage(s.journal);
      // Torn: the page's first half as it was (zeroed here), its second half garbage.
      if (how === 'torn') {
        const fd = openSync(s.journal, 'r+');
        writeSync(fd, randomBytes(2048), 0, 2048, (page - 1) * 4096 + 2048);
        closeSync(fd);
      }
      mkdirSync(s.tmp.path('backups'));
      const r = await s.cli('backup', s.tmp.path('backups'));
      expect(r.status).toBe(74);
      expect(r.stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(
          /^punchgate: the journal \S+journal\.db is damaged: the backup just made of it \(\S+, not kept\) fails SQLite's check with \d+ problems? \(.*\): keep the backups you have .*punchgate check says how$/,
        ),
      ]);
      expect(readdirSync(s.tmp.path('backups'))).toEqual([]);
    },
  );

  it('check says a damaged page met while it opens the journal is damage, as run says, never "not a readable SQLite database"', async () => {
    const s = sandbox();
    zeroNewestPunchPage(s.journal);
    const line = (await s.cli('check')).stdout.split('\n').find((l) => / journal: /.test(l)) ?? '';
    expect(line).toMatch(/^FAIL journal: \S+journal\.db is damaged \(SQLITE_CORRUPT/);
    expect(line).not.toContain('not a readable SQLite database');
    expect(line).not.toContain('point journal.path at the punchgate journal');
    expect(line).toContain('punchgate restore --force');
  });

  /**
   * The recovery is run as root (it is printed by root's check) in the service user's folder,
   * which may put a link at the new file's name once the `rm -f` has run: the later commands
   * open it again by name. Followed, root's sqlite3 made a database where the link pointed
   * (found by an adversarial trial). Here the link is planted right after the `rm -f`.
   */
  it.skipIf(!hasSqlite3)(
    'the recovery as printed never writes through a link put at its new file',
    async () => {
      const s = sandbox();
      zeroOldPunchPage(s.journal);
      const line = (await s.cli('check')).stdout.split('\n').find((l) => / journal: /.test(l)) ?? '';
      const recipe =
        /recover what it holds into a new file \(apt-get install sqlite3\): rm -f (\S+); (.*), then put it in place/.exec(
          line,
        );
      expect(recipe, line).not.toBeNull();
      const victim = s.tmp.path('made-by-root.db');
      symlinkSync(victim, recipe![1]!);
      spawnSync('sh', ['-c', recipe![2]!], { stdio: 'ignore' });
      expect(existsSync(victim)).toBe(false);
      expect(lstatSync(recipe![1]!).isSymbolicLink()).toBe(true);
    },
    60_000,
  );
});
