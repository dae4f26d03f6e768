/**
 * The roster from the HRMS employee fetch (`sync-users --from-hrms`): each employee record is
 * read through `terminalUsers.fields`, which names the record field holding the code, the name,
 * and optionally the card and the active flag. `active: "!block"` reads the field inverted (the
 * contract's `block`: 0 active, 1 blocked). Employees without a code are skipped (counted, not an
 * error: not everyone punches); a field that cannot be read makes that employee a bad row.
 */
import type { EmployeeRecord } from '../hrms/users.js';
import type { Roster, RosterEntry, RosterProblem } from './types.js';
import { cardSpelling, parseActive, parseCard, parseCode, parseName, type Parsed } from './values.js';

export interface RosterFields {
  code: string;
  name: string;
  card?: string;
  active?: string;
}

/**
 * A record field as text: absent and null are blank, numbers are their digits. A list or an
 * object is never read as text (its JSON would become a name or a code on the terminals), nor
 * is true/false except in the active flag.
 */
function fieldText(v: unknown, flag = false): Parsed<string> {
  if (v === undefined || v === null) return { ok: true, value: '' };
  if (typeof v === 'string') return { ok: true, value: v };
  // JSON numbers past 2^53 arrive rounded (12345678901234567891 reads as ...7000): another
  // person's code, or a card no reader gives. Such a value must come as text.
  if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v))
    return {
      ok: false,
      message: `the number ${String(v)} is too large to be read exactly: the HRMS must send it as text`,
    };
  if (typeof v === 'number') return { ok: true, value: String(v) };
  if (typeof v === 'boolean' && flag) return { ok: true, value: String(v) };
  const found = Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : String(v);
  return { ok: false, message: `expected text or a number, found ${found}` };
}

/**
 * `unreadable`: entries of the HRMS's list that were not employee objects. Each is a bad row
 * without a code: who they are is not known, so nobody is removed as absent in that run.
 */
export function rosterFromEmployees(
  records: readonly EmployeeRecord[],
  fields: RosterFields,
  unreadable: readonly { position: number; found: string }[] = [],
): Roster {
  const entries: RosterEntry[] = [];
  const problems: RosterProblem[] = unreadable.map((u) => ({
    where: `HRMS list entry ${u.position}`,
    message: `expected an employee record, found ${u.found}`,
  }));
  const seen = new Map<string, string>();
  let skipped = 0;
  const invert = fields.active?.startsWith('!') ?? false;
  const activeField = fields.active?.replace(/^!/, '');
  records.forEach((r, i) => {
    const who = typeof r.username === 'string' && r.username !== '' ? ` (${r.username})` : '';
    const where = `HRMS employee ${i + 1}${who}`;
    const codeText = fieldText(r[fields.code]);
    if (!codeText.ok) return void problems.push({ where, message: `${fields.code}: ${codeText.message}` });
    const rawCode = codeText.value.trim();
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
    const name = then(fieldText(r[fields.name]), parseName);
    const cardText: Parsed<string> = fields.card ? fieldText(r[fields.card]) : { ok: true, value: '' };
    const card = then(cardText, parseCard);
    const active = then(activeField ? fieldText(r[activeField], true) : { ok: true, value: '' }, (t) =>
      parseActive(t, invert),
    );
    if (!name.ok) return void fail(`${fields.name}: ${name.message}`);
    if (!card.ok) return void fail(`${fields.card}: ${card.message}`);
    if (!active.ok) return void fail(`${activeField}: ${active.message}`);
    const isActive = active.value;
    if (isActive && name.value === '') return void fail(`code ${code.value}: ${fields.name} is empty`);
    entries.push({
      code: code.value,
      name: name.value,
      card: card.value,
      ...(cardText.ok ? cardSpelling(cardText.value, card.value) : {}),
      active: isActive,
      where,
    });
  });
  return { entries, problems, rows: records.length + unreadable.length, skipped };
}

function then<T>(text: Parsed<string>, parse: (t: string) => Parsed<T>): Parsed<T> {
  return text.ok ? parse(text.value) : text;
}
