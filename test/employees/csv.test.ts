import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, parseCsv } from '../../src/employees/csv.js';

describe('parseCsv', () => {
  it('reads a plain file with LF line ends', () => {
    const f = parseCsv('username,name\nu1,Ann\nu2,Bob\n');
    expect(f.header).toEqual(['username', 'name']);
    expect(f.records).toEqual([
      { row: 1, line: 2, cells: ['u1', 'Ann'] },
      { row: 2, line: 3, cells: ['u2', 'Bob'] },
    ]);
  });

  it('strips a BOM and accepts CRLF and lone CR line ends, with or without a final line end', () => {
    expect(parseCsv('\uFEFFusername,name\r\nu1,Ann\r\nu2,Bob').records.map((r) => r.cells)).toEqual([
      ['u1', 'Ann'],
      ['u2', 'Bob'],
    ]);
    expect(parseCsv('\uFEFFusername,name').header).toEqual(['username', 'name']);
    const cr = parseCsv('a,b\r1,2\r3,4\r');
    expect(cr.records.map((r) => [r.line, ...r.cells])).toEqual([
      [2, '1', '2'],
      [3, '3', '4'],
    ]);
  });

  it('keeps commas, doubled quotes and line breaks inside quoted cells, and counts lines across them', () => {
    const text =
      'username,address,note\r\nu1,"12, Main St","said ""hi"""\r\nu2,"line one\r\nline two\nline three",x\r\nu3,plain,y\r\n';
    const f = parseCsv(text);
    expect(f.records[0]!.cells).toEqual(['u1', '12, Main St', 'said "hi"']);
    expect(f.records[1]!.cells).toEqual(['u2', 'line one\r\nline two\nline three', 'x']);
    expect(f.records.map((r) => [r.row, r.line])).toEqual([
      [1, 2],
      [2, 3],
      [3, 6],
    ]);
  });

  it('skips blank lines without counting them as rows but keeps file line numbers', () => {
    const f = parseCsv('\n\nusername,name\n\nu1,Ann\n   \nu2,Bob\n');
    expect(f.headerLine).toBe(3);
    expect(f.records.map((r) => [r.row, r.line, r.cells[0]])).toEqual([
      [1, 5, 'u1'],
      [2, 7, 'u2'],
    ]);
  });

  it('keeps a row of empty cells and an empty quoted cell as rows', () => {
    const f = parseCsv('a,b\n,\n""\n');
    expect(f.records[0]!.cells).toEqual(['', '']);
    expect(f.records[1]).toMatchObject({ row: 2, line: 3, error: 'has 1 cells where the header has 2' });
  });

  it('reports a row with the wrong number of cells and goes on', () => {
    const f = parseCsv('a,b,c\n1,2\n1,2,3,4\n5,6,7\n');
    expect(f.records[0]!.error).toBe('has 2 cells where the header has 3');
    expect(f.records[1]!.error).toBe('has 4 cells where the header has 3');
    expect(f.records[2]).toEqual({ row: 3, line: 4, cells: ['5', '6', '7'] });
  });

  it('tolerates one trailing comma beyond the header', () => {
    expect(parseCsv('a,b\n1,2,\n').records[0]).toEqual({ row: 1, line: 2, cells: ['1', '2'] });
  });

  it('reports text after a closing quote, and an unclosed quote at the line where its record starts', () => {
    const f = parseCsv('a,b\n"x"y,2\n3,4\n5,"never closed\n6,7\n');
    expect(f.records[0]).toMatchObject({ row: 1, line: 2, error: 'text after a closing quote in cell 1' });
    expect(f.records[1]).toEqual({ row: 2, line: 3, cells: ['3', '4'] });
    expect(f.records[2]).toMatchObject({ row: 3, line: 4, error: 'a quoted cell (cell 2) is never closed' });
    expect(f.records).toHaveLength(3);
  });

  it('keeps a stray quote inside an unquoted cell as text', () => {
    expect(parseCsv('a,b\nO"Brien,2\n').records[0]!.cells).toEqual(['O"Brien', '2']);
  });

  it('an empty file has no header', () => {
    expect(parseCsv('')).toEqual({ header: [], headerLine: 0, records: [] });
    expect(parseCsv('\uFEFF\r\n\r\n').header).toEqual([]);
  });

  it('reads back any table written with csvCell, whatever the line end', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ',', '"', '\n', '\r', 'é', 'x'), maxLength: 8 });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.array(cell, { minLength: 4, maxLength: 4 }), { maxLength: 6 }),
        fc.constantFrom('\n', '\r\n'),
        (width, rows, eol) => {
          const header = Array.from({ length: width }, (_, i) => `h${i}`);
          // A row that is one empty cell reads as a blank line: quote it as a writer of real files would.
          const body = rows.map((r) =>
            r
              .slice(0, width)
              .map((c) => (width === 1 && c === '' ? '""' : csvCell(c)))
              .join(','),
          );
          const f = parseCsv([header.join(','), ...body].join(eol) + eol);
          expect(f.header).toEqual(header);
          expect(f.records.map((r) => r.cells)).toEqual(rows.map((r) => r.slice(0, width)));
          expect(f.records.every((r) => r.error === undefined)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
