import { codeProblem, isLogTime, type Punch } from '../../punch.js';
import { NOT_UTF8, type CsvRecord } from '../../util/csv.js';
import { escapeControls } from '../../util/terminal-text.js';
import { CHECK_THE_CLOCK, impossibleLogTime } from '../../util/impossible-date.js';
import { FORMULA_FIX, spreadsheetValue } from './spreadsheet-cell.js';
import { spaceSeparatedFields } from '../spaced-fields.js';
import { isGlogHeader } from './glog-header.js';

/** A line that could not be read, with its 1-based line number. */
export interface BadLine {
  line: number;
  reason: string;
}

/**
 * Where a punch counts: its terminal name and that terminal's device serial ('' when unknown), or
 * why the name cannot be used (a CSV `terminal` cell that names no terminal of the config).
 */
export type TerminalFor = (name: string | undefined) => { terminal: string; device: string } | string;

/** The CSV `terminal` column names a terminal of the config: the same rule as the config's names. */
const TERMINAL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Cells are padded with spaces by USB exports and spreadsheets; nothing else is taken off. */
function unpad(s: string | undefined): string {
  if (s === undefined) return '';
  // Most cells have no padding: no new string for them (this runs twice for every line).
  return s.charCodeAt(0) === 0x20 || s.charCodeAt(s.length - 1) === 0x20 ? s.replace(/^ +| +$/g, '') : s;
}

/** Accepts `YYYY-MM-DD HH:mm:ss`, and the `T` and `/` variants spreadsheets produce. */
function normaliseTime(s: string): string {
  if (s[10] !== 'T' && s[4] !== '/') return s;
  return s.replace(/^(\d{4})\/(\d{2})\/(\d{2})/, '$1-$2-$3').replace(/^(.{10})T/, '$1 ');
}

/**
 * A time to the minute. No terminal firmware is known to write its punches so (published USB
 * exports and push uploads all carry seconds); a spreadsheet does, when the file was opened and
 * saved in it (a spreadsheet writes each cell as it shows it: a column formatted without seconds
 * saves `2026-11-28 08:05` for 08:05:37). The seconds are lost, not
 * zero: read as :00, the punch would be another than the one polled from the terminal, and sent
 * twice. Refused, with the cause and the fix.
 */
const NO_SECONDS = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/;
const SECONDS_MISSING =
  "the seconds are missing (a spreadsheet saves a time so when its column shows no seconds: they are lost, not :00, and the punch would not match the one read from the terminal): export the file from the terminal again, or set the column's format to yyyy-mm-dd hh:mm:ss before saving";

const quoted = (s: string) => `"${escapeControls(s.slice(0, 40))}${s.length > 40 ? '...' : ''}"`;

/** A punch from a code and a time cell, or why the line is bad. */
export function punchOf(
  at: { terminal: string; device: string },
  code: string,
  time: string,
  what: string,
): Punch | string {
  const problem = codeProblem(code);
  if (problem) return problem;
  const logTime = normaliseTime(time);
  // The form it must have, said with it: `20/11/2026 11:01` or a date that does not exist is not one.
  if (!isLogTime(logTime)) {
    // The right form, a date that cannot be: the terminal's clock is wrong, not the file's layout.
    const impossible = impossibleLogTime(logTime);
    if (impossible) return `impossible ${what} ${quoted(time)}: ${impossible}: ${CHECK_THE_CLOCK}`;
    if (NO_SECONDS.test(logTime)) return `bad ${what} ${quoted(time)}: ${SECONDS_MISSING}`;
    return `bad ${what} ${quoted(time)}: expected a real date and time as YYYY-MM-DD HH:mm:ss`;
  }
  return { terminal: at.terminal, device: at.device, biometricCode: code, logTime };
}

