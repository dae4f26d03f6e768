/**
 * A small RFC 4180 CSV reader for HR exports: quoted fields, doubled quotes, commas and line
 * breaks inside quotes, a UTF-8 BOM, and LF, CRLF or CR line ends. Blank lines are skipped.
 * A malformed record does not stop the file: it comes back with an `error` and its line number
 * so that the caller can report it and carry on with the others.
 */

export interface CsvRecord {
  /** 1-based number of the data record (the header and blank lines are not counted). */
  row: number;
  /** 1-based line of the file where the record starts. */
  line: number;
  cells: string[];
  /** Why the record cannot be used as it stands (bad quoting, wrong number of cells). */
  error?: string;
}

export interface CsvFile {
  header: string[];
  /** Line of the header (after any blank lines before it); 0 when the file is empty. */
  headerLine: number;
  records: CsvRecord[];
}

interface RawRecord {
  line: number;
  cells: string[];
  error?: string;
}

/** Splits text into records of cells, tracking the line each record starts on. */
export function* readRecords(input: string): Generator<RawRecord> {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const n = text.length;
  let i = 0;
  let line = 1;
  while (i < n) {
    const start = line;
    const cells: string[] = [];
    let error: string | undefined;
    let cell = '';
    let atCellStart = true;
    let quoted = false; // inside an open quoted section
    let wasQuoted = false; // this cell began with a quote
    let ended = false;
    while (i < n && !ended) {
      const c = text[i]!;
      if (quoted) {
        if (c === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i += 2;
          } else {
            quoted = false;
            i += 1;
          }
        } else {
          if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) line += 1;
          cell += c;
          i += 1;
        }
        continue;
      }
      if (c === ',') {
        cells.push(cell);
        cell = '';
        atCellStart = true;
        wasQuoted = false;
        i += 1;
      } else if (c === '\r' || c === '\n') {
        i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
        line += 1;
        ended = true;
      } else if (c === '"' && atCellStart) {
        quoted = true;
        wasQuoted = true;
        atCellStart = false;
        i += 1;
      } else {
        if (wasQuoted && !error) error = `text after a closing quote in cell ${cells.length + 1}`;
        // A stray quote inside an unquoted cell is kept as text, as spreadsheets read it.
        cell += c;
        atCellStart = false;
        i += 1;
      }
    }
    if (quoted) error = `a quoted cell (cell ${cells.length + 1}) is never closed`;
    cells.push(cell);
    const blank = cells.length === 1 && cells[0]!.trim() === '' && !wasQuoted;
    if (!blank) yield error ? { line: start, cells, error } : { line: start, cells };
  }
}

/** Parses a whole CSV text: the first non-blank record is the header. */
export function parseCsv(text: string): CsvFile {
  let header: string[] | undefined;
  let headerLine = 0;
  const records: CsvRecord[] = [];
  for (const r of readRecords(text)) {
    if (!header) {
      header = r.cells.map((h) => h.trim());
      headerLine = r.line;
      continue;
    }
    const rec: CsvRecord = { row: records.length + 1, line: r.line, cells: r.cells };
    if (r.error) rec.error = r.error;
    else if (r.cells.length !== header.length) {
      // A trailing empty cell from a trailing comma is tolerated; anything else is a shifted row.
      const trimmed = trimTrailingEmpty(r.cells, header.length);
      if (trimmed.length === header.length) rec.cells = trimmed;
      else rec.error = `has ${r.cells.length} cells where the header has ${header.length}`;
    }
    records.push(rec);
  }
  return { header: header ?? [], headerLine, records };
}

function trimTrailingEmpty(cells: string[], want: number): string[] {
  const out = cells.slice();
  while (out.length > want && out[out.length - 1] === '') out.pop();
  return out;
}

/** One CSV cell as written: quoted when it holds a comma, quote or line break. */
export function csvCell(value: string): string {
  return /[",\r\n]/.test(value) || /^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
