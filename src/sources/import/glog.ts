import type { Punch } from '../../punch.js';
import type { CsvRecord } from '../../util/csv.js';
import { GLOG_CODE, GLOG_TIME } from './glog-header.js';
import { punchOf, usableCells } from './parse.js';

/**
 * Reads the punch lines of a glog USB export (`GLG_001.TXT`, `AGL_001.TXT`: glog-header.ts) by the
 * names its header gives the columns. Published exports of this family (shapes quoted by the
 * projects that read them, e.g. github.com/joaquin-osorio/prosoft-reader docs/attendance.md and
 * the EDGEFOLIO notes on an `AGL_001.TXT` of 653 punches) differ in four ways, all read here:
 * - some begin with notes (`# DeviceModel = ...`, `# DataType = AttendLog`) above the header;
 * - the header may hold empty columns (`No\tMchn\tEnNo\t\tName\t\tMode\tIOMd\tDateTime\t`) that
 *   the punch lines have, or do not have: a line is read by the header's columns when it has as
 *   many, else by its named columns alone; a line with neither count is bad, never guessed;
 * - `DateTime` is `2025/12/01  07:41:00` (slashes, two spaces) or `2026-02-14 16:40:09`;
 * - `EnNo` is the enrolment number padded with zeros to a fixed width (`000000052`): the number
 *   the terminal knows the person by is 52 (its firmware holds it as a number), so the zeros are
 *   not part of the code. Kept, every punch went out under a code no employee has.
 * The `Mode`, `IOMd` and `In/Out` columns are not read: their numbers differ between firmware
 * (one terminal writes `IOMd` 0 and 1 for in and out, another 1 for every punch, a third `DutyOff`),
 * so a punch state read from them could turn every punch of a file into a check-out.
 */
/** Where a line's EnNo and DateTime are, and how many columns such a line has. */
interface Layout {
  code: number;
  time: number;
  count: number;
}

export class GlogPunchReader {
  private columns: Layout | undefined;
  private named: Layout | undefined;

  constructor(private readonly at: { terminal: string; device: string }) {}

  /** Reads the header record; returns why it is unusable (then nothing of the file is read). */
  header(rec: CsvRecord): string | undefined {
    const cells = usableCells(rec, []);
    if (typeof cells === 'string') return cells;
    const names = withoutTrailingBlanks(cells).map((n) => n.trim().toLowerCase());
    const filled = names.filter((n) => n !== '');
    this.columns = { code: names.indexOf(GLOG_CODE), time: names.indexOf(GLOG_TIME), count: names.length };
    this.named = { code: filled.indexOf(GLOG_CODE), time: filled.indexOf(GLOG_TIME), count: filled.length };
    return undefined;
  }

  row(record: CsvRecord): Punch | string {
    const all = this.columns;
    const named = this.named;
    if (!all || !named) return record.error ?? 'a glog export line before its header';
    const raw = (record.error ? record.undecodedCells : record.cells) ?? [];
    // Empty cells at the end of a line (an empty last column, or none written for it) count only
    // as far as the header reaches: the line is read by the header's columns or by its named ones,
    // whichever has its EnNo and DateTime filled; when both do at different places, by the one
    // whose column count the line has. Anything else is not guessed.
    const count = withoutTrailingBlanks(raw).length;
    const filled = (l: Layout) => count <= l.count && [l.code, l.time].every((i) => (raw[i] ?? '').trim() !== '');
    const fits = [all, named].filter(filled);
    const same = fits.length === 2 && all.code === named.code && all.time === named.time;
    const c = fits.length === 1 || same ? fits[0] : fits.find((l) => l.count === count || l.count === raw.length);
    if (!c) {
      const counts = all.count === named.count ? `${all.count}` : `${named.count} (${all.count} with its empty ones)`;
      return `${count} columns, the header names ${counts}: the EnNo and DateTime columns cannot be told`;
    }
    const cells = usableCells(record, [c.code, c.time]);
    if (typeof cells === 'string') return cells;
    const enNo = (cells[c.code] ?? '').trim();
    if (!/^\d{1,20}$/.test(enNo)) return `bad EnNo "${enNo.slice(0, 40)}": expected the enrolment number (digits)`;
    const time = (cells[c.time] ?? '').trim().replace(/\s+/g, ' ');
    return punchOf(this.at, enNo.replace(/^0+(?=\d)/, ''), time, 'DateTime');
  }
}

function withoutTrailingBlanks(cells: readonly string[]): string[] {
  let end = cells.length;
  while (end > 0 && cells[end - 1]!.trim() === '') end--;
  return cells.slice(0, end);
}