/**
 * ZKTeco USB export (`*_attlog.dat`): tab-separated PIN, date-time, machine number, punch state,
 * verify type, work code...; the PIN is often padded with spaces. eSSL and clone firmware
 * separates the same columns by runs of spaces instead. Read with quotes off: a quote is
 * text. (Published exports: `1\t2026-10-03 08:59:01\t1\t0\t1\t0` and, later that day, `...\t1\t1\t1\t0`
 * from a `1_attlog.dat`, machine 1: the fourth column is the state, in then out.)
 */
export function attlogPunch(rec: CsvRecord, at: { terminal: string; device: string }): Punch | string {
  const f = attlogFields(rec);
  if (typeof f === 'string') return f;
  if (f.length < 2) return 'not a punch line: no tab (or run of two spaces or more) between a code and a date-time';
  const p = punchOf(at, unpad(f[0]), unpad(f[1]), 'date-time');
  if (typeof p === 'string') return p;
  p.verifyType = small(unpad(f[4]));
  p.punchState = small(unpad(f[3]));
  return p;
}

/** The PIN, date-time and state columns of a USB export line: what a punch is read from. */
const ATTLOG_KEY_FIELDS = [0, 1, 3];

/**
 * The fields of a USB export line, or why it cannot be read. Bytes that are not UTF-8 cost the
 * line only in its PIN, date-time or state: in another column (a work code or a name some
 * firmware appends, written in the terminal's code page, GBK or Windows-1252) the punch is
 * read, that column not; refused whole, it was a punch lost for a column punchgate never reads.
 */
function attlogFields(rec: CsvRecord): string[] | string {
  const cells = rec.error ? rec.undecodedCells : rec.cells;
  if (!cells) return rec.error ?? NOT_UTF8;
  if (cells.length >= 2) return usableCells(rec, ATTLOG_KEY_FIELDS);
  // One cell: no tab in the line. eSSL and clone firmware separates the columns by runs of
  // spaces (src/sources/spaced-fields.ts); anything else is not a punch line at all (a note, a
  // header, a line of another file): said so, not as a code with a blank in it.
  const line = cells[0] ?? '';
  if (!line.includes(NOT_UTF8)) return spaceSeparatedFields(line) ?? cells;
  // Spaced, with such bytes: each run of them stands in as a number while the columns are
  // found, then counts as an odd (unread) column, or refuses the line if it is a key one.
  const odd = new Set<number>();
  let column = 0;
  const stand = line.replace(/(^ *| {2,})(\S+(?: \S+)?)/g, (all, gap: string, field: string) => {
    const at = column++;
    if (!field.includes(NOT_UTF8)) return all;
    odd.add(at);
    return `${gap}0`;
  });
  const f = spaceSeparatedFields(stand);
  if (!f || ATTLOG_KEY_FIELDS.some((i) => odd.has(i))) return rec.error ?? NOT_UTF8;
  return f.map((field, i) => (odd.has(i) ? '' : field));
}

/** A verify type or punch state: a small number, or null when the column is absent or odd. */
function small(s: string): number | null {
  return /^\d{1,3}$/.test(s) ? Number(s) : null;
}

/**
 * The cells of a record whose `used` cells are readable: a record with bytes that are not UTF-8
 * only in cells not used (a name column saved in GBK or Windows-1252 by a spreadsheet) is read.
 * Refused whole, every line of such a file was bad though its codes and times were plain ASCII.
 */
export function usableCells(rec: CsvRecord, used: readonly number[]): string[] | string {
  if (!rec.error) return rec.cells;
  const cells = rec.undecodedCells;
  if (!cells) return rec.error;
  return used.some((i) => cells[i]?.includes(NOT_UTF8)) ? rec.error : cells;
}

export const CSV_HEADER_PROBLEM = 'the header must name the columns biometriccode and logDate';

/** CSV with a header `biometriccode,logDate[,terminal]` (any column order, case-insensitive). */
export class CsvPunchReader {
  private columns: { code: number; time: number; terminal: number; count: number } | undefined;
  /** Where each terminal named in the file counts (or why it cannot), looked up once per name. */
  private readonly targets = new Map<string, { terminal: string; device: string } | string>();

