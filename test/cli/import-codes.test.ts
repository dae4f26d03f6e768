import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';

/**
 * Codes a terminal, a USB stick or a spreadsheet can carry that must never reach the HRMS:
 * control characters, bidirectional overrides, invisible characters, bytes that are not UTF-8.
 * Each such line is reported with its number, the good lines are imported, the exit code is 65.
 */
describe('import refuses hostile biometric codes line by line', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  const journalCodes = async () =>
    (await box.cli('punches', '--limit', '1000', '--json')).stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { biometricCode: string }).biometricCode)
      .sort();

  it('CSV: NUL, CR, ESC, bidi override, zero-width, invalid UTF-8 and a blank are bad lines; the others are kept', async () => {
    box = cliSandbox();
    const lines = [
      'biometriccode,logDate', // 1
      '1001,2026-11-20 08:00:00', // 2 good
      '10\u000002,2026-11-20 08:01:00', // 3 NUL
      '"10\r03",2026-11-20 08:02:00', // 4-5 CR inside a quoted cell
      '10\u001b[2J04,2026-11-20 08:03:00', // 6 ESC (clear screen)
      '\u202e5001,2026-11-20 08:04:00', // 7 right-to-left override
      '10\u200b06,2026-11-20 08:05:00', // 8 zero-width space
      'INVALID_UTF8,2026-11-20 08:06:00', // 9 bytes 0xff 0xfe, patched in below
      '10 07,2026-11-20 08:07:00', // 10 a blank inside
      'Åsa-08,2026-11-20 08:08:00', // 11 good: letters of any script are fine
    ];
    const bytes = Buffer.from(lines.join('\r\n') + '\r\n', 'utf8');
    const at = bytes.indexOf('INVALID_UTF8');
    bytes.set([0x31, 0xff, 0xfe, 0x32, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20], at);
    writeFileSync(box.tmp.path('codes.csv'), bytes);

    const r = await box.cli('import', box.tmp.path('codes.csv'));
    expect(r.status, r.stderr).toBe(65);
    const reported = r.stderr
      .trim()
      .split('\n')
      .map((l) => l.slice(l.indexOf('codes.csv:') + 'codes.csv:'.length));
    expect(reported).toEqual([
      '3: biometric code has a control character (U+0000)',
      '4: biometric code has a control character (U+000D)',
      // The CR in line 4 is a line break for an editor too: the lines after it are numbered so.
      '6: biometric code has a control character (U+001B)',
      '7: biometric code has a bidirectional control (U+202E)',
      '8: biometric code has an invisible formatting character (U+200B)',
      expect.stringMatching(/^9: .*not valid UTF-8/),
      '10: biometric code has a blank (U+0020)',
    ]);
    expect(r.stdout).toContain('codes.csv: 2 new, 0 duplicates, 7 bad');
    expect(await journalCodes()).toEqual(['1001', 'Åsa-08']);
    // Nothing from the file reaches the admin's terminal unescaped.
    // eslint-disable-next-line no-control-regex -- looking for control characters is the point
    expect(r.stderr + r.stdout).not.toMatch(/[\u0000\u001b\u202e\u200b\r]/);
  });

  it('USB export (*_attlog.dat): the same rule, with the line numbers of the file', async () => {
    box = cliSandbox();
    const rec = (code: string, t: string) => `${code.padStart(9)}\t2026-11-21 ${t}\t1\t0\t0\t0`;
    const text = [
      rec('2001', '08:00:00'),
      rec('20\u001b01', '08:01:00'),
      rec('\u2066' + '2002', '08:02:00'),
      rec('2003', '08:03:00'),
      rec('20"04', '08:04:00'), // a quote is text in a USB export, and a fine character in a code
    ].join('\r\n');
    writeFileSync(box.tmp.path('BJ2C_attlog.dat'), text);
    const r = await box.cli('import', box.tmp.path('BJ2C_attlog.dat'));
    expect(r.status, r.stderr).toBe(65);
    expect(r.stderr).toContain('BJ2C_attlog.dat:2: biometric code has a control character (U+001B)');
    expect(r.stderr).toContain('BJ2C_attlog.dat:3: biometric code has a bidirectional control (U+2066)');
    expect(r.stdout).toContain('BJ2C_attlog.dat: 3 new, 0 duplicates, 2 bad');
    expect(await journalCodes()).toEqual(['20"04', '2001', '2003']);
  });

  it('a bad value is shown escaped: an ESC sequence in a date never reaches the terminal raw', async () => {
    box = cliSandbox();
    writeFileSync(box.tmp.path('d.csv'), 'biometriccode,logDate\n1,\u001b[31m2026-11-20\n2,2026-11-20 08:00:00\n');
    const r = await box.cli('import', box.tmp.path('d.csv'));
    expect(r.status).toBe(65);
    expect(r.stderr).toContain('d.csv:2: bad logDate "\\x1b[31m2026-11-20"');
    expect(r.stderr).not.toContain('\u001b');
  });
});
