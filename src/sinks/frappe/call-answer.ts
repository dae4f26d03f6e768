import type { AttendanceAnswer, PunchResult } from '../../hrms/answer.js';
import type { HttpHeaders } from '../../hrms/http.js';
import { outsideText, pageExcerpt, parseRetryAfter } from '../../hrms/text.js';
import { frappeSaid, readFrappeBody, secondsOf, type FrappeBody } from './frappe-json.js';
import { takenName } from './name-clash.js';

/**
 * What one call about one punch came to: a verdict on the punch (`result`), or a failure of the
 * call that says nothing about the punch (`failure`, an AttendanceAnswer other than `answered`:
 * the sender answers the whole batch with it when every call failed the same way).
 */
export type CallAnswer =
  | { kind: 'result'; result: PunchResult; /** The new document's name, when one was made. */ docName?: string }
  | { kind: 'failure'; answer: FailureAnswer };
/* A failure that is transient after sending becomes, beside punches that passed, that punch's `unknown` result. */
export type FailureAnswer = Exclude<AttendanceAnswer, { kind: 'answered' }>;

/**
 * Frappe's duplicate refusal, from hrms EmployeeCheckin.validate_duplicate_log: "This employee
 * already has a log with the same timestamp.{link}" (same employee, time and log_type). The Frappe
 * sync tool treats it as done (its allowed_exceptions 3).
 */
export const DUPLICATE_SAID = /already has a log with the same timestamp/i;
/**
 * The same refusal in any language: its words are translated into the site's (or the API user's)
 * language, "Dieser Mitarbeiter hat bereits ein Protokoll...", but the desk link it ends with is not:
 * frappe.get_desk_link("Employee Checkin", name) is `/app/Form/Employee Checkin/<name>` (v14, v15),
 * `#Form/Employee Checkin/<name>` (v12, v13) or, since v16 moved the desk to /desk and dropped
 * `Form` from its routes (frappe/frappe PR #36731), `/desk/employee-checkin/<name>` (`/app/...`
 * where a site still links there). In add_log_based_on_employee_field no other refusal links to
 * an existing check-in.
 */
