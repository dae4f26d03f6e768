/**
 * The one CSV reader and writer of punchgate: punch imports, the employees import, serial code
 * maps, the simulators' data files and rosters, and `punches export`.
 *
 * Reading. csv-parse splits the cells (quotes, doubled quotes, delimiters). Before it, a small
 * framing step cuts the text into records at line ends that are not inside a quoted cell, and
 * numbers them by the physical line they start on. Why not csv-parse alone: after a quoting
 * error its `skip_records_with_error` mode stays inside the broken quote and drops the good
 * records that follow (`"x"y,2` then `3,4`: both gone), it counts a CRLF inside a quoted cell as
 * two lines, and with mixed line ends it leaves a CR in the last cell. Framed first, every
 * record is parsed on its own: one bad record is reported with its line and the next is read
 * as if nothing happened.
 *
 * Framing rules (RFC 4180, read leniently): a quote opens a quoted cell only at the start of a
 * cell; inside, `""` is a quote and `"` closes; line ends are LF, CRLF or CR, mixed freely; a
 * UTF-8 BOM is dropped; a DOS end-of-file mark (Ctrl-Z) after the last line ends the text; lines of blanks are skipped (and `#` comment lines, when asked). A quote
 * elsewhere in a cell is text (`O"Brien`). A quoted cell still open after MAX_RECORD_LINES lines or
 * MAX_RECORD_CHARS characters, or at
 * the end of the input is reported at the line it opened on, and reading resumes on the next
 * line, so an unbalanced quote costs one line, not the rest of the file. Memory is bounded by
 * MAX_RECORD_CHARS whatever the input.
 *
 * Text that is not UTF-8 (bytes decoded as U+FFFD) makes its record an error: a spreadsheet
 * saved in a legacy encoding must not turn names and codes into look-alikes without a word.
 *
 * Writing. csv-stringify quotes cells holding a delimiter, quote, CR or LF (RFC 4180; records end
 * in CRLF). Text cells that a spreadsheet would run as a formula (leading `=`, `+`, `-`, `@`, tab
 * or CR) get a leading apostrophe, which spreadsheets show as text; numbers are written as they are.
 */
import { parse, type Options as CsvParseOptions } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { DosEofFilter, withoutDosEof } from './dos-eof.js';

export interface CsvReadOptions {
  /** Cell separator; default ','. */
  delimiter?: string;
  /** Whether `"` quotes cells; default true. False for tab-separated logs, where a quote is text. */
  quotes?: boolean;
  /** Skip lines whose first non-blank character is `#`; default false. */
  comments?: boolean;
}

/** One record of a CSV file. */
export interface CsvRecord {
  /** 1-based line of the file where the record starts. */
  line: number;
  cells: string[];
  /** Why the record cannot be read as it stands (its cells are then empty). */
  error?: string;
  /**
   * With the error that the record is not UTF-8: its cells as decoded, U+FFFD where bytes were
   * not UTF-8, for a reader that uses only some cells and can check those (a punch import does
   * not read a name column a spreadsheet saved in GBK or Windows-1252).
   */
  undecodedCells?: string[];
}

/** Longest record (or line) read; a longer one is reported and skipped. */
export const MAX_RECORD_CHARS = 1 << 20;
/** Most lines one quoted cell may span before it counts as never closed. */
export const MAX_RECORD_LINES = 100;

const neverClosed = (cell: number) => `a quoted cell (cell ${cell}) is never closed`;

/** csv-parse's errors in plain words (the framing step already catches quotes that never close). */
const CSV_PARSE_ERRORS: Record<string, string> = {
  CSV_INVALID_CLOSING_QUOTE: 'has text after the closing quote of a quoted cell',
};

interface Line {
  no: number;
  content: string;
  eol: string;
}

type Framed = { line: number; text: string } | CsvRecord;

