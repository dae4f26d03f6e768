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
  duplicate: (checkin: string) =>
    `This employee already has a log with the same timestamp.<Br><a href="/app/employee-checkin/${checkin}" style="font-weight: bold;">Employee Checkin ${checkin}</a>`,
  logTypeRequired: (shift: string) => `Log Type is required for check-ins falling in the shift: ${shift}.`,
  notPermitted: 'Not permitted',
  noPermission: (doctype: string) => `Insufficient Permission for ${doctype}`,
  notFound: (doctype: string, name: string) => `${doctype} ${name} not found`,
  lockTimeout: "(1205, 'Lock wait timeout exceeded; try restarting transaction')",
  badTimestamp: (v: string) => `Invalid datetime: ${v}`,
  refusedBySim: (code: string) => `Check-in refused for employee field value ${code} (simulator fault)`,
} as const;

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

/** What nginx in front of bench answers while gunicorn is down. */
export const BAD_GATEWAY_PAGE =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
