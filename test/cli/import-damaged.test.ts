import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';
import { zeroOldPunchPage } from '../helpers/damaged-journal.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const csv = (n: number, day: string) =>
  `biometriccode,logDate\n${Array.from({ length: n }, (_, i) => `${1000 + (i % 50)},2026-10-${day} ${String(6 + Math.floor(i / 3600)).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`).join('\n')}\n`;

describe('punchgate import into a damaged journal (found by a resource trial)', () => {
  it('is refused with 74, the path and the fix before a line is written, never exit 0', async () => {
    const s = cliSandbox();
    cleanups.push(s.tmp.cleanup);
    const journal = s.tmp.path('journal.db');
    writeFileSync(s.tmp.path('a.csv'), csv(3000, '01'));
    writeFileSync(s.tmp.path('b.csv'), csv(3000, '02'));
    expect((await s.cli('import', s.tmp.path('a.csv'))).status).toBe(0);
    // A page of the stopped journal overwritten with zeros (a failing card): one that holds the
    // oldest punches, which the appends of a later import never touch, so SQLite itself says nothing.
    zeroOldPunchPage(journal);
    const r = await s.cli('import', s.tmp.path('b.csv'));
    expect(r.status).toBe(74);
    expect(r.stdout).not.toContain('new,');
    expect(r.stderr).toMatch(
      new RegExp(
        `^punchgate: the journal ${journal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged \\((quick_check found|SQLITE_CORRUPT).*\\): stop punchgate, keep a copy of the file .*sqlite3 .*\\.dump.*punchgate restore --force FILE\\n$`,
      ),
    );
  });
});
