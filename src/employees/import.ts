import type { EmployeeFilter, EmployeeRecord, FetchAnswer, UserAnswer, UserAnswerKind } from '../hrms/users.js';
import { backoffDelay } from '../util/backoff.js';
import { changedFields, idKey, indexRecords } from './diff.js';
import type { ImportPlan, ValidRow } from './import-plan.js';
import type { FieldType, Payload } from './payload.js';
import { noProgress, type Progress } from './progress.js';
import { readBack } from './read-back.js';
import { exitCodeOf, type RowAction, type RowResult } from './report.js';

/**
 * The second half of `employees import`: the valid rows are sent one at a time.
 *
 * When the fetch endpoint answers, the employees the HRMS already has are compared with the file:
 * a new identifier is sent whole (create), an existing one only with the fields that differ
 * (update), and an identical one not at all (unchanged) - so a second run of the same file sends
 * nothing. When the fetch does not answer, every row is sent whole; the HRMS treats that as
 * create-or-update, which is still safe to repeat.
 *
 * A refused row is reported as the HRMS answered and the import goes on. A refused token or an
 * HRMS that stays unreachable stops it: the rows already sent stay done, the rest are "skipped",
 * and a re-run picks them up.
 */

export interface UsersClient {
  send(payload: Readonly<Record<string, unknown>>): Promise<UserAnswer>;
  fetch(filter?: EmployeeFilter): Promise<FetchAnswer>;
}

export interface RunOptions {
  client: UsersClient;
  identifyBy: string;
  types?: Readonly<Record<string, FieldType>>;
  /** Compare and report, send nothing. */
  dryRun?: boolean;
  progress?: Progress;
  /** Extra attempts for a row whose request got no usable answer; default 2. */
  retries?: number;
  /** Backoff before retry n (1-based); default 1 s, 2 s, 4 s... */
  retryDelayMs?: (attempt: number) => number;
  sleep?: (ms: number) => Promise<void>;
}

export type ImportMode = 'compare' | 'whole-rows';