const DUPLICATE_LINK = /(?:^|[#/])Form\/Employee(?: |%20|\+)Checkin\/|\/(?:app|desk)\/employee-checkin\/[^/?#]/i;
/**
 * A duplicate's result message. The result is marked `duplicate` itself (the punch counts as
 * delivered, never as refused), whatever delivery.patterns.duplicate says.
 */
export const DUPLICATE_PREFIX = 'duplicate: Frappe already has this check-in: ';

/**
 * Failures of the database under load, worth the same call again later whatever the status they
 * come with (500, 508, or 417 where an app wraps them in frappe.throw): frappe/exceptions.py
 * QueryTimeoutError and QueryDeadlockError (MariaDB 1205 "Lock wait timeout exceeded; try
 * restarting transaction", 1213 "Deadlock found when trying to get lock"), TimestampMismatchError
 * ("Document has been modified after you have opened it"), DocumentLockedError ("This document is
 * currently locked and queued for execution"), TooManyWritesError.
 */
const TRANSIENT_TYPES = new Set([
  'QueryTimeoutError',
  'QueryDeadlockError',
  'TimestampMismatchError',
  'DocumentLockedError',
  'TooManyWritesError',
  'OperationalError',
  'InterfaceError',
  'SessionStopped',
  // PostgreSQL's, by psycopg's class names (SQLSTATE 40001, 40P01, 55P03, 57014), where Frappe does
  // not turn them into its own (frappe/database/postgres/database.py is_deadlocked, is_timedout).
  'SerializationFailure',
  'DeadlockDetected',
  'LockNotAvailable',
  'QueryCanceled',
  'QueryCanceledError',
]);
/**
 * The same in words. Frappe's own messages and the database's are in the site's language (or the
 * database's: MariaDB and PostgreSQL lc_messages), so the words are English only; the type above
 * (exc_type: the exception class's name, frappe/utils/response.py report_error) and MariaDB's
 * code (TRANSIENT_CODE) tell them in any language.
 */
const TRANSIENT_SAID =
  /lock wait timeout|deadlock|try restarting transaction|has been modified after you have opened it|currently locked|TimestampMismatch|QueryTimeout|too many writes|server has gone away|lost connection to (mysql|mariadb)/i;
/**
 * MariaDB's codes, as pymysql's error prints them in any language, `(1205, '...')`, where an app
 * wrapped the error in frappe.throw (a 417 ValidationError): 1205 lock wait timeout, 1213 deadlock,
 * 2006 server gone away, 2013 connection lost during the query.
 */
const TRANSIENT_CODE = /\((?:1205|1213|2006|2013),\s*["']/;
/** frappe/exceptions.py: AuthenticationError and SessionExpired are 401, PermissionError 403. */
const AUTH_TYPES = new Set(['AuthenticationError', 'SessionExpired', 'PermissionError', 'InvalidAuthorizationToken']);
/**
 * The method is not there: frappe/handler.py execute_cmd answers "Failed to get method for command
 * <cmd> with <error>" (a ValidationError, 417) when the module cannot be imported (the `hrms` app is
 * not installed, or an ERPNext 14+ site asked for the old `erpnext.hr...` path); older sites answer
 * ModuleNotFoundError / AttributeError, newer ones 404.
 */
const NO_METHOD_SAID =
  /failed to get method|no module named|has no attribute 'add_log_based_on_employee_field'|not whitelisted/i;
const NO_METHOD_TYPES = new Set(['ModuleNotFoundError', 'ImportError', 'AttributeError', 'DoesNotExistError']);
/**
 * hrms EmployeeCheckin.validate_distance_from_shift_location (v15+): with HR Settings → Allow
 * Geolocation Tracking on (for the mobile app), every check-in without latitude and longitude is
 * refused with these words. It is the site's setting, not a verdict on the punch: refused, each
 * punch would go `dead` while the setting stays. (Said in another language, it stays a refusal.)
 */
const NO_LOCATION_SAID = /Latitude and longitude values are required for checking in/i;
/**
 * A column the site's database lacks: MariaDB's 1054 "Unknown column 'x' in ..." (pymysql
 * OperationalError, HTTP 500) or PostgreSQL's 'column "x" does not exist' (UndefinedColumn). In
 * add_log_based_on_employee_field it is the sink's employee field when Employee has none of that
 * name (frappe.db.get_values re-raises it: frappe/database/database.py, v14-v15), else a site whose
 * apps were updated without `bench migrate`. On MariaDB its exc_type is that of a lost connection
 * too, so only the text (sent while allow_error_traceback is on, Frappe's default) tells that no
 * retry cures it: its code (NO_COLUMN_CODE) in any language, these English words otherwise.
 */
const NO_COLUMN_SAID = /\(1054, ["']Unknown column '([^']{1,200})'|column "([^"]{1,200})" does not exist/i;
/**
 * The same in any language: MariaDB's code 1054 before its message, whose first quoted name is the
 * column ("Unbekanntes Tabellenfeld 'x' in where clause"); PostgreSQL's UndefinedColumn (psycopg's
 * class for SQLSTATE 42703) as exc_type, with the column the first name its message quotes, in
 * any of the quotes its translations use (»x«, « x », "x"), or unquoted as English names a
 * qualified one (column tabEmployee.x does not exist).
 */
const NO_COLUMN_CODE = /\(1054,\s*["'][^']*'([^']{1,200})'/;
const NO_COLUMN_TYPES = new Set(['UndefinedColumn']);
const QUOTED_NAME = /["»«„“”]\s?([^"»«„“”\s]{1,200})\s?["»«„“”]|column (\S{1,200}) does not exist/i;

export interface CallContext {
  url: string;
  /** The `timestamp` the call sent (a check-in's): the new document must have it. */
  sentTime?: string;
  /** What the sink is called in messages ("sink frappe-hr"). */
  where: string;
  scrub: (s: string) => string;
}

/** Classifies Frappe's HTTP answer to one add_log_based_on_employee_field call. */
export function classifyCall(
  res: { status: number; headers: HttpHeaders; text: string },
  ctx: CallContext,
): CallAnswer {
  const { status } = res;
  const clean = (s: string) => outsideText(s, ctx.scrub);
  const body = readFrappeBody(res.text);
  const said = body ? frappeSaid(body) : undefined;
  const quoted = said !== undefined ? `: ${clean(said)}` : '';

  if (status >= 300 && status < 400) return failure(redirect(status, res.headers, ctx, clean));
  if (status === 407)
    return failure({
      kind: 'request-failed',
      httpStatus: 407,
      message: `the proxy refused the credentials (HTTP 407): check the proxy settings of ${ctx.where}`,
    });
  if (status >= 200 && status < 300) {
    // The document made must be this punch's: a `time` that is another (a cache in front of the
    // site answering every call with one document) confirms nothing.
    if (body?.docName !== undefined && body.docTime !== undefined && ctx.sentTime !== undefined) {
      if (secondsOf(body.docTime) !== secondsOf(ctx.sentTime))
        return failure({
          kind: 'bad-reply',
          httpStatus: status,
          message: `HTTP ${status} with Employee Checkin ${clean(body.docName)} at ${clean(body.docTime)}, not the check-in sent (${ctx.sentTime}): not taken as recorded`,
        });
    }
    if (body?.docName !== undefined)
      return {
        kind: 'result',
        result: { status: true, message: `Employee Checkin ${clean(body.docName)}` },
        docName: body.docName,
      };
    if (!body) return failure(notFrappe(status, res.text, ctx, clean));
    // JSON without the new document: the call may or may not have recorded it.
    return failure({
      kind: 'bad-reply',
      httpStatus: status,
      message: `HTTP ${status} without the new Employee Checkin in "message"${quoted}`,
    });
  }
  if (status === 401 || (body?.excType !== undefined && AUTH_TYPES.has(body.excType)) || (status === 403 && body)) {
    const rights = status === 403 || body?.excType === 'PermissionError';
    // Frappe often says no more than the exception's name, which the parentheses already give.
    const more = said !== undefined && said !== body?.excType ? quoted : '';
    return failure({
      kind: 'auth',
      httpStatus: status,
      message: rights
        ? `Frappe refused the API user the right (HTTP ${status}${body?.excType ? ` ${body.excType}` : ''})${more}: give the API user the HR User role (create Employee Checkin, read Employee, write Shift Type)`
        : `Frappe refused the API key and secret (HTTP ${status}${body?.excType ? ` ${body.excType}` : ''})${more}: check the key and secret files of ${ctx.where}`,
    });
  }
  if (status === 408 || status === 429) {
    const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
    return failure({
      kind: 'transient',
      httpStatus: status,
      afterSending: false,
      message: `HTTP ${status}${quoted}`,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  const column = body ? missingColumn(body) : undefined;
  if (column !== undefined)
    return failure({
      kind: 'request-failed',
      httpStatus: status,
      message: `${column === '' ? "the site's database lacks a column the call names" : `the site's database has no column '${clean(column)}'`} (HTTP ${status}${quoted}): if that is employeeFieldname of ${ctx.where}, set it to the Employee field that holds the terminals' codes (attendance_device_id by default); otherwise the site needs bench migrate`,
    });
  if (isTransient(body)) return unknown(`HTTP ${status} ${body?.excType ?? ''}`.trim() + quoted, status, res.headers);
  if (status === 404 || (body && isNoMethod(body)))
    return failure({
      kind: 'request-failed',
      httpStatus: status,
      message: `Frappe does not know ${new URL(ctx.url).pathname} (HTTP ${status}${quoted}): check method (hrms for Frappe HR / ERPNext 14 and later, erpnext for ERPNext 13 and older) and baseUrl of ${ctx.where}`,
    });
  if (status >= 500)
    return unknown(`HTTP ${status}${body?.excType ? ` ${body.excType}` : ''}${quoted}`, status, res.headers);
  if (!body) return failure(notFrappe(status, res.text, ctx, clean));
  // 409: the new document's name is taken (name-clash.ts): no retry of the punch cures it.
  if (status === 409) return failure(nameRefused(body, res.text, ctx, clean, quoted));
  // Frappe's refusals carry its marks: the exception's type, its line, or what frappe.throw said
  // (`_server_messages`). JSON without any (a firewall's `{"message": "Request blocked"}`, a
  // gateway's 422) is no word of Frappe's on the punch: read as one, every punch was refused with
  // the firewall's words and went dead (found by an adversarial trial).
  if (body.excType === undefined && body.exception === undefined && body.messages.length === 0)
    return failure({
      kind: 'request-failed',
      httpStatus: status,
      message: `the Frappe address answers HTTP ${status} with JSON that is not Frappe's answer${quoted}: check baseUrl of ${ctx.where} and the way from this box to the site (a firewall, a proxy or a gateway in front of it)`,
    });
  if (said !== undefined && NO_LOCATION_SAID.test(said))
    return failure({
      kind: 'request-failed',
      httpStatus: status,
      message: `Frappe HR asks every check-in for its location (HR Settings → Allow Geolocation Tracking is on) and terminals have none: turn that setting off for ${ctx.where} to deliver (it applies to the mobile app's check-ins too)${quoted}`,
    });
  if ((said !== undefined && DUPLICATE_SAID.test(said)) || body.links.some((l) => DUPLICATE_LINK.test(l)))
    return { kind: 'result', result: { status: false, duplicate: true, message: clean(DUPLICATE_PREFIX + said) } };
  // Any other refusal of this punch (417 ValidationError and its kin): Frappe's own words.
  return {
    kind: 'result',
    result: { status: false, message: clean(said ?? `HTTP ${status} without a message`) },
  };
}

/** Everything the body says in words: its messages, the exception's line, the message text. */
const allSaid = (b: FrappeBody) => [...b.messages, b.exception ?? '', b.messageText ?? ''].join(' ');

function isTransient(b: FrappeBody | undefined): boolean {
  if (!b) return false;
  if (b.excType !== undefined && TRANSIENT_TYPES.has(b.excType)) return true;
  const said = allSaid(b);
  return TRANSIENT_CODE.test(said) || TRANSIENT_SAID.test(said);
}

/**
 * The column named in a "no such column" error of the database, if that is what `b` says ('':
 * it is, by its type, but no column could be read from its words, or none came with it).
 */
function missingColumn(b: FrappeBody): string | undefined {
  const said = allSaid(b);
  const m = NO_COLUMN_CODE.exec(said) ?? NO_COLUMN_SAID.exec(said);
  if (m) return m[1] ?? m[2];
  if (b.excType === undefined || !NO_COLUMN_TYPES.has(b.excType)) return undefined;
  const named = QUOTED_NAME.exec(said);
  return named ? (named[1] ?? named[2] ?? '') : '';
}

function isNoMethod(b: FrappeBody): boolean {
  if (b.excType !== undefined && NO_METHOD_TYPES.has(b.excType)) return true;
  return NO_METHOD_SAID.test(allSaid(b));
}

const failure = (answer: FailureAnswer): CallAnswer => ({ kind: 'failure', answer });

/**
 * A 409 as the sink's failure: the site cannot name a new Employee Checkin, whatever the punch
 * (name-clash.ts), so punches wait in the journal, uncharged, and the admin is told the fix. The
 * sender first reads whether the named check-in is this punch (then a duplicate).
 */
function nameRefused(
  body: FrappeBody,
  raw: string,
  ctx: Pick<CallContext, 'where'>,
  clean: (s: string) => string,
  quoted: string,
): FailureAnswer {
  const type = body.excType ?? 'NameError';
  const name = takenName(raw);
  // Short, the fix first: the status shows a sink's last error cut at 300 characters.
  const message =
    type === 'DuplicateEntryError'
      ? `Frappe cannot name new check-ins: its Employee Checkin naming series is behind its check-ins (HTTP 409${name ? `: ${clean(name)} is taken` : quoted}). In Frappe, Document Naming Settings → Update Series Counter: set that series above its highest check-in; punches wait meanwhile`
      : `Frappe refused to name the new check-in (HTTP 409 ${type}${quoted}): check how the site names Employee Checkins; punches wait meanwhile (${ctx.where})`;
  return { kind: 'request-failed', httpStatus: 409, message };
}
/**
 * The call may have reached the database before it failed (5xx, a lock timeout): a transient
 * failure after sending. Alone in a batch with others that passed, it is that punch's `unknown`.
 */
function unknown(message: string, status: number, headers: HttpHeaders): CallAnswer {
  const retryAfterMs = parseRetryAfter(headers['retry-after']);
  return failure({
    kind: 'transient',
    httpStatus: status,
    afterSending: true,
    message,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

function redirect(status: number, headers: HttpHeaders, ctx: CallContext, clean: (s: string) => string): FailureAnswer {
  const loc = headers.location;
  const to = typeof loc === 'string' && URL.canParse(loc, ctx.url) ? new URL(loc, ctx.url) : undefined;
  const where = to ? `to ${clean(to.host)}${clean(to.pathname)}` : 'without saying where';
  const login = to && /login/i.test(to.pathname) ? ' (a login page: the key and secret were not taken)' : '';
  return {
    kind: 'request-failed',
    httpStatus: status,
    message: `Frappe redirects ${where}${login} (HTTP ${status}, not followed): check baseUrl of ${ctx.where} (https, the site's own address)`,
  };
}

/** An answer that is not Frappe's JSON: a login page, a proxy's or firewall's page. */
function notFrappe(status: number, text: string, ctx: CallContext, clean: (s: string) => string): FailureAnswer {
  const shown = pageExcerpt(text, clean);
  const login = /login|sign in|log in/i.test(shown) ? ' (a login page: the key and secret were not taken)' : '';
  return {
    kind: 'request-failed',
    httpStatus: status,
    message: `the Frappe address answers HTTP ${status} with ${shown ? `"${shown}"` : 'an empty body'}${login}, not Frappe's JSON: check baseUrl of ${ctx.where} and the way from this box to the site`,
  };
}