/** Cuts text into records; holds at most one unfinished record (bounded) between pushes. */
class Framer {
  private carry = '';
  private nextLine = 1;
  private started = false;
  /** Lines of the record being gathered (more than one only inside a quoted cell). */
  private open: Line[] = [];
  private openChars = 0;
  /** Where the record's quotes stand: the cell being read (0-based) and whether it is an open quoted cell. */
  private quote: QuoteState = { cell: 0, open: false };
  /** Set while dropping the rest of an over-long line. */
  private skipping = false;

  constructor(
    private readonly opts: Required<CsvReadOptions>,
    private readonly emit: (r: Framed) => void,
  ) {}

  push(text: string): void {
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const all = this.carry === '' ? text : this.carry + text;
    let from = 0;
    for (;;) {
      const br = nextBreak(all, from);
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (br < 0 || (all[br] === '\r' && br === all.length - 1)) break;
      const width = all[br] === '\r' && all[br + 1] === '\n' ? 2 : 1;
      const content = all.slice(from, br);
      // The common line: a whole record with no quote, not blank, not a comment.
      if (this.open.length === 0 && !this.skipping && this.plain(content)) {
        this.emit({ line: this.nextLine++, text: content });
      } else {
        this.feed(content, all.slice(br, br + width));
      }
      from = br + width;
    }
    this.carry = from === 0 ? all : all.slice(from);
    if (this.carry.length > MAX_RECORD_CHARS) {
      if (!this.skipping) {
        // An open quoted record cannot take a line this long: it is given up first (lines in order).
        this.replay(this.giveUp());
        this.emit({ line: this.nextLine, cells: [], error: `is longer than ${MAX_RECORD_CHARS} characters` });
      }
      this.skipping = true;
      this.carry = '';
    }
  }

  end(): void {
    // A CR held back at the end (it could have been the first half of a CRLF) is the last line end.
    const cr = this.carry.endsWith('\r');
    if (this.carry !== '' || this.skipping) this.feed(cr ? this.carry.slice(0, -1) : this.carry, cr ? '\r' : '');
    this.carry = '';
    while (this.open.length > 0) this.replay(this.giveUp());
  }

  private plain(content: string): boolean {
    const c = content.charCodeAt(0);
    // Not empty, not starting with a blank (maybe a blank line) or '#' (maybe a comment).
    if (content.length === 0 || c === 0x20 || c === 0x09 || c === 0x23) return false;
    return !this.opts.quotes || content.indexOf('"') < 0;
  }

  private feed(content: string, eol: string): void {
    const line = { no: this.nextLine++, content, eol };
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    this.replay([line]);
  }

  /** Takes lines in order; a record given up on the way hands back its lines after the first. */
  private replay(lines: Line[]): void {
    const queue = lines;
    while (queue.length > 0) {
      const back = this.take(queue.shift()!);
      if (back) queue.unshift(...back);
    }
  }

  private take(l: Line): Line[] | undefined {
    if (this.open.length === 0) {
      if (/^[ \t]*$/.test(l.content)) return undefined;
      if (this.opts.comments && /^[ \t]*#/.test(l.content)) return undefined;
      this.quote = { cell: 0, open: false };
    }
    this.open.push(l);
    this.openChars += l.content.length + l.eol.length;
    if (this.opts.quotes) scanQuotes(l.content, this.quote, this.open.length === 1, this.opts.delimiter);
    if (!this.quote.open) {
      const last = this.open.length - 1;
      const text = this.open.map((x, i) => (i === last ? x.content : x.content + x.eol)).join('');
      this.emit({ line: this.open[0]!.no, text });
      this.open = [];
      this.openChars = 0;
      return undefined;
    }
    if (this.open.length > MAX_RECORD_LINES || this.openChars > MAX_RECORD_CHARS) return this.giveUp();
    return undefined;
  }

  /** A quoted cell that never closed: its first line is reported; the lines after it are read again. */
  private giveUp(): Line[] {
    const [first, ...rest] = this.open;
    this.open = [];
    this.openChars = 0;
    const cell = this.quote.cell + 1;
    this.quote = { cell: 0, open: false };
    if (first) this.emit({ line: first.no, cells: [], error: neverClosed(cell) });
    return rest;
  }
}

function nextBreak(s: string, from: number): number {
  const n = s.indexOf('\n', from);
  const r = s.indexOf('\r', from);
  if (r < 0) return n;
  if (n < 0) return r;
  return Math.min(n, r);
}

interface QuoteState {
  cell: number;
  open: boolean;
}

/**
 * Follows quoted cells through one line of a record, updating `q`. `fresh`: the line starts the
 * record (so also a cell); a later line of a record continues the open quoted cell.
 */
function scanQuotes(line: string, q: QuoteState, fresh: boolean, d: string): void {
  if (!q.open && line.indexOf('"') < 0) return;
  let atCellStart = fresh;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q.open) {
      if (c !== '"') continue;
      if (line[i + 1] === '"') i++;
      else q.open = false;
    } else if (c === '"' && atCellStart) {
      q.open = true;
      atCellStart = false;
    } else if (line.startsWith(d, i)) {
      q.cell++;
      atCellStart = true;
      i += d.length - 1;
    } else {
      atCellStart = false;
    }
  }
}

