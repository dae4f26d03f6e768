import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { IngestResult, PunchSink } from '../../journal/types.js';
import type { Punch } from '../../punch.js';
import { streamCsv, type CsvEncoding } from '../../util/csv.js';
import { attlogPunch, CSV_HEADER_PROBLEM, csvDelimiter, CsvPunchReader, detectFormat, type BadLine } from './parse.js';
import { GlogPunchReader } from './glog.js';

/** Where punches of an import count: a named terminal (so they deduplicate with polling) or "import". */
export interface ImportTarget {
  /** `--terminal NAME`, if given. */
  terminal?: string;
  /** The serial number last seen for a terminal name, so imported punches match polled ones. */
  deviceOf: (terminal: string) => string;
  /**
   * The device `terminal` was before its current one, when the file is that device's export (a
   * replaced terminal's stick): the punches are filed under it, where the ones it sent already are.
   */
  pastDevice?: string;
  /**
   * The device a file filed under "import" is from: the serial in its name, when no terminal of
   * the config is known by it yet. Its punches are that device's, so the terminal found to be it
   * later (its first poll) reads them again as duplicates, never a second identity sent twice;
   * "import" is not taken to be that device (a CSV filed there later names none).
   */
  apartDevice?: string;
  /**
   * Why a name from the file's `terminal` column cannot be used (undefined: it can): a name that
   * is not a terminal of the config would give the same punch a second identity beside its
   * terminal's (a typo, `gate2` for `gate-2`), so such a line is bad, not filed under the typo.
   */
  refuse?: (terminal: string) => string | undefined;
}

export interface FileReport extends IngestResult {
  file: string;
  format: 'attlog' | 'csv' | 'glog';
  /** Lines reported as bad (each one went to `onBad`). */
  bad: number;
}

export const IMPORT_SOURCE = 'import';

/**
 * A ZKTeco stick holds `user.dat` beside the punch log: the terminal's users as binary records (an
 * admin importing the whole stick names it too). Said as what it is, whatever its bytes look like.
 */
const STICK_USERS = /^(?:\d{1,3}_)?user\.dat$/i;
const USERS_FILE = "a stick's user.dat holds the terminal's users, not punches (the punches are in its *_attlog.dat)";

/** The serial number in a ZKTeco USB export's name (`<serial>_attlog.dat`), if it has one. */
export function serialOfExportName(file: string): string | undefined {
  // A copy keeps its serial: file managers and browsers name a second copy "X_attlog (1).dat",
  // "X_attlog(1).dat" or "X_attlog - Copy.dat". Read as naming no serial, such a copy of a stick
  // already imported was counted under "import" and sent again (found by a capture trial).
  const m = /^([A-Za-z0-9][A-Za-z0-9-]{2,63})_attlog(?: - Copy)?(?: ?\(\d{1,4}\))?\.dat$/i.exec(basename(file));
  // "1_attlog.dat": older terminals name the file by their machine number, not their serial.
  return m && !/^\d{1,3}$/.test(m[1]!) ? m[1] : undefined;
}

/**
 * Punches per journal transaction. An import of any size holds the journal's write lock for one
 * chunk at a time (a few milliseconds), so the daemon's own writes never wait long behind it.
 * Small on purpose for memory too: the punches of a chunk are most of what the garbage collector
 * finds alive while the file streams through, and from about 1000 of them on V8 doubles its
 * young generation (17 MB more resident for a 1,000,000-line file: 85 MB instead of 100 MB).
 */
export const IMPORT_CHUNK = 500;

/** Bytes read from the file at a time: about 300 lines of a CSV. */
const READ_CHUNK = 1 << 13;

/**
 * The journal failed in the middle of a file (a full disk, another process's lock): what was
 * journalled before stays (`report`, the lines up to `through`), the rest of the file was not read
 * on. Said by the import with the journal's own error (`cause`), so that the admin knows that a
 * run of the same import once it is mended adds only what is missing.
 */
