import { hrmsUrl } from '../../hrms/http.js';

/**
 * The settings of one Frappe HR / ERPNext sink (`kind: frappe`), as the sender takes them. The
 * config (src/config) reads the same names from a `sinks:` entry; the API key and secret are not
 * here: they come from files, through the sink's token provider, as `api_key:api_secret`.
 */
export interface FrappeSinkOptions {
  /** The site's address, e.g. https://hr.example.com (no trailing /api). */
  baseUrl: string;
  /**
   * Where add_log_based_on_employee_field lives: `hrms` (Frappe HR app, ERPNext 14 and later) or
   * `erpnext` (ERPNext 13 and older, before HR moved out; the Frappe sync tool's ERPNEXT_VERSION <= 13).
   */
  method: 'hrms' | 'erpnext';
  /** The Employee field that holds the code enrolled on the terminals (default attendance_device_id). */
  employeeFieldname: string;
  /** Calls in flight at once, never more (default 4). */
  concurrency: number;
  /** Longest wait for one call's complete answer, after the connection is made. */
  timeoutMs: number;
  /** A private CA (PEM) trusted for the site instead of the public ones. */
  caFile?: string;
  /** Accept http:// to a host other than loopback (the key and secret then cross the network in clear). */
  allowInsecureHttp?: boolean;
  /**
   * The site's time zone (System Settings → Time Zone), IANA. Set: each punch's time is sent as
   * the site's wall clock at that instant (read in its terminal's zone); unset: as the terminal
   * recorded it (Frappe stores a check-in's time as given, in the site's zone, unconverted).
   */
  timezone?: string;
}

export const FRAPPE_DEFAULTS = {
  method: 'hrms',
  employeeFieldname: 'attendance_device_id',
  concurrency: 4,
  timeoutMs: 30_000,
} as const satisfies Partial<FrappeSinkOptions>;

/**
 * The whitelisted method's dotted path. It moved from ERPNext to the HRMS app in v14
 * (frappe/hrms hrms/hr/doctype/employee_checkin/employee_checkin.py; the Frappe sync tool's
 * erpnext_sync.py picks `hrms` when ERPNEXT_VERSION > 13, else `erpnext`).
 */
export function checkinMethod(method: FrappeSinkOptions['method']): string {
  return `${method}.hr.doctype.employee_checkin.employee_checkin.add_log_based_on_employee_field`;
}

/** `{baseUrl}/api/method/<dotted path>` (any query of baseUrl after the path: hrmsUrl). */
export function checkinUrl(o: Pick<FrappeSinkOptions, 'baseUrl' | 'method'>): string {
  return hrmsUrl(o.baseUrl, `/api/method/${checkinMethod(o.method)}`);
}

/** `{baseUrl}/api/resource/Shift Type/<name>`, the name encoded (it may hold spaces or a slash). */
export function shiftTypeUrl(baseUrl: string, name: string): string {
  return hrmsUrl(baseUrl, `/api/resource/Shift%20Type/${encodeURIComponent(name)}`);
}

/** The key and secret of `api_key:api_secret` (the secret may itself hold no colon; the key never does). */
export function splitToken(token: string): { key: string; secret: string } {
  const at = token.indexOf(':');
  return at < 0 ? { key: token, secret: '' } : { key: token.slice(0, at), secret: token.slice(at + 1) };
}

/** Why these options cannot be used, or undefined. The config checks the same with file and line. */
export function optionsProblem(o: FrappeSinkOptions): string | undefined {
  if (!URL.canParse(o.baseUrl)) return `baseUrl is not a URL`;
  const u = new URL(o.baseUrl);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'baseUrl must be an https:// URL';
  if (u.protocol === 'http:' && !isLoopback(u.hostname) && !o.allowInsecureHttp)
    return 'baseUrl must be an https:// URL (http:// is accepted for loopback hosts, or with allowInsecureHttp: true)';
  if (u.username || u.password) return 'baseUrl must not hold credentials (the key and secret come from files)';
  if (o.method !== 'hrms' && o.method !== 'erpnext') return 'method must be hrms or erpnext';
  if (!/^[A-Za-z0-9_]+$/.test(o.employeeFieldname))
    return 'employeeFieldname must be a field name (letters, digits, _)';
  if (!Number.isInteger(o.concurrency) || o.concurrency < 1 || o.concurrency > 64)
    return 'concurrency must be an integer from 1 to 64';
  return undefined;
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\./.test(h);
}
