import { malformedLine } from './malformed.js';
import { uploadLine } from './upload-line.js';
import type { PushUser } from '../../journal/types.js';
import { codeProblem } from '../../punch.js';
import { boundedText } from '../../util/bounded-text.js';
import type { MalformedLine } from './attlog.js';
import { keyValueFields } from './key-values.js';

/**
 * `POST /iclock/cdata?table=tabledata&tablename=<t>&count=<n>` (Security PUSH): rows of one of
 * the terminal's tables, one per line, `<t> key=value\tkey=value...`, e.g.
 * `user uid=5\tcardno=\tpin=4\tpassword=\tgroup=1\tstarttime=0\tendtime=0\tname=Ana\tprivilege=0\tdisable=0\tverify=0`.
 * The answer is `<t>=<rows received>`, not `OK`.
 */

/** Tables of photos and biometric templates: acknowledged and counted, never kept (punchgate keeps no biometric data). */
export const BIOMETRIC_TABLES = new Set([
  'biophoto',
  'biodata',
  'templatev10',
  'templatev9',
  'fingertmp',
  'facetmp',
  'fvtmp',
  'userpic',
  'attphoto',
  'identitycard',
  // The attendance protocol's ID card records (`table=IDCARD`, PUSH 2.3.0 and later): the card's
  // photo and fingerprints beside its holder's identity. Counted, never kept.
  'idcard',
]);

export interface TableRow {
  line: number;
  fields: Map<string, string>;
}

export interface ParsedTable {
  rows: TableRow[];
  /** Rows: non-empty lines but a header (the count answered, see tableRowCount). */
  received: number;
  malformed: MalformedLine[];
}

/** The table's name as the query gives it, in lower case (letters, digits and `_` only). */
export function tableName(raw: string | null): string | undefined {
  const t = (raw ?? '').trim().toLowerCase();
  return /^[a-z0-9_]{1,40}$/.test(t) ? t : undefined;
}

/**
 * The table's name as the device spelled it (`ATTLOG`, `user`), for the answer `<name>=<rows>`:
 * vendor servers echo the query's own text (ZKTeco's push demos: `table + "=" + count`), so
 * firmware that compares the answer with what it sent finds its own spelling. Undefined when
 * the name is no table name.
 */
export function tableSpelling(raw: string | null): string | undefined {
  const t = (raw ?? '').trim();
  return tableName(t) === undefined ? undefined : t;
}

/**
 * Whether a line is the table's name alone (`ATTLOG`, `user`): the header some firmware writes
 * before its rows (attlog.ts reads it so). It holds nothing: no row, neither counted nor kept.
 */
export function isTableHeader(line: string, table: string): boolean {
  return table !== '' && line.trim().toLowerCase() === table.toLowerCase();
}

/** The rows of a table upload, as its answer `<t>=<rows>` counts them: non-empty lines but a header (isTableHeader). */
export function tableRowCount(body: string, table: string): number {
  return body
    .split('\n')
    .map(uploadLine)
    .filter((l) => l.trim() !== '' && !isTableHeader(l, table)).length;
}

export function parseTableRows(body: string, table: string): ParsedTable {
  const rows: TableRow[] = [];
  const malformed: MalformedLine[] = [];
  let received = 0;
  const lines = body.split('\n');
  const prefix = new RegExp(`^${table}[ \\t]+`, 'i');
  for (let i = 0; i < lines.length; i++) {
    const raw = uploadLine(lines[i]!);
    if (raw.trim() === '' || isTableHeader(raw, table)) continue;
    received++;
    const fields = keyValueFields(raw.replace(prefix, ''));
    if (fields === undefined) malformed.push(malformedLine(i + 1, 'not key=value fields', raw));
    else rows.push({ line: i + 1, fields });
  }
  return { rows, received, malformed };
}

/** A row of the `user` table as a user record (never the password). */
export function userOfRow(row: TableRow): PushUser | { problem: string } {
  const f = row.fields;
  const pin = f.get('pin') ?? '';
  const problem = codeProblem(pin);
  if (problem) return { problem };
  const pri = f.get('privilege') ?? f.get('pri');
  return {
    pin,
    name: boundedText(f.get('name') ?? '', 64),
    card: boundedText(f.get('cardno') ?? f.get('card') ?? '', 32),
    privilege: pri !== undefined && /^\d{1,3}$/.test(pri) ? Number(pri) : null,
  };
}
