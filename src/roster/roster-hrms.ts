/**
 * The roster from the HRMS employee fetch (`sync-users --from-hrms`): each employee record is
 * read through `terminalUsers.fields`, which names the record field holding the code, the name,
 * and optionally the card and the active flag. `active: "!block"` reads the field inverted (the
 * contract's `block`: 0 active, 1 blocked). Employees without a code are skipped (counted, not an
 * error: not everyone punches); a field that cannot be read makes that employee a bad row.
 */
import type { EmployeeRecord } from '../hrms/users.js';
import type { Roster, RosterEntry, RosterProblem } from './types.js';
import { parseActive, parseCard, parseCode, parseName } from './values.js';

export interface RosterFields {
  code: string;
  name: string;
  card?: string;
  active?: string;
}

function text(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

export function rosterFromEmployees(records: readonly EmployeeRecord[], fields: RosterFields): Roster {
  const entries: RosterEntry[] = [];
  const problems: RosterProblem[] = [];
  const seen = new Map<string, string>();
  let skipped = 0;
  const invert = fields.active?.startsWith('!') ?? false;
  const activeField = fields.active?.replace(/^!/, '');
  records.forEach((r, i) => {
    const who = typeof r.username === 'string' && r.username !== '' ? ` (${r.username})` : '';
    const where = `HRMS employee ${i + 1}${who}`;
    const rawCode = text(r[fields.code]).trim();
    if (rawCode === '') {
      skipped++;
      return;
    }
    const code = parseCode(rawCode);
    if (!code.ok) return void problems.push({ where, message: `${fields.code}: ${code.message}` });
    const fail = (message: string) => problems.push({ where, message, code: code.value });
    const earlier = seen.get(code.value);
    if (earlier !== undefined) return void fail(`code ${code.value} is also ${earlier}'s`);
    seen.set(code.value, where);
    const name = parseName(text(r[fields.name]));
    const card = parseCard(fields.card ? text(r[fields.card]) : '');
    const rawActive = activeField ? text(r[activeField]) : '';
    const active = parseActive(rawActive, invert);
    if (!name.ok) return void fail(`${fields.name}: ${name.message}`);
    if (!card.ok) return void fail(`${fields.card}: ${card.message}`);
    if (!active.ok) return void fail(`${activeField}: ${active.message}`);
    const isActive = active.value;
    if (isActive && name.value === '') return void fail(`code ${code.value}: ${fields.name} is empty`);
    entries.push({ code: code.value, name: name.value, card: card.value, active: isActive, where });
  });
  return { entries, problems, rows: records.length, skipped };
}
