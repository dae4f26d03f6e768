import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { FieldMapping, FieldType } from './types.js';

export const FIELD_TYPES = ['string', 'email', 'date', 'integer', 'url', 'boolean', 'nullable-string'] as const;

/** Control field of a disable request; never mapped. */
export const DELETE_FIELD = 'delete';
/** The seed: user status "is carried by the payload field `block`" (0 Active, 1 Blocked here). */
export const BLOCK_FIELD = 'block';
/** Payload field the attendance side knows employees by. */
export const BIOMETRIC_FIELD = 'biometriccode';
export const EMPLOYEE_ID_FIELD = 'employeeId';

/** The seed's illustrative table, plus the custom fields an attendance integration needs. */
export function defaultMapping(): FieldMapping {
  return {
    username: { field: 'Username', type: 'string' },
    name: { field: 'Employee Name', type: 'string' },
    email: { field: 'Official Email', type: 'email' },
    gender: { field: 'Gender', type: 'string' },
    dob: { field: 'Date of Birth', type: 'date' },
    Role: { field: 'Designation', type: 'string' },
    zone: { field: 'Zone', type: 'nullable-string' },
    block: { field: 'User Status', type: 'integer' },
    panAttach: { field: 'PAN Document', type: 'url' },
    biometriccode: { field: 'Biometric Code', type: 'string' },
    department: { field: 'Department', type: 'string' },
    employeeId: { field: 'Employee ID', type: 'string' },
  };
}

export const DEFAULT_MANDATORY = ['Username', 'Employee Name', 'Official Email'];

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = m.slice(1).map(Number) as [number, number, number];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

function isHttpUrl(s: string): boolean {
  if (!URL.canParse(s)) return false;
  const p = new URL(s).protocol;
  return p === 'http:' || p === 'https:';
}

/** True when a JSON value fits a master field type. Strict on purpose: an integrator must learn of "0" vs 0. */
export function valueMatches(type: FieldType, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'nullable-string':
      return v === null || typeof v === 'string';
    case 'email':
      return typeof v === 'string' && EMAIL.test(v);
    case 'date':
      return typeof v === 'string' && isDate(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'url':
      return typeof v === 'string' && isHttpUrl(v);
    case 'boolean':
      return typeof v === 'boolean';
  }
}

/** Turns CSV text into the JSON value a client would send for that type ('' means absent). */
export function coerceText(type: FieldType, text: string): unknown {
  if (text === '') return type === 'nullable-string' ? null : undefined;
  if (type === 'integer' && /^-?\d+$/.test(text)) return Number(text);
  if (type === 'boolean' && /^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  return text;
}

/** `payload: Master Field` is shorthand for `payload: { field: Master Field, type: string }`. */
const mappingFileSchema = z.record(
  z.string().min(1),
  z.preprocess(
    (v) => (typeof v === 'string' ? { field: v } : v),
    z.strictObject({ field: z.string().min(1), type: z.enum(FIELD_TYPES).default('string') }),
  ),
);

/** Validates a mapping object (from a file or an option); throws `path: message` lines. */
export function parseMapping(raw: unknown): FieldMapping {
  const r = mappingFileSchema.safeParse(raw);
  if (!r.success) {
    throw new Error(r.error.issues.map((i) => `${i.path.join('.') || '(mapping)'}: ${i.message}`).join('\n'));
  }
  checkMapping(r.data);
  return r.data;
}

export function checkMapping(m: FieldMapping): void {
  const problems: string[] = [];
  if (DELETE_FIELD in m) problems.push(`${DELETE_FIELD}: a control field, it cannot be mapped`);
  const seen = new Map<string, string>();
  for (const [payload, { field }] of Object.entries(m)) {
    const other = seen.get(field);
    if (other !== undefined) problems.push(`${payload}: master field "${field}" is already mapped from ${other}`);
    seen.set(field, payload);
  }
  const block = m[BLOCK_FIELD];
  if (block && block.type !== 'integer') problems.push(`${BLOCK_FIELD}: must be mapped with type integer`);
  if (problems.length) throw new Error(problems.join('\n'));
}

/** Reads a mapping file: YAML (which includes JSON) keyed by payload field name. */
export function loadMappingFile(path: string): FieldMapping {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    return parseMapping(raw);
  } catch (e) {
    throw new Error(`${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Mandatory names may be given as master or payload names; answers master names. */
export function resolveMandatory(names: string[], m: FieldMapping): string[] {
  const masters = new Set(Object.values(m).map((f) => f.field));
  return names.map((n) => {
    if (masters.has(n)) return n;
    const viaPayload = m[n];
    if (viaPayload) return viaPayload.field;
    throw new Error(`mandatory field "${n}" is neither a mapped master field nor a mapped payload field`);
  });
}

/** Master field name -> payload field name. */
export function reverseMapping(m: FieldMapping): Map<string, string> {
  return new Map(Object.entries(m).map(([payload, { field }]) => [field, payload]));
}
