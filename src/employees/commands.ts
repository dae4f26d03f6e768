import type { EmployeeFilter, EmployeeRecord, UserAnswer } from '../hrms/users.js';
import { EXIT } from '../util/exit-codes.js';
import type { UsersClient } from './import.js';
import { buildPayload, disablePayload, formatErrors, parseFieldOption, type FieldType } from './payload.js';
import { textTable } from '../util/text-table.js';
import { cutToWidth } from '../util/display-width.js';
import { exitCodeOfAnswer } from './report.js';
import { escapeControls, safeJson } from '../util/terminal-text.js';
import { readBack } from './read-back.js';
import type { Payload } from './payload.js';

/**
 * The bodies of `employees create|update|disable|fetch`, apart from commander so that tests call
 * them directly. Each returns the exit code: 0 when the HRMS said status true, 65 when a value
 * given on the command line is invalid (nothing is sent), 1 when the HRMS refused the request,
 * 75 when it could not be reached, 77 when it refused the token.
 */

export interface Output {
  write(s: string): unknown;
}

export interface EmployeeDeps {
  client: UsersClient;
  out: Output;
  err: Output;
  /** Payload field identifying an employee in update and disable; default username. */
  identifyBy?: string;
  types?: Readonly<Record<string, FieldType>>;
  /** Payload fields a create must carry (config employees.required). */
  required?: readonly string[];
}

/** The standard fields as command-line options (commander's camelCase names). */
export interface FieldOptions {
  username?: string;
  name?: string;
  email?: string;
  gender?: string;
  dob?: string;
  role?: string;
  zone?: string;
  block?: string;
  panAttach?: string;
  /** `key=value`, repeatable: custom (or standard) payload fields under their payload names. */
  field?: string[];
  json?: boolean;
}

const OPTION_FIELDS: ReadonlyArray<[keyof FieldOptions, string]> = [
  ['username', 'username'],
  ['name', 'name'],
  ['email', 'email'],
  ['gender', 'gender'],
  ['dob', 'dob'],
  ['role', 'Role'],
  ['zone', 'zone'],
  ['block', 'block'],
  ['panAttach', 'panAttach'],
];

/** Raw values under payload names; problems with `--field` specs are returned, not thrown. */
export function rawFields(opts: FieldOptions): { raw: Record<string, string>; problems: string[] } {
  const raw: Record<string, string> = {};
  const problems: string[] = [];
  for (const [opt, field] of OPTION_FIELDS) {
    const v = opts[opt];
    if (typeof v === 'string') raw[field] = v;
  }
  for (const spec of opts.field ?? []) {
    const kv = parseFieldOption(spec);
    if (!kv || kv.key === '') problems.push(`--field ${spec}: expected key=value`);
    else if (kv.key in raw) problems.push(`--field ${spec}: ${kv.key} is given twice`);
    else raw[kv.key] = kv.value;
  }
  return { raw, problems };
}

export async function createEmployee(opts: FieldOptions, deps: EmployeeDeps): Promise<number> {
  const identifyBy = deps.identifyBy ?? 'username';
  const { raw, problems } = rawFields(opts);
  const built = buildPayload(raw, {
    types: deps.types ?? {},
    required: [...new Set([identifyBy, ...(deps.required ?? [])])],
  });
  if (problems.length > 0 || built.errors.length > 0) return invalid(deps, [...problems, formatErrors(built.errors)]);
  const id = String(built.payload[identifyBy] ?? '');
  return checked(await deps.client.send(built.payload), { id, payload: built.payload, action: 'created' }, deps, opts);
}

export async function updateEmployee(id: string, opts: FieldOptions, deps: EmployeeDeps): Promise<number> {
  const identifyBy = deps.identifyBy ?? 'username';
  const { raw, problems } = rawFields(opts);
  if (identifyBy in raw)
    problems.push(`${identifyBy} is the identifier given as the argument; it cannot also be changed here`);
  const built = buildPayload(raw, { types: deps.types ?? {} });
  if (id.trim() === '') problems.push(`the ${identifyBy} must not be empty`);
  if (problems.length > 0 || built.errors.length > 0) return invalid(deps, [...problems, formatErrors(built.errors)]);
  if (Object.keys(built.payload).length === 0)
    return invalid(deps, ['nothing to update: give at least one field to change']);
  // Identifier first, then only the fields given: the HRMS leaves every other field as it is.
  const payload = { [identifyBy]: id.trim(), ...built.payload };
  return checked(await deps.client.send(payload), { id: id.trim(), payload, action: 'updated' }, deps, opts);
}

/**
 * The answer reported, then, when it says status true, the HRMS's employee list read back: a
 * change it does not show is said (exit 1), never taken as done on the HRMS's word alone.
 */
async function checked(
  answer: UserAnswer,
  sent: { id: string; payload: Payload; action: 'created' | 'updated' },
  deps: EmployeeDeps,
  opts: { json?: boolean },
): Promise<number> {
  const code = report(answer, deps, opts.json);
  if (!answer.ok) return code;
  const back = await readBack([sent], {
    fetch: () => deps.client.fetch({}),
    identifyBy: deps.identifyBy ?? 'username',
    ...(deps.types ? { types: deps.types } : {}),
  });
  if (back.unchecked) deps.err.write(`punchgate: not checked: ${escapeControls(back.unchecked)}\n`);
  const problem = back.problems[0];
  if (problem === undefined) return code;
  deps.err.write(`punchgate: ${escapeControls(problem)}\n`);
  return EXIT.FAILURE;
}

