import type { EmployeeRecord } from '../hrms/users.js';
import { fieldType, type FieldType, type Payload, type PayloadValue } from './payload.js';

/**
 * Which fields of a payload differ from the employee record the HRMS already has, so that an
 * import sends only changes and a second run of the same file sends nothing.
 *
 * Records are compared under payload field names (what the simulator's fetch answers). A field
 * the fetched record does not carry at all counts as changed: sending it again is harmless,
 * skipping a real change is not.
 */
export function changedFields(
  payload: Payload,
  existing: EmployeeRecord,
  identifyBy: string,
  types: Readonly<Record<string, FieldType>> = {},
): string[] {
  const out: string[] = [];
  for (const [field, value] of Object.entries(payload)) {
    if (field === identifyBy) continue;
    if (!Object.hasOwn(existing, field) || !sameValue(fieldType(field, types), value, existing[field])) out.push(field);
  }
  return out;
}

/** Equal as the HRMS would store them: 0 and "0" alike, e-mail case ignored, null and "" alike, a date-time's date. */
export function sameValue(type: FieldType, ours: PayloadValue, theirs: unknown): boolean {
  const blank = (v: unknown) => v === null || v === undefined || (typeof v === 'string' && v.trim() === '');
  if (blank(ours) || blank(theirs)) return blank(ours) && blank(theirs);
  if (typeof theirs === 'object') return false;
  const a = String(ours).trim();
  const b = String(theirs as string | number | boolean).trim();
  switch (type) {
    case 'email':
      return a.toLowerCase() === b.toLowerCase();
    case 'date':
      return a === b.slice(0, 10);
    case 'integer':
    case 'number':
      return Number(a) === Number(b);
    case 'boolean':
      return truthy(a) === truthy(b);
    default:
      return a === b;
  }
}

function truthy(s: string): boolean {
  return ['true', '1', 'yes'].includes(s.toLowerCase());
}

/** The key an identifier is looked up by: e-mail addresses compare without case, as the HRMS does. */
export function idKey(value: string, identifyBy: string, types: Readonly<Record<string, FieldType>> = {}): string {
  const v = value.trim();
  return fieldType(identifyBy, types) === 'email' ? v.toLowerCase() : v;
}

/** Identifier key -> record, for the identifier payload field. */
export function indexRecords(
  records: readonly EmployeeRecord[],
  identifyBy: string,
  types: Readonly<Record<string, FieldType>> = {},
): Map<string, EmployeeRecord> {
  const map = new Map<string, EmployeeRecord>();
  for (const r of records) {
    const id = r[identifyBy];
    if (typeof id === 'string' || typeof id === 'number') map.set(idKey(String(id), identifyBy, types), r);
  }
  return map;
}
