import { textTable } from '../util/text-table.js';
import type { UserAnswerKind } from '../hrms/users.js';
import { EXIT } from '../util/exit-codes.js';
import { safeJson } from '../util/terminal-text.js';
import { writePrivateFile } from '../util/private-file.js';

/**
 * Results of employee operations: the per-row table, the JSON report of an import, and the exit
 * codes, in one place so that the commands and the documentation agree.
 *
 * Exit codes (when several conditions meet, the first in this order wins, and exitConditions
 * names them all on stderr):
 * - 77 the HRMS refused the token (sysexits EX_NOPERM): fix the token, nothing else will work;
 * - 78 an answer not shaped as the contract says (a fetch's list under another key): fix hrms.employeeFetch;
 * - 75 the HRMS could not be reached or gave no usable answer: try again later;
 * - 65 a row (or a command-line value) was invalid and was not sent: fix the data (the standard's
 *      exit for bad input lines reported and skipped; it wins over 1: both mean "fix the rows");
 * - 1  the HRMS refused a row or a request (validation, not found): fix the data or the mapping;
 * - 0  everything was applied (or needed no change).
 */
export const EXIT_TOKEN_REFUSED = EXIT.NOPERM;

/** created/updated/unchanged: applied or already so; failed: the HRMS refused it; invalid: never sent; skipped: not sent because the import stopped (or a dry run could not compare). */
export type RowAction = 'created' | 'updated' | 'unchanged' | 'failed' | 'invalid' | 'skipped';

export interface RowResult {
  /** 1-based data row (the header is not counted). */
  row: number;
  /** 1-based line of the file where the row starts. */
  line: number;
  username: string;
  action: RowAction;
  /** The HRMS's answer as given, or why the row was invalid or skipped. */
  message: string;
  kind?: UserAnswerKind;
  httpStatus?: number;
  /** Fields sent by an update. */
  fields?: string[];
}

/** Exit code of one request's answer. */
export function exitCodeOfAnswer(kind: UserAnswerKind): number {
  switch (kind) {
    case 'ok':
      return EXIT.OK;
    case 'auth':
      return EXIT_TOKEN_REFUSED;
    case 'transient':
      return EXIT.TEMPFAIL;
    // Asking again gets the same answer: the settings (hrms.employeeFetch) must change.
    case 'contract':
      return EXIT.CONFIG;
    default:
      return EXIT.FAILURE;
  }
}

/** Exit code of an import: see the table at the top of this file. */
export function exitCodeOf(rows: readonly RowResult[], stoppedBy?: UserAnswerKind): number {
  if (stoppedBy === 'auth') return EXIT_TOKEN_REFUSED;
  if (stoppedBy === 'transient') return EXIT.TEMPFAIL;
  if (rows.some((r) => r.action === 'invalid')) return EXIT.DATAERR;
  if (rows.some((r) => r.action === 'failed')) return EXIT.FAILURE;
  return EXIT.OK;
}

/**
 * The closing line when one exit code stands for more than one condition (a file with invalid
 * rows and rows the HRMS refused ends 65): every condition, the winning one first, each with what
 * to do, so the lesser one is not missed. Undefined when there is one condition or none.
 */
export function exitConditions(
  rows: readonly RowResult[],
  exitCode: number,
  stoppedBy?: UserAnswerKind,
): string | undefined {
  const n = (k: number) => `${k} row${k === 1 ? '' : 's'}`;
  const invalid = rows.filter((r) => r.action === 'invalid').length;
  // The row whose answer stopped the import is said by the stop, not as a refusal.
  const refused = rows.filter((r) => r.action === 'failed' && r.kind !== 'transient' && r.kind !== 'auth').length;
  const said = [
    ...(stoppedBy === 'auth' ? ['the HRMS refused the token (check the token in hrms.tokenFile)'] : []),
    ...(stoppedBy === 'transient' ? ['the HRMS could not be reached (run again later)'] : []),
    ...(invalid > 0 ? [`${n(invalid)} invalid, not sent (fix ${invalid === 1 ? 'it' : 'them'} in the file)`] : []),
    ...(refused > 0 ? [`${n(refused)} refused by the HRMS (read its message, fix the data or the mapping)`] : []),
  ];
  if (said.length < 2) return undefined;
  return `exit ${exitCode}: ${said.join('; ')}; the rows applied stay done: run the same file again`;
}

export type Summary = Record<RowAction | 'rows', number>;

export function summarize(rows: readonly RowResult[]): Summary {
  const s: Summary = { rows: rows.length, created: 0, updated: 0, unchanged: 0, failed: 0, invalid: 0, skipped: 0 };
  for (const r of rows) s[r.action] += 1;
  return s;
}

/**
 * `12 rows: 3 created, ...`; a dry run says what it would have done (`3 would be created`) and that
 * nothing was sent, so that its line is never read as done.
 */
export function summaryLine(s: Summary, dryRun = false): string {
  const parts = (['created', 'updated', 'unchanged', 'failed', 'invalid', 'skipped'] as const).map((k) =>
    dryRun && (k === 'created' || k === 'updated') ? `${s[k]} would be ${k}` : `${s[k]} ${k}`,
  );
  return `${dryRun ? 'dry run, nothing sent: ' : ''}${s.rows} ${s.rows === 1 ? 'row' : 'rows'}: ${parts.join(', ')}`;
}

export function resultTable(rows: readonly RowResult[]): string {
  return textTable(
    ['ROW', 'LINE', 'USERNAME', 'ACTION', 'MESSAGE'],
    rows.map((r) => [String(r.row), String(r.line), r.username, r.action, oneLine(r.message)]),
  );
}

export interface ImportReport {
  file: string;
  dryRun: boolean;
  mode: string;
  fetchProblem?: string;
  /** Why the rows sent could not be read back from the HRMS's list. */
  unchecked?: string;
  stopped?: { kind: string; message: string };
  startedAt: string;
  finishedAt: string;
  exitCode: number;
  summary: Summary;
  rows: RowResult[];
}

/**
 * Writes the JSON report whole or not at all, readable by its owner only (it names people), by way of
 * writePrivateFile: its temporary name is made new, never opened through a link another user planted
 * there (root running the import in a folder the service user writes: found by an adversarial trial).
 */
export function writeReport(path: string, report: ImportReport): void {
  writePrivateFile(path, safeJson(report, 2) + '\n');
}

function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ');
}