export class ImportStoppedError extends Error {
  constructor(
    readonly file: string,
    readonly report: FileReport,
    readonly through: number,
    override readonly cause: unknown,
  ) {
    super(`${file}: the import stopped after line ${through}`);
    this.name = 'ImportStoppedError';
  }
}

/**
 * Reads one file as a stream and journals its good lines chunk by chunk: memory stays bounded
 * whatever the file size. Each bad line goes to `onBad` as soon as it is read. A chunk that is
 * journalled stays journalled if a later one fails; importing the same file again adds only what
 * is missing (punches are deduplicated).
 */
export async function importFile(
  file: string,
  sink: PunchSink,
  target: ImportTarget,
  onBad: (bad: BadLine) => void,
  chunkSize = IMPORT_CHUNK,
): Promise<FileReport> {
  const head = await sniff(file);
  const format = detectFormat(basename(file), head.firstLine, head.afterNotes);
  const pastDevice = target.terminal !== undefined ? target.pastDevice : undefined;
  const apartDevice = target.terminal === undefined ? target.apartDevice : undefined;
  const place = (terminal: string) => ({
    terminal,
    device: terminal === IMPORT_SOURCE ? (apartDevice ?? '') : (pastDevice ?? target.deviceOf(terminal)),
  });
  // Filed under a device its terminal is not (now) taken to be: no terminal learns it from them.
  const notLearnt = pastDevice !== undefined || apartDevice !== undefined;
  const report: FileReport = { file, format, bad: 0, added: 0, duplicates: 0, quarantined: 0 };
  let chunk: Punch[] = [];
  let lastLine = 0;
  let journalledThrough = 0;
  const commit = () => {
    if (chunk.length === 0) return;
    let r;
    try {
      r = sink.ingest(chunk, notLearnt ? { pastDevice: true } : undefined);
    } catch (e) {
      throw new ImportStoppedError(file, { ...report }, journalledThrough, e);
    }
    journalledThrough = lastLine;
    chunk = [];
    report.added += r.added;
    report.duplicates += r.duplicates;
    report.quarantined += r.quarantined;
  };
  const attlogTarget = place(target.terminal ?? IMPORT_SOURCE);
  // --terminal wins over the file's column; a name in the column must be a terminal of the config.
  const csv = new CsvPunchReader((name) =>
    target.terminal !== undefined || name === undefined ? attlogTarget : (target.refuse?.(name) ?? place(name)),
  );
  const glog = new GlogPunchReader(attlogTarget);
  const notPunches = head.notText ?? (STICK_USERS.test(basename(file)) ? USERS_FILE : undefined);
  if (notPunches) {
    // Read as UTF-8 every line would be bad, each with a reason that hides the cause.
    report.bad++;
    onBad({ line: 1, reason: notPunches });
    return report;
  }
  if (head.empty) {
    // An empty USB export is a terminal with no punches; a CSV without even its header is not one.
    if (format === 'csv') {
      report.bad++;
      onBad({ line: 1, reason: `the file is empty: ${CSV_HEADER_PROBLEM}` });
    }
    return report;
  }
  let headerSeen = false;
  const options = {
    encoding: head.encoding,
    ...(format === 'csv' ? { delimiter: csvDelimiter(head.firstLine) } : { delimiter: '\t', quotes: false }),
  };
  for await (const records of streamCsv(createReadStream(file, { highWaterMark: READ_CHUNK }), options)) {
    for (const rec of records) {
      // The `# DeviceModel = ...` notes some glog exports write above their header: no punches.
      if (format === 'glog' && !headerSeen && rec.cells[0]?.startsWith('#')) continue;
      if (format !== 'attlog' && !headerSeen) {
        headerSeen = true;
        const problem = format === 'csv' ? csv.header(rec) : glog.header(rec);
        if (problem === undefined) continue;
        // Without its header no line of the file can be read: one report, nothing imported.
        report.bad++;
        onBad({ line: rec.line, reason: problem });
        return report;
      }
      const outcome =
        format === 'csv' ? csv.row(rec) : format === 'glog' ? glog.row(rec) : attlogPunch(rec, attlogTarget);
      if (typeof outcome === 'string') {
        report.bad++;
        onBad({ line: rec.line, reason: outcome });
        continue;
      }
      chunk.push(outcome);
      lastLine = rec.line;
      if (chunk.length >= chunkSize) commit();
    }
  }
  commit();
  return report;
}

