import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  csvRecord,
  MAX_RECORD_CHARS,
  MAX_RECORD_LINES,
  neutraliseFormula,
  readCsv,
  readCsvTable,
  streamCsv,
  type CsvRecord,
} from '../../src/util/csv.js';

describe('readCsvTable', () => {
  it('reads a plain file with LF line ends', () => {
    const f = readCsvTable('username,name\nu1,Ann\nu2,Bob\n');
    expect(f.header).toEqual(['username', 'name']);
    expect(f.rows).toEqual([
      { row: 1, line: 2, cells: ['u1', 'Ann'] },
      { row: 2, line: 3, cells: ['u2', 'Bob'] },
    ]);
  });

  it('strips a BOM and accepts CRLF and lone CR line ends, with or without a final line end, mixed too', () => {
    expect(readCsvTable('\uFEFFusername,name\r\nu1,Ann\r\nu2,Bob').rows.map((r) => r.cells)).toEqual([
      ['u1', 'Ann'],
      ['u2', 'Bob'],
    ]);
    expect(readCsvTable('\uFEFFusername,name').header).toEqual(['username', 'name']);
    const cr = readCsvTable('a,b\r1,2\r3,4\r');
    expect(cr.rows.map((r) => [r.line, ...r.cells])).toEqual([
      [2, '1', '2'],
      [3, '3', '4'],
    ]);
    const mixed = readCsvTable('a,b\n1,2\r\n3,4\r5,6');
    expect(mixed.rows.map((r) => [r.line, ...r.cells])).toEqual([
      [2, '1', '2'],
      [3, '3', '4'],
      [4, '5', '6'],
    ]);
  });

  it('keeps commas, doubled quotes and line breaks inside quoted cells, and counts lines across them', () => {
    const text =
      'username,address,note\r\nu1,"12, Main St","said ""hi"""\r\nu2,"line one\r\nline two\nline three",x\r\nu3,plain,y\r\n';
    const f = readCsvTable(text);
    expect(f.rows[0]!.cells).toEqual(['u1', '12, Main St', 'said "hi"']);
    expect(f.rows[1]!.cells).toEqual(['u2', 'line one\r\nline two\nline three', 'x']);
    expect(f.rows.map((r) => [r.row, r.line])).toEqual([
      [1, 2],
      [2, 3],
      [3, 6],
    ]);
  });

  it('skips blank lines without counting them as rows but keeps file line numbers', () => {
    const f = readCsvTable('\n\nusername,name\n\nu1,Ann\n   \nu2,Bob\n');
    expect(f.headerLine).toBe(3);
    expect(f.rows.map((r) => [r.row, r.line, r.cells[0]])).toEqual([
      [1, 5, 'u1'],
      [2, 7, 'u2'],
    ]);
  });

  it('keeps a row of empty cells and an empty quoted cell as rows', () => {
    const f = readCsvTable('a,b\n,\n""\n');
    expect(f.rows[0]!.cells).toEqual(['', '']);
    expect(f.rows[1]).toMatchObject({ row: 2, line: 3, error: 'has 1 cells where the header has 2' });
  });

  it('reports a row with the wrong number of cells and goes on', () => {
    const f = readCsvTable('a,b,c\n1,2\n1,2,3,4\n5,6,7\n');
    expect(f.rows[0]!.error).toBe('has 2 cells where the header has 3');
    expect(f.rows[1]!.error).toBe('has 4 cells where the header has 3');
    expect(f.rows[2]).toEqual({ row: 3, line: 4, cells: ['5', '6', '7'] });
    expect(readCsvTable('a,b,c\n1,2\n', { shortRows: true }).rows[0]).toEqual({ row: 1, line: 2, cells: ['1', '2'] });
  });

  it('tolerates trailing commas beyond the header', () => {
    expect(readCsvTable('a,b\n1,2,\n').rows[0]).toEqual({ row: 1, line: 2, cells: ['1', '2'] });
  });

  it('reports text after a closing quote, and an unclosed quote at its line, and reads every other line', () => {
    const f = readCsvTable('a,b\n"x"y,2\n3,4\n5,"never closed\n6,7\n');
    expect(f.rows[0]).toMatchObject({ row: 1, line: 2, error: 'has text after the closing quote of a quoted cell' });
    expect(f.rows[1]).toEqual({ row: 2, line: 3, cells: ['3', '4'] });
    expect(f.rows[2]).toMatchObject({ row: 3, line: 4, error: 'a quoted cell (cell 2) is never closed' });
    // csv-parse alone (skip_records_with_error) loses "3,4" after the first error and "6,7" after the second.
    expect(f.rows[3]).toEqual({ row: 4, line: 5, cells: ['6', '7'] });
    expect(f.rows).toHaveLength(4);
  });

  it('keeps a stray quote inside an unquoted cell as text', () => {
    expect(readCsvTable('a,b\nO"Brien,2\n').rows[0]!.cells).toEqual(['O"Brien', '2']);
  });

  it('an empty file has no header; an unreadable header says why', () => {
    expect(readCsvTable('')).toEqual({ header: [], headerLine: 0, rows: [] });
    expect(readCsvTable('\uFEFF\r\n\r\n').header).toEqual([]);
    expect(readCsvTable('"a,b\n').headerError).toBe('a quoted cell (cell 1) is never closed');
  });

  it('reports text that is not UTF-8 (decoded as U+FFFD) as an error of its line', () => {
    const f = readCsvTable('a,b\nJos\uFFFD,1\nok,2\n');
    expect(f.rows[0]).toMatchObject({ line: 2, error: expect.stringMatching(/not valid UTF-8/) });
    expect(f.rows[1]!.cells).toEqual(['ok', '2']);
  });
});

