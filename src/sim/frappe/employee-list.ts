import { thrown, unknownColumn, type FrappeReply, type FrappeVersion } from './messages.js';
import type { FrappeStore, SimEmployee } from './store.js';

/** `/api/resource/Employee` (the list of Employee documents, frappe/api: frappe.client.get_list). */
export const EMPLOYEE_LIST = /^\/api\/resource\/Employee\/?$/;

/**
 * GET /api/resource/Employee?fields=[...]&limit_page_length=n: frappe.get_list's DatabaseQuery
 * selects the fields asked. A field Employee lacks: on v13 the query runs and MariaDB's 1054
 * comes back (HTTP 500, as add_log_based_on_employee_field meets it); from v14 the fields the API
 * user may not read (apply_fieldlevel_read_permissions: only Employee's own fields are
 * permitted) are taken out of the query first, so the rows come back without it. Other fields
 * than Employee's are read from the simulator's employees as given.
 */
export function employeeList(url: URL, store: FrappeStore, version: FrappeVersion): FrappeReply {
  let fields: unknown = ['name'];
  const raw = url.searchParams.get('fields');
  if (raw !== null) {
    try {
      fields = JSON.parse(raw);
    } catch {
      fields = raw.split(',').map((f) => f.trim());
    }
  }
  if (!Array.isArray(fields) || !fields.every((f): f is string => typeof f === 'string'))
    return thrown(417, 'ValidationError', 'Invalid request arguments');
  const missing = fields.find((f) => !store.hasEmployeeField(f));
  if (missing !== undefined && version <= 13) return unknownColumn(missing);
  const asked = fields.filter((f) => store.hasEmployeeField(f));
  const filters = readFilters(url.searchParams.get('filters'));
  if (!filters) return thrown(417, 'ValidationError', 'Invalid request arguments');
  const limit = Number(url.searchParams.get('limit_page_length') ?? 20);
  const value = (e: SimEmployee, f: string) =>
    f === 'name' ? e.name : f === 'status' ? e.status : f === 'employee_name' ? e.employee_name : e.fields[f];
  const rows = [...store.employees.values()]
    .filter((e) => filters.every(([f, v]) => (v === IS_SET ? !!value(e, f) : value(e, f) === v)))
    .slice(0, Number.isInteger(limit) && limit > 0 ? limit : undefined)
    .map((e) => Object.fromEntries(asked.map((f) => [f, value(e, f) ?? null])));
  return { httpStatus: 200, body: { data: rows }, summary: `200 Employee list (${rows.length})` };
}

/** A filter [field, "is", "set"]: the field holds a value (frappe's "is set" operator). */
const IS_SET = Symbol('is set');

/**
 * `filters` as frappe.get_list takes the equalities: [["field", "=", "value"], ...],
 * [["field", "is", "set"]] or {"field": "value"}. Undefined when they are not those (the
 * simulator reads no other operator).
 */
function readFilters(raw: string | null): Array<[string, string | typeof IS_SET]> | undefined {
  if (raw === null) return [];
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (Array.isArray(v)) {
    const out: Array<[string, string | typeof IS_SET]> = [];
    for (const f of v) {
      const [field, op, value] = Array.isArray(f) ? (f as unknown[]) : [];
      if (typeof field === 'string' && op === 'is' && value === 'set') out.push([field, IS_SET]);
      else if (typeof field !== 'string' || op !== '=' || typeof value !== 'string') return undefined;
      else out.push([field, value]);
    }
    return out;
  }
  if (v && typeof v === 'object')
    return Object.entries(v).every(([, x]) => typeof x === 'string')
      ? (Object.entries(v) as Array<[string, string]>)
      : undefined;
  return undefined;
}
