/**
 * CSV records of a roster file, one per line, numbered by their line in the file.
 *
 * A stop-gap on csv-parse until punchgate's one CSV module (src/util/csv.ts, being written) lands:
 * it has the same shape as that module's `readCsv` (line, cells, error), so switching is one import.
 * Each line is parsed on its own, so a broken line (a quote that does not close) costs that line
 * only; a cell spanning several lines is not supported (rosters have none).
 */
import { parse } from 'csv-parse/sync';

export interface CsvRecord {
  /** 1-based line of the file. */
  line: number;
  cells: string[];
  /** Why the line cannot be read (its cells are then empty). */
  error?: string;
}

export function readCsv(text: string): CsvRecord[] {
  const out: CsvRecord[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  lines.forEach((content, i) => {
    if (content.trim() === '') return;
    try {
      const rows = parse(content, { relax_quotes: true, relax_column_count: true }) as string[][];
      out.push({ line: i + 1, cells: rows[0] ?? [] });
    } catch (e) {
      const code = (e as { code?: string }).code;
      const error =
        code === 'CSV_QUOTE_NOT_CLOSED'
          ? 'a quoted cell is not closed on its line'
          : `cannot be read as CSV (${(e as Error).message.split(':')[0]})`;
      out.push({ line: i + 1, cells: [], error });
    }
  });
  return out;
}
