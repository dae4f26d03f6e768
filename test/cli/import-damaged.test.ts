import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/journal/sqlite-driver.js';
import { cliSandbox } from '../helpers/cli.js';

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
    const db = new Database(journal, { readonly: true, fileMustExist: true });
    const { pageno } = db
      .prepare("SELECT pageno FROM dbstat WHERE name = 'punches' AND pagetype = 'leaf' ORDER BY path LIMIT 1 OFFSET 1")
      .get() as { pageno: number };
    db.close();
    const fd = openSync(journal, 'r+');
    writeSync(fd, Buffer.alloc(4096), 0, 4096, (pageno - 1) * 4096);
    closeSync(fd);
    const r = await s.cli('import', s.tmp.path('b.csv'));
    expect(r.status).toBe(74);
    expect(r.stdout).not.toContain('new,');
    expect(r.stderr).toMatch(
      new RegExp(
        `^punchgate: the journal ${journal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged \\((quick_check found|SQLITE_CORRUPT).*\\): stop punchgate, keep a copy of the file .*sqlite3 .*\\.recover.*punchgate restore --force FILE\\n$`,
      ),
    );
  });
});