describe('readCsv', () => {
  it('skips # comment lines only when asked', () => {
    expect(readCsv('a\n# note\n1\n', { comments: true }).map((r) => r.cells)).toEqual([['a'], ['1']]);
    expect(readCsv('a\n# note\n1\n').map((r) => r.cells)).toEqual([['a'], ['# note'], ['1']]);
  });

  it('reads tab-separated text with quotes off (a quote is text)', () => {
    expect(readCsv('  1001\t2024-01-01 08:00:00\t1\n"q\t2\n', { delimiter: '\t', quotes: false })).toEqual([
      { line: 1, cells: ['  1001', '2024-01-01 08:00:00', '1'] },
      { line: 2, cells: ['"q', '2'] },
    ]);
  });

  it('gives up a quoted cell that runs over MAX_RECORD_LINES lines and reads on from the next line', () => {
    const body = Array.from({ length: MAX_RECORD_LINES + 5 }, (_, i) => `${i},x`);
    const recs = readCsv(['a,b', '1,"open', ...body].join('\n'));
    expect(recs[1]).toMatchObject({ line: 2, error: 'a quoted cell (cell 2) is never closed' });
    expect(recs.slice(2).map((r) => r.cells[0])).toEqual(body.map((_, i) => String(i)));
  });

  it('reports a line longer than MAX_RECORD_CHARS once and reads on, in bounded memory', async () => {
    const long = 'x'.repeat(MAX_RECORD_CHARS + 10);
    const got: CsvRecord[] = [];
    const pieces = [
      'a,b\n1,2\n',
      ...Array.from({ length: 20 }, (_, i) => long.slice(i * 65536, (i + 1) * 65536)),
      ',3\n4,5\n',
    ];
    for await (const batch of streamCsv(Readable.from(pieces))) got.push(...batch);
    expect(got).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['1', '2'] },
      { line: 3, cells: [], error: `is longer than ${MAX_RECORD_CHARS} characters` },
      { line: 4, cells: ['4', '5'] },
    ]);
  });

  it('streams: records split across chunks anywhere (even inside a CRLF) read as from one text', async () => {
    const text = 'a,b\r\n1,"x\r\ny"\r\n\r\n"q""",3\r2,\uFFFD\n"bad"x,4\n5,6';
    const whole = readCsv(text);
    for (let size = 1; size <= 7; size++) {
      const bytes = Buffer.from(text);
      const pieces = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
        bytes.subarray(i * size, (i + 1) * size),
      );
      const got: CsvRecord[] = [];
      for await (const batch of streamCsv(Readable.from(pieces))) got.push(...batch);
      expect(got).toEqual(whole);
    }
    expect(whole.map((r) => r.line)).toEqual([1, 2, 5, 6, 7, 8]);
  });

  it('reads invalid UTF-8 bytes split across chunks as one error, not two characters', async () => {
    const bytes = Buffer.concat([Buffer.from('a,b\n1,Jos'), Buffer.from([0xe9]), Buffer.from(',\n2,ok\n')]);
    const got: CsvRecord[] = [];
    for await (const batch of streamCsv(Readable.from([bytes.subarray(0, 9), bytes.subarray(9)]))) got.push(...batch);
    expect(got.map((r) => r.error ?? r.cells.join('|'))).toEqual([
      'a|b',
      expect.stringMatching(/not valid UTF-8/),
      '2|ok',
    ]);
  });
});

