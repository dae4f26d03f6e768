import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';

/**
 * A USB export (`*_attlog.dat`) whose lines carry bytes that are not UTF-8 in a column punchgate
 * does not read: a work code or a user name some firmware appends, written in the terminal's own
 * code page (GBK on a Chinese firmware, Windows-1252 on a Western one). The PIN, date-time and
 * state are ASCII, so the punch is read; such bytes in one of those columns still make the line bad.
 */
describe('import: a USB export whose unread columns are not UTF-8', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  const hex = (s: string) => Buffer.from(s, 'hex');
  const ascii = (s: string) => Buffer.from(s, 'latin1');

  it('imports the punches, refuses the lines whose PIN, time or state has such bytes', async () => {
    box = cliSandbox({ terminals: [{ name: 'gate-2', kind: 'zk', host: '127.0.0.1' }] });
    const file = box.tmp.path('BJ2C_attlog.dat');
    writeFileSync(
      file,
      Buffer.concat([
        // 1: a name column in GBK (张三) after the usual six
        ascii('     1001\t2026-11-22 08:00:00\t1\t0\t1\t0\t'),
        hex('d5c5c8fd'),
        ascii('\r\n'),
        // 2: a work code in Windows-1252 (é)
        ascii('1002\t2026-11-22 08:01:00\t1\t1\t15\tcaf'),
        hex('e9'),
        ascii('\r\n'),
        // 3: the PIN itself has such bytes: bad
        ascii('10'),
        hex('d5c5'),
        ascii('\t2026-11-22 08:02:00\t1\t0\t1\t0\r\n'),
        // 4: space-separated columns (eSSL), a GBK name last
        ascii('     1003    2026-11-22 08:03:00    1    0    1    '),
        hex('c0eecbc4'),
        ascii('\r\n'),
        // 5: space-separated, the state has such bytes: bad
        ascii('     1004    2026-11-22 08:04:00    1    '),
        hex('ff'),
        ascii('    1\r\n'),
        // 6: the time has such bytes: bad
        ascii('1005\t2026-11-22 08:05:0'),
        hex('ff'),
        ascii('\t1\t0\t1\t0\r\n'),
      ]),
    );
    const r = await box.cli('import', '--terminal', 'gate-2', file);
    expect(r.status, r.stderr).toBe(65);
    expect(r.stdout).toContain('BJ2C_attlog.dat: 3 new, 0 duplicates, 3 bad');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/BJ2C_attlog\.dat:3: .*not valid UTF-8/),
      expect.stringMatching(/BJ2C_attlog\.dat:5: .*not valid UTF-8/),
      expect.stringMatching(/BJ2C_attlog\.dat:6: .*not valid UTF-8/),
    ]);
    const got = (await box.cli('punches', '--json', '--limit', '10')).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { biometricCode: string; logTime: string; punchState: number; verifyType: number })
      .map((p) => [p.biometricCode, p.logTime, p.punchState, p.verifyType])
      .sort((a, b) => String(a[1]).localeCompare(String(b[1])));
    expect(got).toEqual([
      ['1001', '2026-11-22 08:00:00', 0, 1],
      ['1002', '2026-11-22 08:01:00', 1, 15],
      ['1003', '2026-11-22 08:03:00', 0, 1],
    ]);
  });
});
