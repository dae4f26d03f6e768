import { readFileSync } from 'node:fs';
import { readProblem } from '../util/read-problem.js';
import { EXIT, ExitError } from '../util/exit-codes.js';
import type { EmployeeDeps } from './commands.js';
import { runImport, type RunOptions } from './import.js';
import { planImport } from './import-plan.js';
import { createProgress, type ProgressStream } from './progress.js';
import { exitConditions, resultTable, summarize, summaryLine, writeReport, type ImportReport } from './report.js';
import { escapeControls } from '../util/terminal-text.js';

/** sysexits EX_NOINPUT: the CSV file cannot be read. */
export const EXIT_NO_INPUT = EXIT.NOINPUT;

export interface ImportCommandOptions {
  dryRun?: boolean;
  /** Where to write the JSON report. */
  report?: string;
  /** Print only the rows that were not applied as-is (failed, invalid, skipped) instead of every row. */
  quiet?: boolean;
}

export interface ImportDeps extends EmployeeDeps {
  /** config employees.columns */
  columns: Readonly<Record<string, string>>;
  /** stderr: the progress bar is drawn there only when it is a terminal. */
  err: ProgressStream;
  now?: () => number;
  retry?: Pick<RunOptions, 'retries' | 'retryDelayMs' | 'sleep'>;
}

/** `employees import FILE.csv`: validate every row, then send the valid ones; returns the exit code. */
export async function importEmployees(file: string, opts: ImportCommandOptions, deps: ImportDeps): Promise<number> {
  const now = deps.now ?? Date.now;
  const startedAt = new Date(now()).toISOString();
  const identifyBy = deps.identifyBy ?? 'username';
  const text = readCsvText(file);
  const plan = planImport(text, {
    columns: deps.columns,
    required: deps.required ?? [],
    identifyBy,
    types: deps.types ?? {},
  });
  if (plan.fileErrors.length > 0) {
    throw new ExitError(`${file}: nothing sent:\n${plan.fileErrors.map((e) => `  ${e}`).join('\n')}`, EXIT.DATAERR);
  }
  if (plan.invalid.length > 0) {
    deps.err.write(
      `${file}: ${plan.invalid.length} invalid row${plan.invalid.length === 1 ? '' : 's'} will not be sent\n`,
    );
  }
  const progress = createProgress({ total: plan.valid.length, stream: deps.err, now });
  const outcome = await runImport(plan, {
    client: deps.client,
    identifyBy,
    types: deps.types ?? {},
    dryRun: opts.dryRun ?? false,
    progress,
    ...deps.retry,
  });
  if (outcome.fetchProblem && !outcome.stopped) deps.err.write(`punchgate: ${escapeControls(outcome.fetchProblem)}\n`);
  if (outcome.unchecked) deps.err.write(`punchgate: not checked: ${escapeControls(outcome.unchecked)}\n`);

  const shown = opts.quiet
    ? outcome.rows.filter((r) => r.action === 'failed' || r.action === 'invalid' || r.action === 'skipped')
    : outcome.rows;
  if (shown.length > 0) deps.out.write(resultTable(shown));
  const summary = summarize(outcome.rows);
  deps.out.write(summaryLine(summary, opts.dryRun) + '\n');
  if (outcome.stopped) deps.err.write(`punchgate: import stopped: ${escapeControls(outcome.stopped.message)}\n`);
  const conditions = opts.dryRun ? undefined : exitConditions(outcome.rows, outcome.exitCode, outcome.stopped?.kind);
  if (conditions) deps.err.write(`punchgate: ${conditions}\n`);

  if (opts.report) {
    const report: ImportReport = {
      file,
      dryRun: opts.dryRun ?? false,
      mode: outcome.mode,
      startedAt,
      finishedAt: new Date(now()).toISOString(),
      exitCode: outcome.exitCode,
      summary,
      rows: outcome.rows,
    };
    if (outcome.fetchProblem) report.fetchProblem = outcome.fetchProblem;
    if (outcome.unchecked) report.unchecked = outcome.unchecked;
    if (outcome.stopped) report.stopped = outcome.stopped;
    writeReport(opts.report, report);
  }
  return outcome.exitCode;
}

/**
 * The file's text. Bytes that are not UTF-8 (a spreadsheet saved as Windows-1252 or Latin-1) are
 * read as U+FFFD, which the CSV reader makes an error of the row holding them: that row is
 * reported `invalid` with its line and never sent garbled, the other rows go on, as the roster
 * and the punch import do (a new-user trial found one accented name refusing the whole file, with
 * no line, while the docs promise a line per bad row). A header that is not UTF-8 still refuses
 * the whole file, with its line.
 */
function readCsvText(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new ExitError(`${file}: cannot read ${readProblem(e)}`, EXIT_NO_INPUT);
  }
  return new TextDecoder('utf-8').decode(bytes);
}
