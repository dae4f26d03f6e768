/**
 * The roster from the HRMS employee fetch (`sync-users --from-hrms`): each employee record is
 * read through `terminalUsers.fields`, which names the record field holding the code, the name,
 * and optionally the card and the active flag. `active: "!block"` reads the field inverted (the
 * contract's `block`: 0 active, 1 blocked). Employees without a code are skipped (counted, not an
 * error: not everyone punches); a field that cannot be read makes that employee a bad row.
 */
import type { EmployeeRecord } from '../hrms/users.js';
import type { Roster, RosterEntry, RosterProblem } from './types.js';
import { CodeRegister } from './duplicate-codes.js';
import { withoutSharedCards } from './duplicate-cards.js';
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
  const missing = fieldsNoRecordHolds(records, fields);
  const held = missing.filter((m) => m.key !== 'active');
  problems.push(...missing.map((m) => ({ where: `terminalUsers.fields.${m.key}`, message: m.message })));
  // A code or name field no employee has is a mapping mistake, not a roster where nobody punches:
  // every employee would be "skipped" or "empty" and the run would say nothing about why.
  if (held.length > 0) return { entries: [], problems, rows: records.length + unreadable.length, skipped: 0 };
  const codes = new CodeRegister();
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
    const twice = codes.check(code.value, where, (earlier) => `code ${code.value} is also ${earlier}'s`);
    if (twice) return void problems.push(twice);
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
  const used = codes.settle(entries, problems, (code, later) => `code ${code} is also ${later}'s`);
  const usable = withoutSharedCards(used, problems);
  return { entries: usable, problems, rows: records.length + unreadable.length, skipped };
}

function then<T>(text: Parsed<string>, parse: (t: string) => Parsed<T>): Parsed<T> {
  return text.ok ? parse(text.value) : text;
}

/**
 * The fields of `terminalUsers.fields` that no record of the answer holds at all (a name mistyped
 * in the config, `biometric_code` for `biometriccode`), each with the fields the records do hold.
 * Found by a new-user trial: a wrong code field ended in "no usable roster row" with no reason,
 * a wrong name field in "fullname is empty" for every employee. The card is left out: an HRMS
 * may omit a field nobody has a value for yet. An active field no record holds is said too
 * (everyone would count as active, and no leaver would ever be removed).
 */
function fieldsNoRecordHolds(
  records: readonly EmployeeRecord[],
  fields: RosterFields,
): { key: 'code' | 'name' | 'active'; message: string }[] {
  if (records.length === 0) return [];
  const present = new Set(records.flatMap((r) => Object.keys(r)));
  const shown = [...present].slice(0, 20).map((k) => JSON.stringify(k));
  const theirs = `the records hold ${shown.join(', ')}${present.size > 20 ? ', ...' : ''}`;
  const out: { key: 'code' | 'name' | 'active'; message: string }[] = [];
  const check = (key: 'code' | 'name' | 'active', field: string | undefined, what: string) => {
    if (field === undefined || present.has(field)) return;
    out.push({
      key,
      message: `no employee record of the HRMS has a field "${field}" (${theirs}): set terminalUsers.fields.${key} to the field that holds ${what}`,
    });
  };
  check('code', fields.code, "each person's terminal code");
  check('name', fields.name, 'the name to show on the terminals');
  check(
    'active',
    fields.active?.replace(/^!/, ''),
    'whether the person is active (everyone counts as active meanwhile)',
  );
  return out;
}
