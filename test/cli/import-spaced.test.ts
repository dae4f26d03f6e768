import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';

/**
 * USB exports whose columns are runs of spaces instead of tabs. eSSL and clone firmware writes
 * its ATTLOG lines so (the push form is read so since test/adms/attlog-spaced.test.ts), and the
 * stick export of the same firmware comes the same way: public parsers of `<SN>_attlog.dat`
 * files split a line at a tab or at a run of two spaces or more (`/\t|\s{2,}/`, an office agent
 * reading "CGKK..._attlog.dat" from a stick). The shape is rebuilt here, not copied.
 */
describe('import: a USB export with space-separated columns', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  it('reads runs of spaces as the tab layout, the fourth column as the state; a line of single spaces stays bad', async () => {
    box = cliSandbox({ terminals: [{ name: 'gate-2', kind: 'zk', host: '127.0.0.1' }] });
    const text = [
      '     1001    2026-11-30 08:01:02    1    0    1    0', // 1 spaced, padded PIN: check-in
      '     1001    2026-11-30 17:31:09    1    1    1    0', // 2 spaced: check-out
      '1002\t2026-11-30 08:03:04\t1\t0\t15\t0', // 3 tab, as before
      '  A-7  2026-11-30 08:04:05  1  0', // 4 spaced, fewer columns
      '1003 2026-11-30 08:05:06 1 0 1 0', // 5 single spaces: no firmware writes it, bad
      '1004    2026-11-30 08:06', // 6 no full date-time: bad
    ].join('\r\n');
    writeFileSync(box.tmp.path('CKJ7203461467_attlog.dat'), '\ufeff' + text + '\r\n');
    const r = await box.cli('import', '--terminal', 'gate-2', box.tmp.path('CKJ7203461467_attlog.dat'));
    expect(r.status, r.stderr).toBe(65);
    expect(r.stdout).toContain('CKJ7203461467_attlog.dat: 4 new, 0 duplicates, 2 bad');
    expect(r.stderr).toContain('CKJ7203461467_attlog.dat:5: ');
    expect(r.stderr).toContain('CKJ7203461467_attlog.dat:6: ');
    const got = (await box.cli('punches', '--json', '--limit', '10')).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { biometricCode: string; logTime: string; punchState: number; verifyType: number })
      .map((p) => [p.biometricCode, p.logTime, p.punchState, p.verifyType])
      .sort((a, b) => String(a[1]).localeCompare(String(b[1])));
    expect(got).toEqual([
      ['1001', '2026-11-30 08:01:02', 0, 1],
      ['1002', '2026-11-30 08:03:04', 0, 15],
      ['A-7', '2026-11-30 08:04:05', 0, null],
      ['1001', '2026-11-30 17:31:09', 1, 1],
    ]);
  });
});
