/**
 * The listing's options given to a punches subcommand that does not take them: commander hands
 * them to `punches`, so `punches export --since 2026-11-30` exported every punch of the journal,
 * and `punches release --code 1042` released every quarantined punch of every code, exit 0
 * (a new-user trial). They are refused now (exit 64), before anything is done; export takes the
 * dates and codes of the listing (a month's punches).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { cliSandbox } from '../helpers/cli.js';

describe('punches export, retry and release given an option of the listing', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  it('refuse it with what they take (exit 64) and change nothing; their own options still work', async () => {
    box = cliSandbox({ terminals: [{ name: 'gate-1', kind: 'zk', host: '127.0.0.1' }] });
    const path = box.tmp.path('journal.db');
    const j = Journal.open({ path, site: 'plant-a', mode: 'owner' });
    j.ingest([
      { terminal: 'gate-1', biometricCode: '1001', logTime: '2026-11-01 08:00:00' },
      { terminal: 'gate-1', biometricCode: '1002', logTime: '2026-11-30 08:00:00' },
      // Before 2000: quarantined.
      { terminal: 'gate-1', biometricCode: '1042', logTime: '1999-01-01 08:00:00' },
      { terminal: 'gate-1', biometricCode: '1043', logTime: '1999-01-01 09:00:00' },
    ]);
    j.close();
    const cases: [string[], string][] = [
      [['punches', 'export', '--json'], 'punches export does not take --json'],
      [['punches', 'export', '--code', '1002', '--limit', '1'], 'punches export does not take --limit'],
      [['punches', 'release', '--code', '1042'], 'punches release does not take --code'],
      [['punches', 'retry', '--since', '2026-11-01'], 'punches retry does not take --since'],
      [['punches', '--by-delivery', 'export'], 'punches export does not take --by-delivery'],
      // Every group alike: `terminals --json` is not an option of `terminals listen`.
      [['terminals', 'listen', 'gate-1', '--print', '--json'], 'terminals listen does not take --json'],
    ];
    for (const [args, said] of cases) {
      const r = await box.cli(...args);
      expect({ args, status: r.status, stdout: r.stdout }).toEqual({ args, status: 64, stdout: '' });
      expect(r.stderr).toContain(said);
      expect(r.stderr).toContain('nothing was done');
    }
    // Nothing was released by the refused line.
    const after = Journal.open({ path, site: 'plant-a', mode: 'readonly' });
    expect(after.queries.list({ state: 'quarantined' })).toHaveLength(2);
    after.close();
    // The options each takes.
    const exported = await box.cli('punches', 'export', '--state', 'pending', '--terminal', 'gate-1');
    expect(exported.status).toBe(0);
    expect(exported.stdout.trim().split('\r\n')).toHaveLength(3);
    // export takes the listing's dates and codes (a month's punches for a payroll check), wherever they stand.
    const codesOf = (csv: string) =>
      csv
        .trim()
        .split('\r\n')
        .slice(1)
        .map((l) => l.split(',')[3]);
    expect(codesOf((await box.cli('punches', 'export', '--since', '2026-11-30')).stdout)).toEqual(['1002']);
    expect(codesOf((await box.cli('punches', '--until', '2026-11-02', 'export')).stdout)).toEqual([
      '1042',
      '1043',
      '1001',
    ]);
    const both = await box.cli('punches', 'export', '--code', '1001,1043', '--since', '1999-01-01 08:30');
    expect({ status: both.status, codes: codesOf(both.stdout) }).toEqual({ status: 0, codes: ['1043', '1001'] });
    const retried = await box.cli('punches', 'retry', '--code', '1001', '--terminal', 'gate-1');
    expect(retried.status).toBe(0);
  });
});