/** Turns framed records into cells: in one csv-parse call per batch, one by one when a batch has a bad record. */
function parseFramed(framed: readonly Framed[], opts: Required<CsvReadOptions>): CsvRecord[] {
  const options: CsvParseOptions = {
    delimiter: opts.delimiter,
    quote: opts.quotes ? '"' : false,
    record_delimiter: '\n',
    relax_column_count: true,
  };
  const out: CsvRecord[] = [];
  const texts = framed.filter((f): f is { line: number; text: string } => 'text' in f);
  let batch: string[][] | undefined;
  // The batch path holds only when no record has a line break of its own (they are joined by LF).
  if (texts.every((f) => nextBreak(f.text, 0) < 0)) {
    try {
      batch = parse(texts.map((f) => f.text).join('\n'), options);
      if (batch.length !== texts.length) batch = undefined;
    } catch {
      batch = undefined;
    }
  }
  let k = 0;
  for (const f of framed) {
    if (!('text' in f)) {
      out.push(f);
      continue;
    }
    const cells = batch ? batch[k++]! : parseOne(f.text, options);
    out.push(typeof cells === 'string' ? { line: f.line, cells: [], error: cells } : checked(f.line, cells));
  }
  return out;
}

/** One record; a quote inside an unquoted cell is read as text (the retry with `relax_quotes`). */
function parseOne(text: string, options: CsvParseOptions, relaxed = false): string[] | string {
  try {
    const rows = parse(text, { ...options, record_delimiter: ['\r\n', '\n', '\r'], relax_quotes: relaxed });
    return rows.length === 1 ? rows[0]! : 'cannot be read as one record';
  } catch (e) {
    const code = (e as { code?: string }).code ?? '';
    if (code === 'INVALID_OPENING_QUOTE' && !relaxed) return parseOne(text, options, true);
    return CSV_PARSE_ERRORS[code] ?? `cannot be read (${(e as Error).message})`;
  }
}

/** What a decoder makes of bytes that are not UTF-8. */
export const NOT_UTF8 = '\uFFFD';
export const NOT_UTF8_TEXT = 'is not valid UTF-8 text (save the file as UTF-8, e.g. "CSV UTF-8")';

function checked(line: number, cells: string[]): CsvRecord {
  return cells.some((c) => c.includes(NOT_UTF8))
    ? { line, cells: [], error: NOT_UTF8_TEXT, undecodedCells: cells }
    : { line, cells };
}

function withDefaults(o: CsvReadOptions): Required<CsvReadOptions> {
  return { delimiter: o.delimiter ?? ',', quotes: o.quotes ?? true, comments: o.comments ?? false };
}

/** Reads a whole CSV text (small files: code maps, rosters, employee lists, simulator data). */
export function readCsv(text: string, options: CsvReadOptions = {}): CsvRecord[] {
  const opts = withDefaults(options);
  const framed: Framed[] = [];
  const framer = new Framer(opts, (r) => framed.push(r));
  framer.push(withoutDosEof(text));
  framer.end();
  return parseFramed(framed, opts);
}

