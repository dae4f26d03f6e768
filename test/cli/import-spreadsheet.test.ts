import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';

/**
 * CSV files as spreadsheets save them: Excel where the comma is the decimal mark separates cells
 * with `;`, and keeps a code's leading zeros by writing it as the text formula `="0042"`. Found
 * by a trial: the `;` file was refused whole for a header that names both columns, and the
 * formula was journalled (and sent to the HRMS) as the code `="0042"`.
 */
describe('import reads CSVs made by spreadsheets', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  const journalled = async () =>
    (await box.cli('punches', '--limit', '1000', '--json')).stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const p = JSON.parse(l) as { biometricCode: string; logTime: string };
        return `${p.biometricCode} ${p.logTime}`;
      })
      .sort();

  it('a time saved without its seconds is refused with the cause and the fix, never read as :00', async () => {
    box = cliSandbox();
    const file = box.tmp.path('minutes.csv');
    writeFileSync(
      file,
      'biometriccode,logDate\r\n501,2026-11-28 08:05\r\n502,2026/11/28 08:06\r\n503,2026-11-28 08:07:09\r\n',
    );
    const r = await box.cli('import', file);
    expect(r.status).toBe(65);
    expect(r.stdout).toContain('minutes.csv: 1 new, 0 duplicates, 2 bad');
    const said = r.stderr.trim().split('\n');
    expect(said).toEqual([
      expect.stringContaining('minutes.csv:2: bad logDate "2026-11-28 08:05": the seconds are missing'),
      expect.stringContaining('minutes.csv:3: bad logDate "2026/11/28 08:06": the seconds are missing'),
    ]);
    expect(said[0]).toContain("set the column's format to yyyy-mm-dd hh:mm:ss before saving");
    expect(await journalled()).toEqual(['503 2026-11-28 08:07:09']);
  });

  it('a semicolon-separated CSV (Excel, European locales) with quoted cells is read', async () => {
    box = cliSandbox();
    const file = box.tmp.path('excel.csv');
    writeFileSync(
      file,
      '\ufeff"biometriccode";"logDate"\r\n"0401";"2026-11-20 11:00:00"\r\n402;2026-11-20 11:01:00\r\n403,2026-11-20 11:02:00\r\n',
    );
    const r = await box.cli('import', file);
    expect(r.stdout).toContain('excel.csv: 2 new, 0 duplicates, 1 bad');
    // A line with a comma where the file uses semicolons is one cell: bad, with its number.
    expect(r.stderr).toMatch(/excel\.csv:4: /);
    expect(r.status).toBe(65);
    expect(await journalled()).toEqual(['0401 2026-11-20 11:00:00', '402 2026-11-20 11:01:00']);
  });

  it('a tab-separated CSV is read too; a comma CSV is read as before', async () => {
    box = cliSandbox();
    writeFileSync(box.tmp.path('tabs.csv'), 'biometriccode\tlogDate\n501\t2026-11-20 12:00:00\n');
    writeFileSync(box.tmp.path('commas.csv'), 'logDate,biometriccode\n2026-11-20 12:01:00,"5;02"\n');
    const r = await box.cli('import', box.tmp.path('tabs.csv'), box.tmp.path('commas.csv'));
    expect(r.status, r.stderr).toBe(0);
    expect(await journalled()).toEqual(['501 2026-11-20 12:00:00', '5;02 2026-11-20 12:01:00']);
  });

  it('="0042" is the code 0042; any other formula is a bad line, never a code', async () => {
    box = cliSandbox();
    const file = box.tmp.path('formulas.csv');
    writeFileSync(
      file,
      [
        'biometriccode,logDate',
        '"=""0042""",2026-11-20 08:00:00', // 2: Excel's text formula, as Excel quotes it
        '="0043",="2026-11-20 08:01:00"', // 3: the same, unquoted
        '=1+1,2026-11-20 08:02:00', // 4: a formula: its value is not in the file
        '44,=A5', // 5
        '"=""a""""b""",2026-11-20 08:03:00', // 6: ="a""b" is the text a"b
      ].join('\r\n') + '\r\n',
    );
    const r = await box.cli('import', file);
    expect(r.status, r.stderr).toBe(65);
    expect(r.stderr).toContain('formulas.csv:4: biometric code "=1+1" is a spreadsheet formula, not a value');
    expect(r.stderr).toContain('formulas.csv:5: logDate "=A5" is a spreadsheet formula, not a value');
    expect(r.stdout).toContain('formulas.csv: 3 new, 0 duplicates, 2 bad');
    expect(await journalled()).toEqual([
      '0042 2026-11-20 08:00:00',
      '0043 2026-11-20 08:01:00',
      'a"b 2026-11-20 08:03:00',
    ]);
  });
});