  constructor(private readonly terminalFor: TerminalFor) {}

  /** Reads the header record; returns why it is unusable (then every row is refused). */
  header(rec: CsvRecord): string | undefined {
    // The names of the columns read are ASCII: another column's name may be in any encoding.
    const cells = usableCells(rec, []);
    if (typeof cells === 'string') return CSV_HEADER_PROBLEM;
    const names = cells.map((h) => h.trim().toLowerCase());
    const code = names.indexOf('biometriccode');
    const time = names.indexOf('logdate');
    if (code < 0 || time < 0) return CSV_HEADER_PROBLEM;
    this.columns = { code, time, terminal: names.indexOf('terminal'), count: names.length };
    return undefined;
  }

  row(record: CsvRecord): Punch | string {
    const c = this.columns;
    if (!c) return record.error ?? CSV_HEADER_PROBLEM;
    const cells = usableCells(record, [c.code, c.time, c.terminal]);
    if (typeof cells === 'string') return cells;
    const rec = { ...record, cells };
    // More filled cells than the header names: a comma in an unquoted cell moved the columns, so
    // the code or the time may be another column's. (Empty cells beyond it, a trailing comma, are fine.)
    if (rec.cells.length > c.count && rec.cells.slice(c.count).some((cell) => cell.trim() !== ''))
      return `${rec.cells.length} cells, the header names ${c.count}: a comma inside a cell needs the cell in double quotes`;
    const cell = spreadsheetValue(c.terminal >= 0 ? unpad(rec.cells[c.terminal]) : '');
    if ('formula' in cell) return `terminal ${quoted(cell.formula)} is ${FORMULA_FIX}`;
    const name = cell.value;
    let at = this.targets.get(name);
    if (!at) {
      if (name !== '' && !TERMINAL_NAME.test(name)) return `bad terminal name ${quoted(name)}`;
      at = this.terminalFor(name || undefined);
      if (this.targets.size < 1000) this.targets.set(name, at);
    }
    if (typeof at === 'string') return at;
    const code = spreadsheetValue(unpad(rec.cells[c.code]));
    if ('formula' in code) return `biometric code ${quoted(code.formula)} is ${FORMULA_FIX}`;
    const time = spreadsheetValue(unpad(rec.cells[c.time]));
    if ('formula' in time) return `logDate ${quoted(time.formula)} is ${FORMULA_FIX}`;
    return punchOf(at, code.value, time.value, 'logDate');
  }
}

/**
 * The cell separator of a punch CSV, read from its header line: a comma, or the semicolon a
 * spreadsheet writes where the comma is the decimal mark (Excel in most of Europe, South
 * America...), or a tab. Read with commas, `biometriccode;logDate` was one cell and every line
 * of the file was refused for a header that does name both columns.
 */
export function csvDelimiter(headerLine: string): ',' | ';' | '\t' {
  const names = (d: string) => headerLine.split(d).map((h) => h.trim().replace(/^"|"$/g, '').toLowerCase());
  for (const d of [',', ';', '\t'] as const) {
    const n = names(d);
    if (n.includes('biometriccode') && n.includes('logdate')) return d;
  }
  return ',';
}

/**
 * Picks the format from the name, then from the first line; a glog header (the first line after
 * any `#` notes: `afterNotes`) names its format whatever the name.
 */
export function detectFormat(fileName: string, firstLine: string, afterNotes = firstLine): 'attlog' | 'csv' | 'glog' {
  if (isGlogHeader(afterNotes)) return 'glog';
  if (/\.dat$/i.test(fileName)) return 'attlog';
  if (/\.csv$/i.test(fileName)) return 'csv';
  return /biometriccode/i.test(firstLine) ? 'csv' : 'attlog';
}