export interface ImportOutcome {
  mode: ImportMode;
  /** Why the import could not compare with the HRMS's employees, when it could not. */
  fetchProblem?: string;
  /** Why the rows sent could not be checked against the HRMS's list afterwards, when they could not. */
  unchecked?: string;
  /** Why the import stopped before the last row, when it did. */
  stopped?: { kind: UserAnswerKind; message: string };
  rows: RowResult[];
  exitCode: number;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function runImport(plan: ImportPlan, opts: RunOptions): Promise<ImportOutcome> {
  const progress = opts.progress ?? noProgress;
  const results: RowResult[] = plan.invalid.map((r) => ({
    row: r.row,
    line: r.line,
    username: r.id,
    action: 'invalid',
    message: r.message,
  }));
  const counts: Record<string, number> = { created: 0, updated: 0, unchanged: 0, failed: 0 };

  // Nothing to send: no need to ask the HRMS anything (a file of only bad rows works offline).
  const existing: Existing = plan.valid.length > 0 ? await fetchExisting(opts) : { map: new Map() };
  const outcome: ImportOutcome = { mode: existing.map ? 'compare' : 'whole-rows', rows: results, exitCode: 0 };
  if (existing.problem) outcome.fetchProblem = existing.problem;
  if (existing.stop) outcome.stopped = existing.stop;

  const sent: { row: ValidRow; result: RowResult }[] = [];
  for (const row of plan.valid) {
    if (outcome.stopped) {
      results.push(result(row, 'skipped', `not sent: ${outcome.stopped.message}`));
      continue;
    }
    const r = await importRow(row, existing.map, opts);
    if (r.stop) outcome.stopped = r.stop;
    results.push(r.result);
    if (r.result.action in counts) counts[r.result.action] = (counts[r.result.action] ?? 0) + 1;
    if (!opts.dryRun && (r.result.action === 'created' || r.result.action === 'updated'))
      sent.push({ row, result: r.result });
    progress.tick(counts);
  }
  progress.done();
  // The HRMS's word checked against its list, where the list could be read before.
  if (existing.map && outcome.stopped?.kind !== 'auth') await checkSent(sent, opts, outcome);
  results.sort((a, b) => a.row - b.row);
  outcome.exitCode = exitCodeOf(results, outcome.stopped?.kind);
  return outcome;
}

/**
 * Rows the HRMS said it created or updated and its list does not show afterwards become `failed`
 * with what the list shows (see read-back.ts).
 */
async function checkSent(
  sent: readonly { row: ValidRow; result: RowResult }[],
  opts: RunOptions,
  outcome: ImportOutcome,
): Promise<void> {
  const back = await readBack(
    sent.map(({ row, result: r }) => ({ id: row.id, payload: row.payload, action: r.action as 'created' | 'updated' })),
    { fetch: () => opts.client.fetch({}), identifyBy: opts.identifyBy, ...(opts.types ? { types: opts.types } : {}) },
  );
  if (back.unchecked) outcome.unchecked = back.unchecked;
  back.problems.forEach((problem, i) => {
    if (problem === undefined) return;
    const r = sent[i]!.result;
    r.action = 'failed';
    r.message = problem;
    delete r.fields;
  });
}

interface Existing {
  map?: Map<string, EmployeeRecord>;
  problem?: string;
  stop?: { kind: UserAnswerKind; message: string };
}

async function fetchExisting(opts: RunOptions): Promise<Existing> {
  let answer: FetchAnswer;
  try {
    answer = await opts.client.fetch({});
  } catch (e) {
    // No token configured: a dry run still validates and plans; a real run must stop (exit 78).
    if (!opts.dryRun) throw e;
    return { problem: `existing employees could not be fetched (${e instanceof Error ? e.message : String(e)})` };
  }
  if (answer.kind === 'auth')
    return {
      stop: { kind: 'auth', message: `the HRMS refused the token: ${answer.message}` },
      problem: answer.message,
    };
  if (!answer.ok)
    return { problem: `existing employees could not be fetched (${answer.message}); every row is sent whole` };
  const map = indexRecords(answer.records, opts.identifyBy, opts.types);
  if (answer.records.length > 0 && map.size === 0) {
    return { problem: `the fetched employees carry no "${opts.identifyBy}" field; every row is sent whole` };
  }
  return { map };
}

interface RowOutcome {
  result: RowResult;
  stop?: { kind: UserAnswerKind; message: string };
}

async function importRow(
  row: ValidRow,
  map: Map<string, EmployeeRecord> | undefined,
  opts: RunOptions,
): Promise<RowOutcome> {
  let body: Payload = row.payload;
  let expected: RowAction | undefined;
  let changed: string[] | undefined;
  if (map) {
    const have = map.get(idKey(row.id, opts.identifyBy, opts.types));
    if (!have) expected = 'created';
    else {
      changed = changedFields(row.payload, have, opts.identifyBy, opts.types);
      if (changed.length === 0) return { result: result(row, 'unchanged', 'no change') };
      expected = 'updated';
      body = { [opts.identifyBy]: row.payload[opts.identifyBy] ?? row.id };
      for (const f of changed) body[f] = row.payload[f] ?? null;
    }
  }
  if (opts.dryRun) {
    if (expected === 'created') return { result: result(row, 'created', 'dry run: would create') };
    if (expected === 'updated')
      return {
        result: { ...result(row, 'updated', `dry run: would change ${changed?.join(', ')}`), fields: changed ?? [] },
      };
    return { result: result(row, 'skipped', 'dry run: valid; would be sent whole (create or update)') };
  }

  const answer = await sendWithRetry(body, opts);
  const base = { httpStatus: answer.httpStatus, kind: answer.kind };
  if (answer.ok) {
    const action = actionFromMessage(answer.message) ?? expected ?? 'updated';
    const r: RowResult = { ...result(row, action, answer.message), ...base };
    if (changed && action === 'updated') r.fields = changed;
    return { result: r };
  }
  const failed: RowResult = { ...result(row, 'failed', answer.message), ...base };
  if (answer.kind === 'auth')
    return { result: failed, stop: { kind: 'auth', message: `the HRMS refused the token: ${answer.message}` } };
  if (answer.kind === 'transient')
    return { result: failed, stop: { kind: 'transient', message: `the HRMS did not answer: ${answer.message}` } };
  return { result: failed };
}

async function sendWithRetry(body: Payload, opts: RunOptions): Promise<UserAnswer> {
  const retries = opts.retries ?? 2;
  const delay = opts.retryDelayMs ?? ((n: number) => backoffDelay(n - 1, { baseMs: 1000, maxMs: 60_000 }));
  const sleep = opts.sleep ?? defaultSleep;
  let answer = await opts.client.send(body);
  // A create-or-update is safe to repeat, so a lost answer is simply asked again.
  for (let attempt = 1; answer.kind === 'transient' && attempt <= retries; attempt++) {
    await sleep(delay(attempt));
    answer = await opts.client.send(body);
  }
  return answer;
}

/** The HRMS says what it did ("Employee created" / "Employee updated"); believe it over our guess. */
function actionFromMessage(message: string): RowAction | undefined {
  if (/\b(creat|insert|add)/i.test(message)) return 'created';
  if (/\b(updat|modif|chang)/i.test(message)) return 'updated';
  return undefined;
}

function result(row: ValidRow, action: RowAction, message: string): RowResult {
  return { row: row.row, line: row.line, username: row.id, action, message };
}
