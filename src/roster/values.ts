/**
 * The values of a roster row, read the same way from a CSV file and from the HRMS: the code, the
 * name, an optional card number and an optional active flag. Each reader returns the value or
 * a message saying what was expected and what was found.
 */

import { codeProblem } from '../punch.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = <T>(message: string): Parsed<T> => ({ ok: false, message });

/** Longest code a terminal holds (ZK: 24 bytes). */
export const MAX_CODE_BYTES = 24;
export const MAX_CARD = 0xffffffff;

/** Flags: what they mean depends on the field (`!block` reads them inverted). */
const FLAG_TRUE = new Set(['1', 'true', 'yes', 'y']);
const FLAG_FALSE = new Set(['0', 'false', 'no', 'n']);
/** Status words: they say what they mean whatever the field, so they are never inverted. */
const WORD_TRUE = new Set(['active', 'enabled']);
const WORD_FALSE = new Set(['inactive', 'blocked', 'disabled']);

export function parseCode(raw: string): Parsed<string> {
  const code = raw.trim();
  if (code === '') return bad('code is empty');
  // The one rule of src/punch.ts: a code put on a terminal is one its punches can be read back with.
  const problem = codeProblem(code);
  if (problem) return bad(`code ${JSON.stringify(code)}: ${problem}`);
  if (Buffer.byteLength(code) > MAX_CODE_BYTES) {
    return bad(`code "${code}" is ${Buffer.byteLength(code)} bytes; a terminal holds ${MAX_CODE_BYTES}`);
  }
  return ok(code);
}

/**
 * Control characters, the C1 ones too (U+0085 is a line break to some readers), and the
 * bidirectional controls (U+202E shows "exe.moc" as "com.exe"): what makes a name on a terminal,
 * in an ADMS command line or on the admin's screen other than it reads. Joiners and variation
 * selectors stay: emoji (a family, a skin tone) are made of them.
 */
const NAME_REFUSED = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/**
 * A name as terminals get it: blanks between words (a tab, a line break from an HRMS field)
 * become one space; a control or bidirectional character is a bad row. Every script, its
 * combining marks and emoji stay as they are.
 */
export function parseName(raw: string): Parsed<string> {
  const name = raw.trim().replace(/\s+/g, ' ');
  const m = NAME_REFUSED.exec(name);
  if (m) {
    const cp = m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    const what = /\p{Cc}/u.test(m[0]) ? 'a control character' : 'a bidirectional control';
    return bad(`name ${JSON.stringify(name)} holds ${what} (U+${cp})`);
  }
  return ok(name);
}

/** Decimal card number; blank = not given (null). */
export function parseCard(raw: string): Parsed<number | null> {
  const t = raw.trim();
  if (t === '') return ok(null);
  if (!/^\d+$/.test(t)) return bad(`card "${t}" is not a decimal number`);
  const n = Number(t);
  if (!Number.isSafeInteger(n) || n > MAX_CARD) return bad(`card ${t} is larger than ${MAX_CARD}`);
  return ok(n);
}

/**
 * The spelling of a card parseCard read, when it is not the number's own (leading zeros), and
 * short enough for any terminal that keeps cards as text (20 digits: the longest 64-bit number).
 */
export function cardSpelling(raw: string, card: number | null): { cardText: string } | Record<string, never> {
  const t = raw.trim();
  return card !== null && t !== String(card) && t.length <= 20 ? { cardText: t } : {};
}

/**
 * 1/0, true/false, yes/no (any case), or a status word (active/enabled, inactive/blocked/disabled);
 * blank = active. `inverted` (a field such as `block`, where 1 means blocked) turns the flags
 * round, never the words: "Blocked" in a block field is a leaver, "Active" is not.
 */
export function parseActive(raw: string, inverted = false): Parsed<boolean> {
  const t = raw.trim().toLowerCase();
  if (t === '') return ok(true);
  if (WORD_TRUE.has(t)) return ok(true);
  if (WORD_FALSE.has(t)) return ok(false);
  if (FLAG_TRUE.has(t)) return ok(!inverted);
  if (FLAG_FALSE.has(t)) return ok(inverted);
  return bad(`active "${raw.trim()}" is not one of 1/0, true/false, yes/no, active/blocked`);
}
