import { BIOMETRIC_FIELD, BLOCK_FIELD, DELETE_FIELD, EMPLOYEE_ID_FIELD, valueMatches } from './mapping.js';
import { MSG } from './messages.js';
import { failure, type Reply } from './reply.js';
import type { EmployeeRecord, EmployeeStore } from './store.js';
import type { FieldMapping } from './types.js';

export interface UsersContext {
  employees: EmployeeStore;
  mapping: FieldMapping;
  /** Master field names required on create. */
  mandatory: string[];
  /** Payload field that identifies the employee (username, email or employeeId). */
  identifyBy: string;
}

/** Payload fields whose values may belong to one employee only. */
const UNIQUE_FIELDS = ['username', 'email', EMPLOYEE_ID_FIELD, BIOMETRIC_FIELD];

const isAbsent = (v: unknown) => v === undefined || v === null || v === '';

/** `delete` is a control field: the text true (or JSON true) disables; false is ignored. */
function deleteFlag(v: unknown): boolean | 'bad' {
  if (v === undefined || v === false || (typeof v === 'string' && v.toLowerCase() === 'false')) return false;
  if (v === true || (typeof v === 'string' && v.toLowerCase() === 'true')) return true;
  return 'bad';
}

/** Type problems of every field of the body (all reported together). */
function fieldProblems(body: Record<string, unknown>, mapping: FieldMapping): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(body)) {
    if (name === DELETE_FIELD) continue;
    const m = mapping[name];
    if (!m) problems.push(MSG.notMapped(name));
    else if (!valueMatches(m.type, value)) problems.push(MSG.typeMismatch(name, m.type));
    else if (name === BLOCK_FIELD && value !== 0 && value !== 1)
      problems.push(`${BLOCK_FIELD}: value must be 0 (Active) or 1 (Blocked)`);
  }
  return problems;
}

function uniquenessProblems(
  body: Record<string, unknown>,
  self: EmployeeRecord | undefined,
  ctx: UsersContext,
): string[] {
  const problems: string[] = [];
  for (const name of UNIQUE_FIELDS) {
    const m = ctx.mapping[name];
    const v = body[name];
    if (!m || isAbsent(v) || name === ctx.identifyBy) continue;
    const other =
      name === EMPLOYEE_ID_FIELD
        ? (ctx.employees.findById(String(v)) ?? ctx.employees.findBy(m.field, v))
        : ctx.employees.findBy(m.field, v);
    if (other && other !== self)
      problems.push(`${name}: value ${String(v)} already belongs to employee ${other.employeeId}`);
  }
  return problems;
}

/** Body fields as master fields (block kept as the integer it carries). */
function toMaster(body: Record<string, unknown>, mapping: FieldMapping): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    const m = mapping[name];
    if (m) out[m.field] = value;
  }
  return out;
}

function recordData(rec: EmployeeRecord): Record<string, unknown> {
  return { ...structuredClone(rec.master), employeeId: rec.employeeId };
}

function blockedFrom(body: Record<string, unknown>): boolean | undefined {
  return body[BLOCK_FIELD] === undefined ? undefined : body[BLOCK_FIELD] === 1;
}

/**
 * POST updateUser: disable when `delete` is true; else update when the identifier exists, else create.
 * An unknown identifier in a body that carries none of the mandatory fields (other than the identifier)
 * reads as an update of a missing employee and is answered "Employee not found".
 */
