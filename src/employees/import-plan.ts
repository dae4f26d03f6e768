import { readCsvTable } from '../util/csv.js';
import { idKey } from './diff.js';
import { buildPayload, formatErrors, type FieldType, type Payload } from './payload.js';

/**
 * The first, offline half of `employees import`: the CSV is read, its columns are mapped to
 * payload fields and every row is validated before anything is sent. Problems with the file as a
 * whole (no header, a required column missing, two columns for one field) stop the import;
 * problems with a row make that row invalid and leave the others to be sent.
 */

export interface PlanOptions {
  /** CSV column -> payload field (config `employees.columns`); an unmapped column keeps its header. A column mapped to "" or "-" is not sent. */
  columns: Readonly<Record<string, string>>;
  /** Payload fields every row must carry (config `employees.required`). */
  required: readonly string[];
  /** Payload field that identifies an employee (username unless configured otherwise). */
  identifyBy: string;
  types?: Readonly<Record<string, FieldType>>;
}

export interface ValidRow {
  row: number;
  line: number;
  id: string;
  payload: Payload;
}

export interface InvalidRow {
  row: number;
  line: number;
  id: string;
  message: string;
}

export interface ImportPlan {
  /** Payload field of each CSV column, or undefined for a column that is not sent. */
  fields: (string | undefined)[];
  valid: ValidRow[];
  invalid: InvalidRow[];
  /** Problems with the file as a whole; when any, nothing may be sent. */
  fileErrors: string[];
}

export function planImport(text: string, opts: PlanOptions): ImportPlan {
  const csv = readCsvTable(text);
  const fileErrors: string[] = [];
  if (csv.headerError)
    return {
      fields: [],
      valid: [],
      invalid: [],
      fileErrors: [`line ${csv.headerLine}: the header ${csv.headerError}`],
    };
  if (csv.header.length === 0)
    return { fields: [], valid: [], invalid: [], fileErrors: ['the file has no header line'] };

  const fields = csv.header.map((h, i) => {
    if (h === '') {
      // A trailing comma in the header is harmless; a nameless column with data is not.
      if (csv.rows.some((r) => (r.cells[i] ?? '').trim() !== ''))
        fileErrors.push(`line ${csv.headerLine}: column ${i + 1} has data but no name in the header`);
      return undefined;
    }
    const mapped = Object.hasOwn(opts.columns, h) ? opts.columns[h] : h;
    return mapped === '' || mapped === '-' || mapped === undefined ? undefined : mapped;
  });
  const seen = new Map<string, string>();
  csv.header.forEach((h, i) => {
    const f = fields[i];
    if (f === undefined) return;
    const other = seen.get(f);
    if (other !== undefined)
      fileErrors.push(`line ${csv.headerLine}: columns "${other}" and "${h}" both give the payload field "${f}"`);
    else seen.set(f, h);
  });
  if (fields.includes('delete'))
    fileErrors.push(
      `line ${csv.headerLine}: a "delete" column is not accepted; disable leavers with "employees disable"`,
    );
  const required = [...new Set([opts.identifyBy, ...opts.required])];
  for (const r of required) {
    if (!seen.has(r))
      fileErrors.push(
        `line ${csv.headerLine}: no column gives the required field "${r}"${columnHint(opts.columns, r)}`,
      );
  }
  if (fileErrors.length > 0) return { fields, valid: [], invalid: [], fileErrors };

  const idColumn = fields.indexOf(opts.identifyBy);
  const firstSeen = new Map<string, { row: number; line: number }>();
  const valid: ValidRow[] = [];
  const invalid: InvalidRow[] = [];
  for (const rec of csv.rows) {
    const id = (rec.cells[idColumn] ?? '').trim();
    if (rec.error) {
      invalid.push({ row: rec.row, line: rec.line, id, message: rec.error });
      continue;
    }
    const raw: Record<string, string> = {};
    fields.forEach((f, i) => {
      if (f !== undefined) raw[f] = rec.cells[i] ?? '';
    });
    const built = buildPayload(raw, { required, types: opts.types ?? {} });
    const problems = built.errors.length > 0 ? [formatErrors(built.errors)] : [];
    const key = idKey(id, opts.identifyBy, opts.types);
    const earlier = id === '' ? undefined : firstSeen.get(key);
    if (earlier) problems.push(`${opts.identifyBy} "${id}" is already in row ${earlier.row} (line ${earlier.line})`);
    else if (id !== '') firstSeen.set(key, { row: rec.row, line: rec.line });
    if (problems.length > 0) invalid.push({ row: rec.row, line: rec.line, id, message: problems.join('; ') });
    else valid.push({ row: rec.row, line: rec.line, id, payload: built.payload });
  }
  return { fields, valid, invalid, fileErrors };
}

function columnHint(columns: Readonly<Record<string, string>>, field: string): string {
  const from = Object.entries(columns)
    .filter(([, f]) => f === field)
    .map(([c]) => `"${c}"`);
  return from.length > 0
    ? ` (employees.columns maps ${from.join(', ')} to it)`
    : ' (add the column, or map one to it in employees.columns)';
}
