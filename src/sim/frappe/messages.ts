/**
 * Frappe's own words and answer shapes, as the simulator sends them. Sources: frappe/hrms
 * hrms/hr/doctype/employee_checkin/employee_checkin.py (add_log_based_on_employee_field,
 * validate_duplicate_log, fetch_shift) and hrms/hr/utils.py (validate_active_employee);
 * frappe/frappe frappe/exceptions.py (http_status_code: ValidationError 417, AuthenticationError
 * 401, PermissionError 403, DoesNotExistError 404, others 500), frappe/app.py handle_exception and
 * frappe/utils/response.py report_error / _make_logs_v1 (the JSON: exc_type, exception,
 * _server_messages as a JSON string of JSON strings).
 */

export interface FrappeReply {
  httpStatus: number;
  body: unknown;
  /** Send `body` as is (text) with this content type, not as JSON. */
  raw?: string;
  headers?: Record<string, string>;
  /** For the log line. */
  summary: string;
}

export const MSG = {
  required: "'employee_field_value' and 'timestamp' are required.",
  noEmployee: (field: string, value: string) =>
    `No Employee found for the given employee field value. '${field}': ${value}`,
  inactive: (employee: string) =>
    `Transactions cannot be created for an Inactive Employee <a href="/app/employee/${employee}">${employee}</a>.`,
  /**
   * validate_duplicate_log: _("This employee already has a log with the same timestamp.{0}") with
   * "<Br>" + frappe.get_desk_link("Employee Checkin", name). The words follow the site's language
   * (hrms/locale/de.po: "Dieser Mitarbeiter hat bereits ein Protokoll mit demselben Zeitstempel. {0}"),
   * the link's path follows the Frappe version (deskLink).
   */
  duplicate: (checkin: string, version: FrappeVersion = 15, language: FrappeLanguage = 'en') =>
    `${DUPLICATE_WORDS[language]}<Br>${deskLink('Employee Checkin', checkin, version)}`,
  logTypeRequired: (shift: string) => `Log Type is required for check-ins falling in the shift: ${shift}.`,
  /** hrms employee_checkin.py validate_distance_from_shift_location (v15+). */
  noLocation: 'Latitude and longitude values are required for checking in.',
  notPermitted: 'Not permitted',
  noPermission: (doctype: string) => `Insufficient Permission for ${doctype}`,
  notFound: (doctype: string, name: string) => `${doctype} ${name} not found`,
  lockTimeout: "(1205, 'Lock wait timeout exceeded; try restarting transaction')",
  badTimestamp: (v: string) => `Invalid datetime: ${v}`,
  refusedBySim: (code: string) => `Check-in refused for employee field value ${code} (simulator fault)`,
} as const;

/** The Frappe major versions whose answers differ where a client reads them (the desk link). */
export type FrappeVersion = 13 | 14 | 15 | 16;
export const FRAPPE_VERSIONS: readonly FrappeVersion[] = [13, 14, 15, 16];
/** The site's language, for the refusals a client must recognise whatever their words. */
export type FrappeLanguage = 'en' | 'de';

const DUPLICATE_WORDS: Record<FrappeLanguage, string> = {
  en: 'This employee already has a log with the same timestamp.',
  de: 'Dieser Mitarbeiter hat bereits ein Protokoll mit demselben Zeitstempel. ',
};

/**
 * frappe.get_desk_link(doctype, name) (frappe/__init__.py): v12/v13 `#Form/<Doctype>/<name>`,
 * v14/v15 `/app/Form/<Doctype>/<name>`; v16 moved the desk to /desk and its routes to the
 * doctype's slug (frappe/frappe PR #36731, "With the change in v16, using Form inside the URL is
 * no longer valid"): `/desk/employee-checkin/<name>`. The label is translated, the path never.
 */
export function deskLink(doctype: string, name: string, version: FrappeVersion): string {
  const slug = doctype.toLowerCase().replace(/[ _]/g, '-');
  const href =
    version <= 13
      ? `#Form/${doctype}/${name}`
      : version <= 15
        ? `/app/Form/${doctype}/${name}`
        : `/desk/${slug}/${name}`;
  return `<a href="${href}" style="font-weight: bold;">${doctype} ${name}</a>`;
}

