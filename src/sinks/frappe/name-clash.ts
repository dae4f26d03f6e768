import { hrmsUrl, type HrmsHttp } from '../../hrms/http.js';
import { outsideText } from '../../hrms/text.js';
import { secondsOf } from './frappe-json.js';
import type { FrappeSinkOptions } from './options.js';

/**
 * Frappe's 409. frappe/exceptions.py: NameError and its DuplicateEntryError are the only HTTP 409s,
 * and frappe/model/base_document.py db_insert raises DuplicateEntryError(doctype, name, e) only on
 * the database's primary-key violation: the name given to the new Employee Checkin is taken. Its
 * name comes from the naming series (EMP-CKIN-.MM.-.YYYY.-.######), so that is a series behind its
 * documents (a restore, an import of check-ins with their names); the failed request's rollback
 * takes the series' step back too, so every check-in after meets it alike, whatever the punch,
 * until someone moves the series on. A check-in alike in employee, time and log type is refused
 * before (validate_duplicate_log, a 417 with a link: call-answer.ts).
 *
 * Only a site whose check-ins are named from their own fields (a custom autoname) makes a 409 say
 * "this punch is there": the document of that name is read, and if it has this punch's employee
 * and time, the punch is there already (a duplicate, counted delivered). Otherwise no retry of the
 * punch cures it: the sink's request fails (held, uncharged, the fix said) rather than each punch
 * going back to the queue, unknown, for ever.
 */

/**
 * The name a 409's answer says is taken, as sent (`raw`): from the exception line
 * ("DuplicateEntryError: ('Employee Checkin', 'NAME', IntegrityError(...))", sent while the site
 * allows tracebacks) or from msgprint's words, where frappe.bold puts it in <strong> (translated
 * words, the name as it is).
 */
export function takenName(raw: string): string | undefined {
  const fromException = /DuplicateEntryError:?\s*\(\s*'Employee Checkin',\s*'([^'\\]{1,140})'/.exec(raw)?.[1];
  return fromException ?? /<(strong|b)>([^<\\]{1,140})<\/\1>/i.exec(raw)?.[2];
}

/** Small answers: one document, or the employees holding one code. */
const READ_BYTES = 64 * 1024;

export type ClashVerdict = { same: true } | { same: false; why: string };

/**
 * Whether the Employee Checkin `name` is this punch: its time is the time sent (to the second)
 * and its employee is one whose employeeFieldname holds the punch's code. Two reads, made only on
 * a 409. Never throws: a read that fails says why nothing could be compared.
 */
export async function clashIsThisPunch(
  http: HrmsHttp,
  o: Pick<FrappeSinkOptions, 'baseUrl' | 'employeeFieldname'>,
  a: { name: string; code: string; sentTime: string; token: string; scrub: (s: string) => string },
  signal?: AbortSignal,
): Promise<ClashVerdict> {
  const read = async (path: string): Promise<unknown> => {
    const res = await http.request({
      method: 'GET',
      url: hrmsUrl(o.baseUrl, path),
      headers: { authorization: `token ${a.token}`, accept: 'application/json' },
      maxBytes: READ_BYTES,
      ...(signal ? { signal } : {}),
    });
    if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}`);
    const data = (JSON.parse(res.text) as { data?: unknown } | null)?.data;
    if (data === undefined) throw new Error(`HTTP ${res.status} without "data"`);
    return data;
  };
  try {
    const doc = (await read(`/api/resource/Employee%20Checkin/${encodeURIComponent(a.name)}`)) as Record<
      string,
      unknown
    > | null;
    const employee = typeof doc?.employee === 'string' ? doc.employee : undefined;
    const time = typeof doc?.time === 'string' ? doc.time : undefined;
    if (employee === undefined || time === undefined)
      return { same: false, why: 'the check-in of that name came without employee and time' };
    if (secondsOf(time) !== secondsOf(a.sentTime))
      return { same: false, why: `Employee Checkin ${a.name} is another punch (another time)` };
    const filters = encodeURIComponent(JSON.stringify([[o.employeeFieldname, '=', a.code]]));
    const rows = await read(`/api/resource/Employee?filters=${filters}&fields=%5B%22name%22%5D&limit_page_length=0`);
    const names = Array.isArray(rows) ? rows.map((r) => (r as { name?: unknown } | null)?.name) : [];
    return names.includes(employee)
      ? { same: true }
      : { same: false, why: `Employee Checkin ${a.name} is another punch (another employee)` };
  } catch (e) {
    return {
      same: false,
      why: `the check-in of that name could not be read to compare (${outsideText(e instanceof Error ? e.message : String(e), a.scrub)})`,
    };
  }
}