export async function disableEmployee(id: string, opts: { json?: boolean }, deps: EmployeeDeps): Promise<number> {
  if (id.trim() === '') return invalid(deps, [`the ${deps.identifyBy ?? 'username'} must not be empty`]);
  return report(await deps.client.send(disablePayload(deps.identifyBy ?? 'username', id.trim())), deps, opts.json);
}

export async function fetchEmployees(
  filter: EmployeeFilter,
  opts: { json?: boolean },
  deps: EmployeeDeps,
): Promise<number> {
  const answer = await deps.client.fetch(filter);
  if (!answer.ok) return report(answer, deps, opts.json);
  if (opts.json) deps.out.write(safeJson(answer.records, 2) + '\n');
  else {
    // No records, no table (an empty one printed a blank line above "0 employees").
    if (answer.records.length > 0) deps.out.write(employeeTable(answer.records, deps.identifyBy ?? 'username'));
    deps.err.write(`${answer.records.length} employee${answer.records.length === 1 ? '' : 's'}\n`);
  }
  if (answer.unreadable.length > 0) {
    const where = answer.unreadable
      .slice(0, 10)
      .map((u) => `${u.position} (${u.found})`)
      .join(', ');
    deps.err.write(
      `punchgate: ${answer.unreadable.length} entries of the HRMS's list are not employee records and are not shown: ${where}${answer.unreadable.length > 10 ? ', ...' : ''}\n`,
    );
  }
  return EXIT.OK;
}

/** Columns the table shows at most; the others are named under it (--json gives every field). */
const TABLE_COLUMNS = 12;
/** Columns a cell shows at most: one long value must not pad every row of the table. */
const CELL_CHARS = 60;

/**
 * The fields the records have, identifier first, as one table: at most TABLE_COLUMNS columns
 * (the commonest fields) and CELL_CHARS characters a cell, whatever an HRMS sends (a field of its
 * own on every record, a name of 5,000 characters).
 */
export function employeeTable(records: readonly EmployeeRecord[], identifyBy: string): string {
  const seen = new Map<string, number>();
  for (const r of records) for (const k of Object.keys(r)) seen.set(k, (seen.get(k) ?? 0) + 1);
  const order = [identifyBy, 'employeeId', 'name', 'email'].filter((c) => seen.has(c));
  // The commonest fields first after those, in the order first met (a stable sort).
  const rest = [...seen.keys()].filter((c) => !order.includes(c)).sort((a, b) => seen.get(b)! - seen.get(a)!);
  const head = [...order, ...rest].slice(0, TABLE_COLUMNS);
  const table = textTable(
    head,
    records.map((r) => head.map((c) => cell(r[c]))),
  );
  const hidden = seen.size - head.length;
  return hidden > 0
    ? `${table}(${hidden} more field${hidden === 1 ? '' : 's'} not shown: --json shows every field)\n`
    : table;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const text =
    typeof v === 'object' ? JSON.stringify(v) : String(v as string | number | boolean).replace(/\s*[\r\n]+\s*/g, ' ');
  // Cut by display columns and whole characters: a slice of UTF-16 units could halve an emoji.
  return cutToWidth(text, CELL_CHARS);
}

function invalid(deps: EmployeeDeps, problems: string[]): number {
  deps.err.write(`punchgate: nothing sent: ${problems.filter((p) => p !== '').join('; ')}\n`);
  return EXIT.DATAERR;
}

const FAILURE_TEXT: Record<string, string> = {
  auth: 'the HRMS refused the token',
  validation: 'the HRMS refused the data',
  'not-found': 'the HRMS found no such employee',
  refused: 'the HRMS refused the request',
  transient: 'no usable answer from the HRMS',
  contract: 'the HRMS answer is not shaped as the settings expect',
};

/** The answer as the HRMS gave it: its message (and data) on stdout when it succeeded, on stderr when not. */
function report(answer: UserAnswer, deps: EmployeeDeps, json: boolean | undefined): number {
  if (json) {
    const { raw: _raw, ...shown } = answer;
    deps.out.write(safeJson(shown, 2) + '\n');
  } else if (answer.ok) {
    deps.out.write(`${escapeControls(answer.message)}\n`);
    if (answer.data !== undefined && answer.data !== null) deps.out.write(safeJson(answer.data, 2) + '\n');
  }
  if (!answer.ok) {
    const http = answer.httpStatus === undefined ? '' : ` (HTTP ${answer.httpStatus})`;
    const fix = answer.fix ? ` — ${answer.fix}` : '';
    deps.err.write(
      `punchgate: ${FAILURE_TEXT[answer.kind] ?? 'failed'}${http}: ${escapeControls(answer.message)}${fix}\n`,
    );
  }
  return exitCodeOfAnswer(answer.kind);
}