/** The text encodings a stream of CSV bytes may be in: UTF-8, or the UTF-16 Windows tools save. */
export type CsvEncoding = 'utf-8' | 'utf-16le' | 'utf-16be';

/**
 * Reads CSV from a stream of chunks (a file read stream), yielding the records of each chunk as
 * they are complete. Bytes are decoded as `encoding` (default UTF-8; a byte-order mark is
 * dropped); memory stays bounded whatever the input size.
 */
export async function* streamCsv(
  chunks: AsyncIterable<Uint8Array | string>,
  options: CsvReadOptions & { encoding?: CsvEncoding } = {},
): AsyncGenerator<CsvRecord[]> {
  const opts = withDefaults(options);
  const decoder = new TextDecoder(options.encoding ?? 'utf-8');
  let framed: Framed[] = [];
  const framer = new Framer(opts, (r) => framed.push(r));
  const take = () => {
    const out = parseFramed(framed, opts);
    framed = [];
    return out;
  };
  // A Ctrl-Z after the last line is the DOS end of the file, not a line (dos-eof.ts).
  const dosEnd = new DosEofFilter();
  for await (const chunk of chunks) {
    framer.push(dosEnd.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })));
    if (framed.length > 0) yield take();
  }
  framer.push(dosEnd.push(decoder.decode()) + dosEnd.end());
  framer.end();
  if (framed.length > 0) yield take();
}

/** A CSV file as a table: the first record is the header; each data record is checked against its width. */
export interface CsvTable {
  /** Header cells, trimmed; empty when the file has no header or it cannot be read. */
  header: string[];
  /** Line of the header; 0 when the file is empty. */
  headerLine: number;
  /** Why the header line cannot be read, if it cannot. */
  headerError?: string;
  rows: CsvRow[];
}

export interface CsvRow extends CsvRecord {
  /** 1-based number of the data row (the header and skipped lines are not counted). */
  row: number;
}

/**
 * Reads a CSV text as a header and rows. A row with more cells than the header is an error,
 * unless the extra cells are empty (trailing commas); a row with fewer cells is an error unless
 * `shortRows` allows it (optional trailing columns).
 */
export function readCsvTable(text: string, options: CsvReadOptions & { shortRows?: boolean } = {}): CsvTable {
  const [head, ...records] = readCsv(text, options);
  if (!head) return { header: [], headerLine: 0, rows: [] };
  const header = head.error ? [] : head.cells.map((h) => h.trim());
  const rows = records.map((r, i): CsvRow => {
    const row: CsvRow = { row: i + 1, ...r };
    if (r.error || head.error || r.cells.length === header.length) return row;
    const cells = r.cells.slice();
    while (cells.length > header.length && cells[cells.length - 1] === '') cells.pop();
    if (cells.length === header.length || (options.shortRows && cells.length < header.length)) row.cells = cells;
    else row.error = `has ${r.cells.length} cells where the header has ${header.length}`;
    return row;
  });
  const table: CsvTable = { header, headerLine: head.line, rows };
  if (head.error) table.headerError = head.error;
  return table;
}

/** A cell to write: text is made safe for spreadsheets; numbers are written as they are; null is empty. */
export type CsvCell = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell a spreadsheet opens as text: a leading `=`, `+`, `-`, `@`, tab or CR gets an apostrophe first. */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** One CSV record, ending in CRLF. */
export function csvRecord(cells: readonly CsvCell[]): string {
  const safe = cells.map((c) => (typeof c === 'string' ? neutraliseFormula(c) : c === null ? undefined : c));
  // Quoted: cells with a delimiter or quote (csv-stringify's own rule), a lone CR or LF (which it
  // leaves bare with CRLF records) and empty text (so a one-column row of '' is not a blank line).
  return stringify([safe], { record_delimiter: 'windows', quoted_match: [/[\r\n]/, /^$/] });
}
