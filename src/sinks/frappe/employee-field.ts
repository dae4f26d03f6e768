import { hrmsUrl, type HrmsHttp } from '../../hrms/http.js';
import { outsideText } from '../../hrms/text.js';
import type { SettingsVerdict } from '../types.js';
import { classifyCall, type CallContext } from './call-answer.js';
import { sharedCodes, sharedCodesProblem } from './shared-codes.js';
import type { FrappeSinkOptions } from './options.js';

/** One Employee row of two fields: a small answer. */
const LIST_ANSWER_BYTES = 64 * 1024;

/** `/api/resource/Employee?fields=["name","<field>"]&limit_page_length=1`: one Employee, read only. */
export function employeeFieldUrl(o: Pick<FrappeSinkOptions, 'baseUrl' | 'employeeFieldname'>): string {
  const fields = encodeURIComponent(JSON.stringify(['name', o.employeeFieldname]));
  return hrmsUrl(o.baseUrl, `/api/resource/Employee?fields=${fields}&limit_page_length=1`);
}

/**
 * Whether Frappe's Employee has the sink's employeeFieldname, asked as `check` asks (never by the
 * deliverer): one read of one Employee through Frappe's REST API (frappe.client.get_list), the
 * field asked beside `name`. Frappe 13 and older run the query and answer MariaDB's 1054 "Unknown
 * column" (HTTP 500); newer ones take a field that is not Employee's (or that the API user may not
 * read) out of the query first, and the row comes back without it. Either way every check-in
 * would fail, so `check` says the setting and the fix. A site with no Employee yet, or an API
 * user that may not read Employee (add_log_based_on_employee_field needs no such right), cannot
 * tell: said as not checked. With the field found, a second read lists the codes that more than
 * one Employee holds (shared-codes.ts): said as doubtful, with the fix. Never throws.
 */
export async function checkEmployeeField(
  http: HrmsHttp,
  o: Pick<FrappeSinkOptions, 'baseUrl' | 'employeeFieldname'>,
  token: string,
  ctx: CallContext,
  signal?: AbortSignal,
): Promise<SettingsVerdict> {
  const field = o.employeeFieldname;
  const url = employeeFieldUrl(o);
  const unchecked = (why: string): SettingsVerdict => ({
    kind: 'unchecked',
    said: `employeeFieldname ${field} not checked: ${why}`,
  });
  const missing = (how: string): SettingsVerdict => ({
    kind: 'wrong',
    problem: `Frappe's Employee has no field ${field} (${how}): every check-in would be refused`,
    setting: 'employeeFieldname',
    value: `the Employee field that holds the terminals' codes (attendance_device_id by default; a custom field is named as in Customize Form, e.g. custom_badge)`,
  });
  let res;
  try {
    res = await http.request({
      method: 'GET',
      url,
      headers: { authorization: `token ${token}`, accept: 'application/json' },
      maxBytes: LIST_ANSWER_BYTES,
      ...(signal ? { signal } : {}),
    });
  } catch (e) {
    return unchecked(outsideText(e instanceof Error ? e.message : String(e), ctx.scrub));
  }
  if (res.status >= 200 && res.status < 300) {
    const rows = dataRows(res.text);
    if (rows === undefined) return unchecked(`HTTP ${res.status} without Employee rows in "data"`);
    const row = rows[0];
    if (row === undefined) return unchecked('the site has no Employee yet to read it from');
    if (Object.hasOwn(row, field)) {
      const found = `found Employee's field ${field} (one Employee read)`;
      const codes = await sharedCodes(http, o, token, ctx.scrub, signal);
      if ('unread' in codes)
        return { kind: 'right', said: `${found}; codes shared by Employees not checked (${codes.unread})` };
      if (codes.shared.length === 0) return { kind: 'right', said: `${found}; no two Employees share a code` };
      return {
        kind: 'doubtful',
        said: found,
        problem: sharedCodesProblem(field, codes.shared),
        fix: `give each Employee a code of its own in ${field} (clear it on Employees who have left), then check again`,
      };
    }
    // Frappe 14+ leaves out of the read a field Employee lacks, and one above the API user's
    // permission level (apply_fieldlevel_read_permissions): the second is rare, and said.
    return missing(
      'one Employee read with it came back without it; unless the field is one the API user may not read (a higher Perm Level)',
    );
  }
  const a = classifyCall(res, { ...ctx, url });
  const said = (a.kind === 'failure' ? a.answer.message : a.result.message) ?? `HTTP ${res.status}`;
  if (/has no column/.test(said)) return missing(`the site's database said "Unknown column '${field}'"`);
  return unchecked(said);
}

/** The rows of a list answer `{"data": [{...}, ...]}`, or undefined when it is not one. */
function dataRows(text: string): Record<string, unknown>[] | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const data = v && typeof v === 'object' ? (v as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return undefined;
  return data.filter((r): r is Record<string, unknown> => !!r && typeof r === 'object' && !Array.isArray(r));
}
