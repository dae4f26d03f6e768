/**
 * Employee payloads for the HRMS user operations, with the seed's types:
 * `block` an integer, `Role` with a capital R, `dob` YYYY-MM-DD (a real date), `panAttach` a URL,
 * `delete` the string "true". Custom fields pass through unchanged as strings unless a type hint
 * names them.
 */

/** A value as sent in the JSON body. */
export type PayloadValue = string | number | boolean | null;
export type Payload = Record<string, PayloadValue>;

/** How a raw text value (command line or CSV cell) becomes a JSON value. */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'email' | 'url' | 'nullable-string';

/** The seed's employee fields and their types; payload names are case-sensitive (`Role`). */
export const KNOWN_FIELD_TYPES: Readonly<Record<string, FieldType>> = {
  username: 'string',
  name: 'string',
  email: 'email',
  gender: 'string',
  dob: 'date',
  Role: 'string',
  zone: 'nullable-string',
  block: 'integer',
  panAttach: 'url',
};

export interface FieldError {
  field: string;
  message: string;
}

export type Coerced = { ok: true; value: PayloadValue } | { ok: false; message: string };

const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:".]{2,}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for `YYYY-MM-DD` naming a day that exists (no 2023-02-30). */
export function isRealDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

export function isEmail(s: string): boolean {
  return EMAIL.test(s);
}

/** An absolute http(s) URL: a document link the HRMS can fetch. */
export function isHttpUrl(s: string): boolean {
  if (!URL.canParse(s)) return false;
  const u = new URL(s);
  return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname !== '';
}

/** The type a field is sent with: a configured hint first, then the seed's, else string. */
export function fieldType(field: string, hints: Readonly<Record<string, FieldType>> = {}): FieldType {
  return hints[field] ?? KNOWN_FIELD_TYPES[field] ?? 'string';
}

/**
 * Turns one raw text value into the JSON value of its field type, or says why it cannot.
 * Leading and trailing blanks are dropped: in HR exports they are accidents, never data.
 */
export function coerce(type: FieldType, raw: string): Coerced {
  const s = raw.trim();
  switch (type) {
    case 'string':
      return { ok: true, value: s };
    case 'nullable-string':
      return { ok: true, value: s.toLowerCase() === 'null' ? null : s };
    case 'integer':
      return /^[+-]?\d{1,15}$/.test(s)
        ? { ok: true, value: Number(s) }
        : { ok: false, message: `must be an integer, got "${raw}"` };
    case 'number': {
      const n = Number(s);
      return s !== '' && Number.isFinite(n)
        ? { ok: true, value: n }
        : { ok: false, message: `must be a number, got "${raw}"` };
    }
    case 'boolean': {
      const l = s.toLowerCase();
      if (l === 'true' || l === '1' || l === 'yes') return { ok: true, value: true };
      if (l === 'false' || l === '0' || l === 'no') return { ok: true, value: false };
      return { ok: false, message: `must be true or false, got "${raw}"` };
    }
    case 'date':
      return isRealDate(s)
        ? { ok: true, value: s }
        : { ok: false, message: `must be a real date YYYY-MM-DD, got "${raw}"` };
    case 'email':
      return isEmail(s) ? { ok: true, value: s } : { ok: false, message: `must be an e-mail address, got "${raw}"` };
    case 'url':
      return isHttpUrl(s) ? { ok: true, value: s } : { ok: false, message: `must be an http(s) URL, got "${raw}"` };
  }
}

/**
 * Control characters other than a tab or a line break (ESC, BEL, NUL, the C1 ones), and the
 * bidirectional controls (U+202E shows "exe.gpj" as "jpg.exe"): text that acts instead of reading
 * as what it says, on the admin's screen, in the HRMS and on the terminals the roster writes to.
 * Found by a trial: `employees import` sent such names to the HRMS as they were.
 */
const ACTING = /(?![\t\n\r])\p{Cc}|[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/** Why a text value is refused (plain words, the character as U+XXXX), or undefined. */
function actingCharacter(text: string): string | undefined {
  const m = ACTING.exec(text);
  if (!m) return undefined;
  const cp = m[0].codePointAt(0)!;
  const what = cp < 0xa0 ? 'a control character' : 'a bidirectional control';
  return `holds ${what} (U+${cp.toString(16).toUpperCase().padStart(4, '0')})`;
}

export interface BuildOptions {
  /** Per-field type hints for custom fields (config `employees.types`, when present). */
  types?: Readonly<Record<string, FieldType>>;
  /** Payload fields that must be present and non-empty. */
  required?: readonly string[];
}

export interface Built {
  payload: Payload;
  errors: FieldError[];
}

/**
 * Builds a payload from raw text values (already under their payload names).
 * An empty value means "not given" and is left out: in an update that leaves the field unchanged,
 * which is what a blank CSV cell most likely means.
 */
export function buildPayload(raw: Readonly<Record<string, string | undefined>>, opts: BuildOptions = {}): Built {
  const payload: Payload = {};
  const errors: FieldError[] = [];
  for (const [field, value] of Object.entries(raw)) {
    if (value === undefined || value.trim() === '') continue;
    if (field === 'delete') {
      errors.push({ field, message: 'is only sent by "employees disable"' });
      continue;
    }
    const c = coerce(fieldType(field, opts.types), value);
    const acts = c.ok && typeof c.value === 'string' ? actingCharacter(c.value) : undefined;
    if (acts) errors.push({ field, message: acts });
    else if (c.ok) payload[field] = c.value;
    else errors.push({ field, message: c.message });
  }
  for (const field of opts.required ?? []) {
    if (!(field in payload) && !errors.some((e) => e.field === field)) errors.push({ field, message: 'is required' });
  }
  return { payload, errors };
}

/** The seed's disable body: `{"delete": "true", <identifier>: value}`. */
export function disablePayload(identifier: string, value: string): Payload {
  return { delete: 'true', [identifier]: value };
}

/** `key=value` from `--field`; the value may itself contain `=`. */
export function parseFieldOption(spec: string): { key: string; value: string } | undefined {
  const i = spec.indexOf('=');
  if (i <= 0) return undefined;
  return { key: spec.slice(0, i).trim(), value: spec.slice(i + 1) };
}

export function formatErrors(errors: readonly FieldError[]): string {
  return errors.map((e) => `${e.field} ${e.message}`).join('; ');
}

/** Reads optional config keys the schema may not have yet, without trusting their shape. */
export function readEmployeeExtras(employees: unknown): { types: Record<string, FieldType>; identifyBy: string } {
  const e = (employees ?? {}) as { types?: unknown; identifyBy?: unknown };
  const types: Record<string, FieldType> = {};
  const valid = new Set<string>(['string', 'integer', 'number', 'boolean', 'date', 'email', 'url', 'nullable-string']);
  if (e.types && typeof e.types === 'object') {
    for (const [k, v] of Object.entries(e.types as Record<string, unknown>))
      if (typeof v === 'string' && valid.has(v)) types[k] = v as FieldType;
  }
  const identifyBy = typeof e.identifyBy === 'string' && e.identifyBy !== '' ? e.identifyBy : 'username';
  return { types, identifyBy };
}
