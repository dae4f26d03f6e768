import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';
import { zeroOldPunchPage } from '../helpers/damaged-journal.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const csv = (n: number) =>
  `biometriccode,logDate\n${Array.from({ length: n }, (_, i) => `${1000 + (i % 50)},2026-10-01 ${String(6 + Math.floor(i / 3600)).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`).join('\n')}\n`;

describe('punchgate check --quick on a journal with zeroed pages (found by a resource trial)', () => {
  it('says it did not check the pages (the full check fails them), never a bare PASS', async () => {
    const s = cliSandbox();
    cleanups.push(s.tmp.cleanup);
    writeFileSync(s.tmp.path('a.csv'), csv(3000));
    expect((await s.cli('import', s.tmp.path('a.csv'))).status).toBe(0);
    const journal = s.tmp.path('journal.db');
    zeroOldPunchPage(journal);

    const journalLine = (out: string) => out.split('\n').find((l) => / journal: /.test(l)) ?? '';
    const quick = await s.cli('check', '--quick');
    expect(journalLine(quick.stdout)).toMatch(
      /^PASS journal: \S+journal\.db: pages not checked \(--quick; punchgate check without --quick checks them\), queue 3000 pending/,
    );
    const full = await s.cli('check');
    expect(journalLine(full.stdout)).toMatch(
      /^FAIL journal: \S+journal\.db is (damaged|not a readable SQLite database)/,
    );
  });
});
