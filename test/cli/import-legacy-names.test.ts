import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';

/**
 * A punch CSV with a name column, saved by a spreadsheet in the Windows code page of its locale
 * (Excel's plain "CSV" writes GBK in China, Windows-1252 in Western Europe): the names are not
 * UTF-8, the codes and times are ASCII. The names are not read, so they cost no punch; bytes that
 * are not UTF-8 in a cell that is read still make the line bad.
 */
describe('import: a CSV whose unread columns are not UTF-8', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  const gbk = (s: string) => Buffer.from(s, 'hex');

  it('imports the punches; a header or a code with such bytes is said as before', async () => {
    box = cliSandbox({ terminals: [{ name: 'gate-2', kind: 'zk', host: '127.0.0.1' }] });
    const file = box.tmp.path('punches.csv');
    writeFileSync(
      file,
      Buffer.concat([
        // The header names the name column in GBK too (姓名).
        Buffer.from('biometriccode,'),
        gbk('d0d5c3fb'),
        Buffer.from(',logDate\r\n1001,'),
        gbk('d5c5c8fd'), // 张三
        Buffer.from(',2026-11-22 08:00:00\r\n1002,'),
        gbk('c0eecbc4'), // 李四
        Buffer.from(',2026-11-22 08:01:00\r\n10'),
        gbk('d5c5'), // a code with such bytes: line 4 bad
        Buffer.from(',x,2026-11-22 08:02:00\r\n1003,Jos'),
        Buffer.from([0xe9]), // José in Windows-1252
        Buffer.from(',2026-11-22 08:03:00\r\n'),
      ]),
    );
    const r = await box.cli('import', '--terminal', 'gate-2', file);
    expect(r.status, r.stderr).toBe(65);
    expect(r.stdout).toContain('punches.csv: 3 new, 0 duplicates, 1 bad');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/punches\.csv:4: .*not valid UTF-8/)]);
    const codes = (await box.cli('punches', '--json', '--limit', '10')).stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { biometricCode: string }).biometricCode)
      .sort();
    expect(codes).toEqual(['1001', '1002', '1003']);
  });
});