/**
 * What the first 4 KiB of a file say: its text encoding, its first line (to tell a CSV from a USB
 * export), and whether it is text at all.
 */
async function sniff(
  file: string,
): Promise<{ firstLine: string; afterNotes: string; empty: boolean; encoding: CsvEncoding; notText?: string }> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const head = buf.subarray(0, bytesRead);
    const encoding = utf16Order(head) ?? 'utf-8';
    // NUL bytes after the text are padding (a stick pulled before the terminal's write was
    // flushed), not the file's kind: judged on them, a short export with its good lines was
    // refused whole (found by a capture trial). They are read as a bad line of their own.
    let end = head.length;
    while (end > 0 && head[end - 1] === 0) end--;
    // So is a DOS end-of-file mark (Ctrl-Z) with NULs or line ends after it (util/dos-eof.ts).
    const mark = head.lastIndexOf(0x1a);
    if (mark >= 0 && head.subarray(mark + 1).every((b) => b === 0 || b === 0x0d || b === 0x0a))
      end = Math.min(end, mark);
    const body = head.subarray(0, end);
    if (encoding === 'utf-8' && bytesRead >= 8 && (end === 0 || nulShare(body).all * 3 >= end))
      return {
        firstLine: '',
        afterNotes: '',
        empty: false,
        encoding,
        notText: notTextWords(file),
      };
    const text = new TextDecoder(encoding).decode(head);
    const lines = text.split(/\r\n|\n|\r/);
    const firstLine = lines[0] ?? '';
    // The first line after `#` notes (glog exports of some firmware begin with `# DeviceModel = ...`).
    const afterNotes = lines.find((l) => !l.startsWith('#')) ?? '';
    return { firstLine, afterNotes, encoding, empty: bytesRead < buf.length && text.trim() === '' };
  } finally {
    await fh.close();
  }
}

/** Why a binary file is no punch file: a stick's user.dat said as what it is, not as "not a USB export". */
function notTextWords(file: string): string {
  if (STICK_USERS.test(basename(file))) return `the file is not text: ${USERS_FILE}`;
  return 'the file is not text (NUL bytes all through it): not a USB export or a CSV';
}

/**
 * UTF-16 and its byte order, or undefined for UTF-8. Windows tools ("Unicode text" in a spreadsheet,
 * Notepad's "Unicode", PowerShell 5's Out-File) save UTF-16, little-endian mostly, with a byte-order
 * mark or without one: then a NUL beside each ASCII letter, on its high side. Refused, a USB export
 * saved so was a stick of punches not imported (found by capture trials). A NUL or two in a line of
 * UTF-8 is that line's problem, reported with it.
 */
function utf16Order(head: Buffer): 'utf-16le' | 'utf-16be' | undefined {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  if (head.length < 8) return undefined;
  const { even, odd } = nulShare(head);
  const pairs = Math.floor(head.length / 2);
  // Most characters of an attendance file are ASCII: the high byte of nearly every unit is NUL.
  if (odd * 10 >= pairs * 9 && even * 10 <= pairs) return 'utf-16le';
  if (even * 10 >= pairs * 9 && odd * 10 <= pairs) return 'utf-16be';
  return undefined;
}

function nulShare(head: Buffer): { even: number; odd: number; all: number } {
  let even = 0;
  let odd = 0;
  for (let i = 0; i < head.length; i++) {
    if (head[i] !== 0) continue;
    if (i % 2 === 0) even++;
    else odd++;
  }
  return { even, odd, all: even + odd };
}
