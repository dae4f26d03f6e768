import { outsideText } from '../../hrms/text.js';

/**
 * What can go wrong with one call to Odoo, in the four ways the sender treats differently.
 * Odoo's exceptions arrive by name (odoo/http.py serialize_exception: `name`, `message`,
 * `arguments`, `debug`): with JSON-2 as the body of an HTTP error whose status is the exception's
 * `http_status` (Json2Dispatcher.handle_error: UserError and ValidationError 422, AccessError 403,
 * MissingError 404, the bearer check's Unauthorized 401, anything else 500); with JSON-RPC inside
 * an HTTP 200 answer's `error.data` (JsonRPCDispatcher.handle_error).
 */
export type OdooFailure =
  /** Odoo refused this punch's write (ValidationError / UserError): Odoo's message. */
  | { kind: 'refused'; message: string }
  /** The API key, the login or the user's rights: nothing more can be done with this key. */
  | { kind: 'auth'; message: string; httpStatus?: number }
  /** A network error, a timeout, a 5xx, a concurrent update: try again; it may have been written. */
  | { kind: 'unknown'; message: string; afterSending: boolean; httpStatus?: number; retryAfterMs?: number }
  /** The request did not reach Odoo's API as it should (a redirect, a missing app, not Odoo). */
  | { kind: 'request-failed'; message: string; httpStatus?: number };

export class OdooCallError extends Error {
  constructor(readonly failure: OdooFailure) {
    super(failure.message);
    this.name = 'OdooCallError';
  }
}

/** Concurrent-update errors of PostgreSQL that Odoo passes on after its own retries. */
const CONCURRENCY =
  /SerializationFailure|TransactionRollbackError|LockNotAvailable|concurrent update|could not serialize/i;

/**
 * PostgreSQL's refusal of a database the server does not have. JSON-RPC's common.authenticate and
 * object.execute_kw open the named database's registry before anything else (odoo/service/common.py
 * exp_authenticate, odoo/service/model.py dispatch -> security.check, Odoo 16-19), so a wrong
 * `database` comes back as psycopg2.OperationalError 'FATAL:  database "x" does not exist', never
 * as authenticate's false: no retry cures it. (A PostgreSQL that speaks another language says it
 * in its words: that one stays a server error, retried.)
 */
const NO_DATABASE = /database "([^"]{0,200})" does not exist/;

/**
 * A field the model does not have, named in a search's domain or its fields: Odoo checks them
 * before it runs the search (odoo/osv/expression.py: "Invalid field hr.employee.x in leaf (...)",
 * 17; "Invalid field 'x' in leaf ...", 16; models.py: "Invalid field 'x' on model 'hr.employee'"),
 * a builtins.ValueError (HTTP 500 with JSON-2). The sink's own fields are Odoo's; the one it is
 * told is `employeeField`: no retry cures a wrong one.
 */
const NO_FIELD = /Invalid field (?:'([^']{1,200})'|([\w.]{1,200})) (?:in leaf|in condition|on model)/;

/**
 * A model the server does not have: JSON-RPC's execute_cr raises UserError("Object %s doesn't
 * exist") (odoo/service/model.py, 16-19), a UserError like a refusal of the punch; JSON-2 answers
 * 404 "the model 'x' does not exist" (NotFound below). The app is not installed: no punch is at fault.
 */
const NO_MODEL = /^Object (\S{1,100}) doesn't exist/;

/** An Odoo exception (its dotted `name`, its `message`) as a failure. */
export function odooException(name: string, message: string, httpStatus?: number): OdooFailure {
  const status = httpStatus !== undefined ? { httpStatus } : {};
  const noDb = /OperationalError/.test(name) ? NO_DATABASE.exec(message) : null;
  if (noDb)
    return {
      kind: 'request-failed',
      ...status,
      message: `Odoo has no database "${noDb[1]}" (${message.replace(/\s+/g, ' ').trim()}): check the sink's database, the name Odoo's database manager (/web/database/manager) lists`,
    };
  const noField = /ValueError/.test(name) ? NO_FIELD.exec(message) : null;
  if (noField)
    return {
      kind: 'request-failed',
      ...status,
      message: `Odoo has no field ${noField[1] ?? noField[2]} (${message.replace(/\s+/g, ' ').trim().slice(0, 300)}): check the sink's employeeField, the hr.employee field that holds the terminals' codes (barcode, pin or a custom field)`,
    };
  const noModel = /UserError/.test(name) ? NO_MODEL.exec(message.trim()) : null;
  if (noModel)
    return {
      kind: 'request-failed',
      ...status,
      message: `Odoo has no model ${noModel[1]} (${message.trim()}): is the Attendances app (hr_attendance) installed in the sink's database?`,
    };
  if (/AccessDenied|SessionExpired|Unauthorized/.test(name) || httpStatus === 401)
    return {
      kind: 'auth',
      ...status,
      message: `Odoo refused the API key or the login: ${message} (check the key in the sink's token file, its user's login and that the key has not expired)`,
    };
  if (/AccessError/.test(name) || httpStatus === 403)
    return {
      kind: 'auth',
      ...status,
      message: `Odoo's API user may not do this: ${message} (give that user the Attendances "Administrator" right and the Employees "Officer" right)`,
    };
  if (CONCURRENCY.test(name) || CONCURRENCY.test(message))
    return {
      kind: 'unknown',
      afterSending: true,
      ...status,
      message: `Odoo was busy with a concurrent update: ${message}`,
    };
  if (/MissingError/.test(name)) return { kind: 'unknown', afterSending: true, ...status, message: `Odoo: ${message}` };
  if (/ValidationError|UserError|RedirectWarning/.test(name)) return { kind: 'refused', message };
  if (/NotFound/.test(name) || httpStatus === 404)
    return {
      kind: 'request-failed',
      ...status,
      message: `Odoo does not know this call: ${message} (is the Attendances app, hr_attendance, installed? is the sink's api right for this Odoo's version?)`,
    };
  if (httpStatus !== undefined && httpStatus >= 400 && httpStatus < 500)
    return { kind: 'request-failed', ...status, message: `Odoo refused the request (HTTP ${httpStatus}): ${message}` };
  return { kind: 'unknown', afterSending: true, ...status, message: `Odoo server error: ${message}` };
}

/**
 * An answer of HTTP 200 that is not what Odoo answers to the call (an error inside it, a proxy's
 * or another app's JSON): the call may or may not have written, so the punch is tried again
 * uncharged, never counted as delivered nor refused; the next try's read finds it if it was written.
 */
export function notAnAnswer(what: string, value: unknown, scrub: (s: string) => string): OdooCallError {
  const shown = outsideText(JSON.stringify(value) ?? String(value), scrub).slice(0, 160);
  return new OdooCallError({
    kind: 'unknown',
    afterSending: true,
    message: `Odoo's answer to ${what} is not what Odoo answers (${shown}): not taken as done, tried again`,
  });
}

/**
 * The records of a search_read, each an object with a numeric id: anything else is no list of
 * records. Read as one (a proxy's `{"status": "ok"}`, a record whose id is text, skipped), it said
 * "no employee has this code" or "nothing open to close", and the punch was refused on a lie
 * (found by an adversarial trial).
 */
export function recordsOf(what: string, value: unknown, scrub: (s: string) => string): Record<string, unknown>[] {
  const ok =
    Array.isArray(value) &&
    value.every(
      (r) => r !== null && typeof r === 'object' && !Array.isArray(r) && Number.isInteger((r as { id?: unknown }).id),
    );
  if (!ok) throw notAnAnswer(what, value, scrub);
  return value as Record<string, unknown>[];
}