/** A frappe.throw as report_error sends it (no traceback: the site does not allow them). */
export function thrown(
  httpStatus: number,
  excType: string,
  message?: string,
  module = 'frappe.exceptions',
): FrappeReply {
  const body: Record<string, unknown> = { exc_type: excType };
  if (message !== undefined) {
    body.exception = `${module}.${excType}: ${message}`;
    body._server_messages = JSON.stringify([
      JSON.stringify({ message, title: 'Message', indicator: 'red', raise_exception: 1 }),
    ]);
  } else body.exception = `${module}.${excType}`;
  return { httpStatus, body, summary: `${httpStatus} ${excType}${message ? `: ${message}` : ''}` };
}

export const validation = (message: string, excType = 'ValidationError') => thrown(417, excType, message);

/**
 * A column the Employee table lacks, as add_log_based_on_employee_field meets it: its
 * frappe.db.get_values("Employee", {employee_fieldname: value}, [..., employee_fieldname]) runs the
 * query and frappe/database/database.py get_values re-raises MariaDB's 1054 (only `ignore=True`
 * swallows it): pymysql.err.OperationalError, not a frappe exception, so HTTP 500 (handle_exception's
 * default), `exception` the traceback's last line (sent while System Settings allow_error_traceback
 * is on, its default).
 */
export function unknownColumn(column: string): FrappeReply {
  return {
    httpStatus: 500,
    body: {
      exc_type: 'OperationalError',
      exception: `pymysql.err.OperationalError: (1054, "Unknown column '${column}' in 'field list'")`,
    },
    summary: `500 OperationalError: unknown column ${column}`,
  };
}

/**
 * Over the site's rate limit: frappe/rate_limiter.py RateLimiter.apply raises TooManyRequestsError
 * (429) before the request runs; app.py handle_exception answers an /api/ request with
 * report_error's JSON, and the limiter's headers go on the answer (Retry-After: the rest of the
 * window, with X-RateLimit-Reset, -Limit, -Remaining; frappe's test_rate_limiter).
 */
export function rateLimited(resetSeconds: number): FrappeReply {
  return {
    httpStatus: 429,
    body: { exc_type: 'TooManyRequestsError' },
    headers: {
      'retry-after': String(resetSeconds),
      'x-ratelimit-reset': String(resetSeconds),
      'x-ratelimit-limit': '1000000',
      'x-ratelimit-remaining': '0',
    },
    summary: '429 TooManyRequestsError',
  };
}

/** A QueryTimeoutError: frappe/database/database.py turns MariaDB's 1205 into it. */
export function lockTimeout(status: number): FrappeReply {
  return {
    httpStatus: status,
    body: {
      exc_type: 'QueryTimeoutError',
      exception: `frappe.exceptions.QueryTimeoutError: ${MSG.lockTimeout}`,
    },
    summary: `${status} QueryTimeoutError`,
  };
}

/**
 * A name already taken: frappe/model/base_document.py db_insert, on the database's primary-key
 * violation (a naming series behind its documents), msgprints _("{0} {1} already exists") with the
 * name in frappe.bold (<strong>), titled "Duplicate Name", and raises
 * DuplicateEntryError(doctype, name, e): a NameError, HTTP 409 (frappe/exceptions.py).
 */
export function nameTaken(doctype: string, name: string): FrappeReply {
  return {
    httpStatus: 409,
    body: {
      exc_type: 'DuplicateEntryError',
      exception: `frappe.exceptions.DuplicateEntryError: ('${doctype}', '${name}', IntegrityError(1062, "Duplicate entry '${name}' for key 'PRIMARY'"))`,
      _server_messages: JSON.stringify([
        JSON.stringify({
          message: `${doctype} <strong>${name}</strong> already exists`,
          title: 'Duplicate Name',
          indicator: 'red',
        }),
      ]),
    },
    summary: `409 DuplicateEntryError ${name}`,
  };
}

/** What nginx in front of bench answers while gunicorn is down. */
export const BAD_GATEWAY_PAGE =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
