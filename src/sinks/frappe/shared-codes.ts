import { hrmsUrl, type HrmsHttp } from '../../hrms/http.js';
import { outsideText } from '../../hrms/text.js';
import type { FrappeSinkOptions } from './options.js';

/** Every Employee's code and status: a few hundred bytes per hundred Employees. */
const LIST_BYTES = 4 * 1024 * 1024;
/** Codes named in the message at most (the status shows a check's detail whole, but keep it readable). */
const SHOWN = 5;

/**
 * `/api/resource/Employee?fields=["name","status","<field>"]&filters=[["<field>","is","set"]]&limit_page_length=0`:
 * every Employee that holds a code, read only.
 */
export function codedEmployeesUrl(o: Pick<FrappeSinkOptions, 'baseUrl' | 'employeeFieldname'>): string {
  const f = o.employeeFieldname;
  const fields = encodeURIComponent(JSON.stringify(['name', 'status', f]));
  const filters = encodeURIComponent(JSON.stringify([[f, 'is', 'set']]));
  return hrmsUrl(o.baseUrl, `/api/resource/Employee?fields=${fields}&filters=${filters}&limit_page_length=0`);
}

/**
 * The codes held by more than one Employee, each with its Employees ("HR-EMP-00003 (Left)").
 * frappe/hrms employee_checkin.py add_log_based_on_employee_field looks the code up with
 * frappe.db.get_values("Employee", {employee_fieldname: value}) and takes `employee[0]`, with no
 * filter on the status: a code on two Employees (a leaver's code given to a new hire, a copy
 * typed twice) gives every check-in of it to one of them, whichever the database returns first,
 * with no word to anyone. Only `check` asks (one list read, nothing written). `unread` when the
 * list cannot be read (said by the caller as not checked); never throws.
 */
export async function sharedCodes(
  http: HrmsHttp,
  o: Pick<FrappeSinkOptions, 'baseUrl' | 'employeeFieldname'>,
  token: string,
  scrub: (s: string) => string,
  signal?: AbortSignal,
): Promise<{ shared: Array<{ code: string; employees: string[] }> } | { unread: string }> {
  let data: unknown;
  try {
    const res = await http.request({
      method: 'GET',
      url: codedEmployeesUrl(o),
      headers: { authorization: `token ${token}`, accept: 'application/json' },
      maxBytes: LIST_BYTES,
      ...(signal ? { signal } : {}),
    });
    if (res.status < 200 || res.status >= 300) return { unread: `HTTP ${res.status}` };
    data = (JSON.parse(res.text) as { data?: unknown } | null)?.data;
  } catch (e) {
    return { unread: outsideText(e instanceof Error ? e.message : String(e), scrub) };
  }
  if (!Array.isArray(data)) return { unread: 'the Employee list came without "data"' };
  const byCode = new Map<string, { shown: string; employees: string[] }>();
  for (const row of data) {
    if (!row || typeof row !== 'object') continue;
    const { name, status } = row as Record<string, unknown>;
    const code = (row as Record<string, unknown>)[o.employeeFieldname];
    if (typeof name !== 'string' || (typeof code !== 'string' && typeof code !== 'number')) continue;
    // Frappe compares the code as the database does: MariaDB's collation ignores case and trailing spaces.
    const key = String(code).trim().toLowerCase();
    if (key === '') continue;
    const entry = byCode.get(key) ?? { shown: String(code).trim(), employees: [] };
    entry.employees.push(typeof status === 'string' && status !== 'Active' ? `${name} (${status})` : name);
    byCode.set(key, entry);
  }
  const shared = [...byCode.values()]
    .filter((c) => c.employees.length > 1)
    .map((c) => ({ code: outsideText(c.shown, scrub), employees: c.employees.map((e) => outsideText(e, scrub)) }));
  return { shared };
}

/** The problem in words, the first few codes named. */
export function sharedCodesProblem(
  field: string,
  shared: ReadonlyArray<{ code: string; employees: string[] }>,
): string {
  const shown = shared
    .slice(0, SHOWN)
    .map((s) => `${s.code}: ${s.employees.join(', ')}`)
    .join('; ');
  const more = shared.length > SHOWN ? `; and ${shared.length - SHOWN} more` : '';
  return `${shared.length} ${shared.length === 1 ? 'code is' : 'codes are'} in ${field} of more than one Employee (${shown}${more}): Frappe gives every check-in of such a code to one of them, whichever it finds first, whether that one has left or not`;
}
