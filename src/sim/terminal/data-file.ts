/**
 * Users and punches for the simulator from JSON or CSV files (`punchgate sim terminal --file`).
 *
 * JSON: `{ "users": [...], "punches": [...] }` (both optional).
 * CSV: the header decides the kind: a `logTime` column means punch rows, otherwise user rows.
 * Bad records are reported with their line (CSV) or index (JSON) and skipped. User ids follow the
 * code rule of src/punch.ts (codeProblem), as a real terminal's would be read by punchgate; tests
 * that need a hostile terminal pass such ids to startTerminalSim directly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { normalizePunch, normalizeUser } from './terminal-state.js';
import type { SimPunch, SimTemplate, SimUser } from './types.js';
import { codeProblem } from '../../punch.js';
import { readCsvTable } from '../../util/csv.js';

export interface LoadedData {
  users: SimUser[];
  punches: SimPunch[];
  /** Fingerprint templates (JSON files only: `{ userId, finger, template: base64 }`). */
  templates: SimTemplate[];
  /** `file:line: message` for each skipped record. */
  problems: string[];
}

/** A file that cannot be read or parsed at all. */
export class DataFileError extends Error {
  override name = 'DataFileError';
}

type Raw = Record<string, unknown>;

export function loadDataFiles(files: readonly string[]): LoadedData {
  const out: LoadedData = { users: [], punches: [], templates: [], problems: [] };
  const rawUsers: { raw: Raw; where: string }[] = [];
  const rawPunches: { raw: Raw; where: string }[] = [];
  const rawTemplates: { raw: Raw; where: string }[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
    } catch (e) {
      throw new DataFileError(`${file}: ${(e as Error).message}`);
    }
    const isJson = path.extname(file).toLowerCase() === '.json' || /^\s*[{[]/.test(text);
    const parsed = isJson ? readJson(file, text) : { ...readCsv(file, text, out.problems), templates: [] };
    rawUsers.push(...parsed.users);
    rawPunches.push(...parsed.punches);
    rawTemplates.push(...parsed.templates);
  }

  const uids = new Set<number>();
  const ids = new Set<string>();
  let nextUid = 1;
  for (const { raw, where } of rawUsers) {
    try {
      const uid = raw.uid === undefined || raw.uid === '' ? undefined : toInt(raw.uid, 'uid');
      const user = normalizeUser({
        uid: uid ?? nextUid,
        userId: userIdOf(raw.userId),
        name: raw.name === undefined ? '' : str(raw.name, 'name'),
        privilege: optInt(raw.privilege, 'privilege'),
        card: optInt(raw.card, 'card'),
        password: raw.password === undefined ? undefined : str(raw.password, 'password'),
      });
      if (uids.has(user.uid)) throw new RangeError(`uid ${user.uid} used twice`);
      if (ids.has(user.userId)) throw new RangeError(`user id ${user.userId} used twice`);
      uids.add(user.uid);
      ids.add(user.userId);
      nextUid = Math.max(nextUid, user.uid + 1);
      out.users.push(user);
    } catch (e) {
      out.problems.push(`${where}: ${(e as Error).message}`);
    }
  }
  for (const { raw, where } of rawPunches) {
    try {
      out.punches.push(
        normalizePunch({
          userId: userIdOf(raw.userId),
          logTime: str(raw.logTime, 'logTime'),
          verifyType: optInt(raw.verifyType, 'verifyType'),
          state: optInt(raw.state, 'state'),
        }),
      );
    } catch (e) {
      out.problems.push(`${where}: ${(e as Error).message}`);
    }
  }
  for (const { raw, where } of rawTemplates) {
    try {
      const userId = str(raw.userId, 'userId');
      if (!ids.has(userId)) throw new RangeError(`template of user ${userId}, who is not in the users`);
      const text = str(raw.template, 'template');
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) throw new RangeError('template must be base64');
      const valid = optInt(raw.valid, 'valid');
      const finger = toInt(raw.finger, 'finger');
      if (finger > 9) throw new RangeError(`finger must be 0-9: ${finger}`);
      out.templates.push({
        userId,
        finger,
        template: Buffer.from(text, 'base64'),
        ...(valid === undefined ? {} : { valid }),
      });
    } catch (e) {
      out.problems.push(`${where}: ${(e as Error).message}`);
    }
  }
  // A punches-only file still needs enrolled users: one per distinct user id, in order of appearance.
  if (rawUsers.length === 0) {
    for (const p of out.punches) {
      if (ids.has(p.userId)) continue;
      ids.add(p.userId);
      out.users.push(normalizeUser({ uid: nextUid++, userId: p.userId, name: `User ${p.userId}`.slice(0, 24) }));
    }
  }
  return out;
}

function readJson(
  file: string,
  text: string,
): {
  users: { raw: Raw; where: string }[];
  punches: { raw: Raw; where: string }[];
  templates: { raw: Raw; where: string }[];
} {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new DataFileError(`${file}: not valid JSON: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new DataFileError(`${file}: expected an object with "users" and/or "punches" arrays`);
  }
  const list = (key: 'users' | 'punches' | 'templates') => {
    const v = (doc as Raw)[key];
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw new DataFileError(`${file}: "${key}" must be an array`);
    return v.map((raw: unknown, i) => ({
      raw: typeof raw === 'object' && raw !== null ? (raw as Raw) : {},
      where: `${file}: ${key}[${i}]`,
    }));
  };
  return { users: list('users'), punches: list('punches'), templates: list('templates') };
}

function readCsv(file: string, text: string, problems: string[]) {
  const users: { raw: Raw; where: string }[] = [];
  const punches: { raw: Raw; where: string }[] = [];
  const table = readCsvTable(text, { comments: true, shortRows: true });
  if (table.headerLine === 0) return { users, punches };
  if (table.headerError) throw new DataFileError(`${file}:${table.headerLine}: the header ${table.headerError}`);
  const header = table.header;
  if (!header.includes('userId'))
    throw new DataFileError(`${file}:${table.headerLine}: the header needs a userId column`);
  for (const row of table.rows) {
    const where = `${file}:${row.line}`;
    if (row.error) {
      // Trailing optional columns may be left out; more fields than the header is a broken line.
      const wide = row.cells.length > header.length;
      problems.push(`${where}: ${wide ? `${row.cells.length} fields, the header has ${header.length}` : row.error}`);
      continue;
    }
    const raw: Raw = {};
    header.forEach((h, j) => {
      const v = (row.cells[j] ?? '').replace(/^[ \t]+|[ \t]+$/g, '');
      if (v !== '') raw[h] = v;
    });
    (header.includes('logTime') ? punches : users).push({ raw, where });
  }
  return { users, punches };
}

/** A user id as a source of punchgate would accept it as a biometric code. */
function userIdOf(v: unknown): string {
  const id = str(v, 'userId');
  const problem = codeProblem(id);
  if (problem) throw new RangeError(`userId: ${problem}`);
  return id;
}

function str(v: unknown, what: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new RangeError(v === undefined ? `${what} missing` : `${what} must be text: ${JSON.stringify(v)}`);
}

function toInt(v: unknown, what: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) throw new RangeError(`${what} must be a whole number: ${JSON.stringify(v)}`);
  return n;
}

function optInt(v: unknown, what: string): number | undefined {
  return v === undefined || v === '' ? undefined : toInt(v, what);
}
