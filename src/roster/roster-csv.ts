/**
 * The roster CSV (issue 16): a header, then one person per row. Columns `code` and `name` are
 * required, `card` (decimal) and `active` (1/0, true/false, yes/no; blank = active) optional.
 * Header names are matched without regard to case or surrounding blanks; other columns are
 * ignored. A bad row is reported with its line and skipped; the others are used.
 */
import { readCsv } from '../util/csv.js';
import type { Roster, RosterEntry, RosterProblem } from './types.js';
import { CodeRegister } from './duplicate-codes.js';
import { withoutSharedCards } from './duplicate-cards.js';
import { cardSpelling, parseActive, parseCard, parseCode, parseName } from './values.js';

/** A file that cannot be a roster at all (no header, a required column missing). */
export class RosterFileError extends Error {
  override name = 'RosterFileError';
}

const COLUMNS = ['code', 'name', 'card', 'active'] as const;
type Column = (typeof COLUMNS)[number];

export function readRosterCsv(text: string, file: string): Roster {
  const records = readCsv(text);
  const head = records.shift();
  if (!head) throw new RosterFileError(`${file}: empty; a roster needs a header line with code and name`);
  if (head.error) throw new RosterFileError(`${file}:${head.line}: the header ${head.error}`);
  const at = new Map<Column, number>();
  head.cells.forEach((cell, i) => {
    const name = cell.trim().toLowerCase() as Column;
    if (COLUMNS.includes(name) && !at.has(name)) at.set(name, i);
  });
  for (const required of ['code', 'name'] as const) {
    if (!at.has(required)) {
      throw new RosterFileError(
        `${file}:${head.line}: the header has no "${required}" column (found: ${head.cells.map((c) => c.trim()).join(', ')})`,
      );
    }
  }

  const entries: RosterEntry[] = [];
  const problems: RosterProblem[] = [];
  const codes = new CodeRegister();
  for (const r of records) {
    const where = `${file}:${r.line}`;
    if (r.error) {
      problems.push({ where, message: r.error });
      continue;
    }
    const cell = (c: Column) => {
      const i = at.get(c);
      return i === undefined ? '' : (r.cells[i] ?? '');
    };
    const code = parseCode(cell('code'));
    if (!code.ok) {
      problems.push({ where, message: code.message });
      continue;
    }
    const fail = (message: string) => problems.push({ where, message, code: code.value });
    const twice = codes.check(code.value, where, (earlier) => `code ${code.value} is already on ${earlier}`);
    if (twice) {
      problems.push(twice);
      continue;
    }
    const name = parseName(cell('name'));
    const card = parseCard(cell('card'));
    const active = parseActive(cell('active'));
    if (!name.ok) fail(name.message);
    else if (!card.ok) fail(card.message);
    else if (!active.ok) fail(active.message);
    else if (active.value && name.value === '') fail(`code ${code.value}: name is empty`);
    else
      entries.push({
        code: code.value,
        name: name.value,
        card: card.value,
        ...cardSpelling(cell('card'), card.value),
        active: active.value,
        where,
      });
  }
  const used = codes.settle(entries, problems, (code, later) => `code ${code} is also on ${later}`);
  const usable = withoutSharedCards(used, problems);
  return { entries: usable, problems, rows: records.length, skipped: 0 };
}