describe('readCsv on any text', () => {
  const text = fc.string({ unit: fc.constantFrom('a', '1', ' ', ',', '"', '\n', '\r', '#', '\t', 'é'), maxLength: 60 });

  it('never throws, numbers records in file order, and streams in any chunking to the same records', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 1, max: 9 }), async (t, size) => {
        const whole = readCsv(t);
        const lines = t.split(/\r\n|\n|\r/).length;
        for (let i = 0; i < whole.length; i++) {
          expect(whole[i]!.line).toBeGreaterThanOrEqual(1);
          expect(whole[i]!.line).toBeLessThanOrEqual(lines);
          if (i > 0) expect(whole[i]!.line).toBeGreaterThanOrEqual(whole[i - 1]!.line);
        }
        const pieces: string[] = [];
        for (let i = 0; i < t.length; i += size) pieces.push(t.slice(i, i + size));
        const streamed: CsvRecord[] = [];
        for await (const batch of streamCsv(Readable.from(pieces))) streamed.push(...batch);
        expect(streamed).toEqual(whole);
      }),
      { numRuns: 500 },
    );
  });
});

describe('csvRecord (the writer)', () => {
  it('quotes CR, LF, quotes and commas per RFC 4180, ends records in CRLF, and writes numbers as they are', () => {
    expect(csvRecord(['a\rb', 'c\nd', 'e"f', 'g,h', 'plain', 42, -1, null, undefined, ''])).toBe(
      '"a\rb","c\nd","e""f","g,h",plain,42,-1,,,""\r\n',
    );
  });

  it('neutralises text cells a spreadsheet would run as a formula, and only those', () => {
    expect(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx', '1=1', ' =1', "'x"].map(neutraliseFormula)).toEqual([
      "'=1+1",
      "'+1",
      "'-1",
      "'@SUM(A1)",
      "'\tx",
      "'\rx",
      '1=1',
      ' =1',
      "'x",
    ]);
    expect(csvRecord(["=cmd|' /C calc'!A0", -5])).toBe("'=cmd|' /C calc'!A0,-5\r\n");
  });

  const cell = fc.string({
    unit: fc.constantFrom('a', 'b', ' ', ',', '"', '\n', '\r', '\t', 'é', 'x', '=', '+', '-', '@', '#', '😀'),
    maxLength: 8,
  });
  const rows = fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 6 });

  it('round trips through csv-parse (a standard parser): every cell back, formula starts neutralised', () => {
    fc.assert(
      fc.property(rows, (table) => {
        const text = table.map(csvRecord).join('');
        const parsed = parse(text, { record_delimiter: '\r\n' }) as string[][];
        expect(parsed).toEqual(table.map((r) => r.map(neutraliseFormula)));
      }),
      { numRuns: 500 },
    );
  });

  it('round trips through our reader too, with the same line numbers a text editor shows', () => {
    fc.assert(
      fc.property(rows, (table) => {
        const lines = table.map(csvRecord);
        const read = readCsv(lines.join(''));
        expect(read.map((r) => r.cells)).toEqual(table.map((r) => r.map(neutraliseFormula)));
        let line = 1;
        const expected = lines.map((l) => {
          const at = line;
          line += l.split(/\r\n|\n|\r/).length - 1;
          return at;
        });
        expect(read.map((r) => r.line)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
