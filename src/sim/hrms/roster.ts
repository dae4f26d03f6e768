import { readFileSync } from 'node:fs';
import { readCsvTable } from '../../util/csv.js';
import { coerceText } from './mapping.js';
import type { FieldMapping } from './types.js';

export interface RosterRow {
  /** 1-based line number in the file (for messages). */
  line: number;
  record: Record<string, unknown>;
  /** Why the line cannot be read (then `record` is empty and the row is skipped). */
  error?: string;
  /**
   * A line with fewer cells than the header (allowed: optional trailing columns), said beside the
   * HRMS's refusal of it: a one-cell line was told only "Employee not found: <the whole line>".
   */
  short?: string;
}

/**
 * A roster CSV: a header row of payload field names (username,name,email,biometriccode,...),
 * then one employee per row. Cells become the JSON values a client would send for the mapped type.
 */
export function rosterFromCsv(text: string, mapping: FieldMapping): RosterRow[] {
  const table = readCsvTable(text, { shortRows: true });
  if (table.headerError) return [{ line: table.headerLine, record: {}, error: `the header ${table.headerError}` }];
  return table.rows.map(({ line, cells, error }) => {
    if (error) return { line, record: {}, error };
    const record: Record<string, unknown> = {};
    table.header.forEach((name, i) => {
      const cell = (cells[i] ?? '').trim();
      const type = mapping[name]?.type ?? 'string';
      const value = coerceText(type, cell);
      if (value !== undefined) record[name] = value;
    });
    return cells.length < table.header.length
      ? { line, record, short: `the line has ${cells.length} of the header's ${table.header.length} cells` }
      : { line, record };
  });
}

export function loadRosterFile(path: string, mapping: FieldMapping): RosterRow[] {
  return rosterFromCsv(readFileSync(path, 'utf8'), mapping);
}
