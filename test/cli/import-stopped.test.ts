import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/journal/sqlite-driver.js';
import { cliSandbox, runPunchgate } from '../helpers/cli.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const csv = (n: number) =>
  `biometriccode,logDate\n${Array.from({ length: n }, (_, i) => `${1000 + (i % 50)},2026-10-01 ${String(6 + Math.floor(i / 3600)).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`).join('\n')}\n`;

const count = (path: string) => {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM punches').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('punchgate import stopped by the journal (found by an adversarial trial)', () => {
  it('says what stays journalled, what was not imported and to run it again, never that it "starts again by itself" (74)', async () => {
    const s = cliSandbox();
    cleanups.push(s.tmp.cleanup);
    writeFileSync(s.tmp.path('a.csv'), csv(3000));
    writeFileSync(s.tmp.path('b.csv'), csv(10));
    // The journal cannot grow past 200 KB (a full disk, as SQLite meets it: its write fails).
    const r = await runPunchgate(['--config', s.config, 'import', s.tmp.path('a.csv'), s.tmp.path('b.csv')], {
      shell: "trap '' XFSZ; ulimit -f 400;",
    });
    expect(r.status).toBe(74);
    const kept = count(s.tmp.path('journal.db'));
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(3000);
    expect(r.stderr).toContain(
      `${s.tmp.path('a.csv')}: stopped after line ${kept + 1}: ${kept} new, 0 duplicates journalled before it (kept); not imported: ${s.tmp.path('b.csv')}; once the journal is mended, run the same import again`,
    );
    expect(r.stderr).toMatch(
      /punchgate: the journal .*journal\.db cannot be written: .*; then run the command again\n$/,
    );
    expect(r.stderr).not.toContain('starts again by itself');
    // Run again with room: what was kept counts as duplicates, the rest is added, nothing twice.
    const again = await s.cli('import', s.tmp.path('a.csv'), s.tmp.path('b.csv'));
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(`a.csv: ${3000 - kept} new, ${kept} duplicates, 0 bad`);
    expect(count(s.tmp.path('journal.db'))).toBe(3000);
  });
});