export function applyUserOperation(body: unknown, ctx: UsersContext): Reply {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return failure(400, MSG.validation(['request body must be a JSON object']));
  }
  const b = body as Record<string, unknown>;
  const idMapping = ctx.mapping[ctx.identifyBy];
  const id = b[ctx.identifyBy];
  const del = deleteFlag(b[DELETE_FIELD]);
  const problems: string[] = [];
  if (del === 'bad') problems.push(`${DELETE_FIELD}: must be the text true`);
  if (isAbsent(id)) problems.push(`${ctx.identifyBy} is required to identify the employee`);

  if (del === true) {
    if (problems.length) return failure(400, MSG.validation(problems));
    if (idMapping && !valueMatches(idMapping.type, id))
      return failure(400, MSG.validation([MSG.typeMismatch(ctx.identifyBy, idMapping.type)]));
    const rec = idMapping ? ctx.employees.findBy(idMapping.field, id) : undefined;
    if (!rec) return failure(404, MSG.notFound(String(id)));
    const blockMap = ctx.mapping[BLOCK_FIELD];
    ctx.employees.update(rec, blockMap ? { [blockMap.field]: 1 } : {}, true);
    return {
      httpStatus: 200,
      body: { status: true, message: MSG.disabledEmployee },
      summary: `disabled ${rec.employeeId}`,
    };
  }

  problems.push(...fieldProblems(b, ctx.mapping));
  const existing = idMapping && !isAbsent(id) ? ctx.employees.findBy(idMapping.field, id) : undefined;
  problems.push(...uniquenessProblems(b, existing, ctx));

  if (existing) {
    if (problems.length) return failure(400, MSG.validation(problems));
    const { [DELETE_FIELD]: _d, ...fields } = b;
    ctx.employees.update(existing, toMaster(fields, ctx.mapping), blockedFrom(b));
    return {
      httpStatus: 200,
      body: { status: true, message: MSG.updated, data: recordData(existing) },
      summary: `updated ${existing.employeeId}`,
    };
  }

  const idMaster = idMapping?.field;
  const present = (master: string) =>
    Object.entries(ctx.mapping).some(([p, m]) => m.field === master && !isAbsent(b[p]));
  const others = ctx.mandatory.filter((m) => m !== idMaster);
  if (!isAbsent(id) && others.length > 0 && !others.some(present)) {
    return problems.length ? failure(400, MSG.validation(problems)) : failure(404, MSG.notFound(String(id)));
  }
  const reverse = new Map(Object.entries(ctx.mapping).map(([p, m]) => [m.field, p]));
  for (const m of ctx.mandatory)
    if (!present(m) && m !== idMaster) problems.push(`mandatory field ${m} (${reverse.get(m) ?? m}) is missing`);
  if (problems.length) return failure(400, MSG.validation(problems));

  const { [DELETE_FIELD]: _d, ...fields } = b;
  const employeeId =
    typeof b[EMPLOYEE_ID_FIELD] === 'string' && b[EMPLOYEE_ID_FIELD] !== ''
      ? b[EMPLOYEE_ID_FIELD]
      : ctx.employees.nextId();
  const master = toMaster(fields, ctx.mapping);
  const idField = ctx.mapping[EMPLOYEE_ID_FIELD];
  if (idField) master[idField.field] = employeeId;
  const blockMap = ctx.mapping[BLOCK_FIELD];
  if (blockMap && master[blockMap.field] === undefined) master[blockMap.field] = 0;
  const rec: EmployeeRecord = { employeeId, master, blocked: b[BLOCK_FIELD] === 1 };
  ctx.employees.add(rec);
  return {
    httpStatus: 200,
    body: { status: true, message: MSG.created, data: recordData(rec) },
    summary: `created ${employeeId}`,
  };
}

const sameText = (a: unknown, b: string) =>
  a !== undefined && a !== null && String(a).toLowerCase() === b.toLowerCase();

/**
 * Fetch Employee Master Data: filters status (active|blocked|all), department, designation,
 * and any mapped payload field by equality (case-insensitive).
 */
export function handleFetch(params: Map<string, string>, ctx: UsersContext): Reply {
  const problems: string[] = [];
  const tests: Array<(r: EmployeeRecord) => boolean> = [];
  for (const [key, value] of params) {
    if (value === '') continue;
    if (key === 'status') {
      const v = value.toLowerCase();
      if (v === 'active') tests.push((r) => !r.blocked);
      else if (v === 'blocked' || v === 'disabled') tests.push((r) => r.blocked);
      else if (v !== 'all') problems.push('status: must be active, blocked or all');
    } else if (key === 'department' || key === 'designation') {
      const master = key === 'department' ? 'Department' : 'Designation';
      tests.push((r) => sameText(r.master[master], value));
    } else if (key === EMPLOYEE_ID_FIELD && !ctx.mapping[key]) {
      tests.push((r) => r.employeeId === value);
    } else if (ctx.mapping[key]) {
      const master = ctx.mapping[key].field;
      tests.push((r) => sameText(r.master[master], value));
    } else {
      problems.push(`filter ${key} is not supported`);
    }
  }
  if (problems.length) return failure(400, MSG.validation(problems));
  const data = ctx.employees
    .all()
    .filter((r) => tests.every((t) => t(r)))
    .map((r) => ctx.employees.payloadView(r));
  return { httpStatus: 200, body: { status: true, data }, summary: `employees=${data.length}` };
}
