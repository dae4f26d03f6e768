import { readFileSync } from 'node:fs';
import { coerceText } from './mapping.js';
import type { FieldMapping } from './types.js';

export interface RosterRow {
  /** 1-based line number in the file (for messages). */
  line: number;
  record: Record<string, unknown>;
}

/** Splits CSV text into rows of cells (RFC 4180: quotes, doubled quotes, newlines inside quotes). */
export function parseCsv(text: string): Array<{ line: number; cells: string[] }> {
  const rows: Array<{ line: number; cells: string[] }> = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  const src = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (quoted) {
      if (ch === '"' && src[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line++;
        cell += ch;
      }
    } else if (ch === '"' && cell === '') quoted = true;
    else if (ch === ',') {
      cells.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && src[i + 1] === '\n') i++;
      cells.push(cell);
      if (cells.some((c) => c !== '')) rows.push({ line: rowLine, cells });
      cells = [];
      cell = '';
      line++;
      rowLine = line;
    } else cell += ch;
  }
  cells.push(cell);
  if (cells.some((c) => c !== '')) rows.push({ line: rowLine, cells });
  return rows;
}

/**
 * A roster CSV: a header row of payload field names (username,name,email,biometriccode,...),
 * then one employee per row. Cells become the JSON values a client would send for the mapped type.
 */
export function rosterFromCsv(text: string, mapping: FieldMapping): RosterRow[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  const names = header.cells.map((c) => c.trim());
  return rows.map(({ line, cells }) => {
    const record: Record<string, unknown> = {};
    names.forEach((name, i) => {
      const cell = (cells[i] ?? '').trim();
      const type = mapping[name]?.type ?? 'string';
      const value = coerceText(type, cell);
      if (value !== undefined) record[name] = value;
    });
    return { line, record };
  });
}

export function loadRosterFile(path: string, mapping: FieldMapping): RosterRow[] {
  return rosterFromCsv(readFileSync(path, 'utf8'), mapping);
}
