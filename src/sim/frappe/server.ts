import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { BodyTooLargeError, isJsonType, parseForm, readBody, tryJson } from '../hrms/body.js';
import { createLoggedServer } from '../http-server.js';
import { addCheckin } from './checkin.js';
import { EMPLOYEE_LIST, employeeList } from './employee-list.js';
import type { FrappeFaultState } from './faults.js';
import {
  BAD_GATEWAY_PAGE,
  lockTimeout,
  MSG,
  rateLimited,
  thrown,
  type FrappeLanguage,
  type FrappeReply,
  type FrappeVersion,
} from './messages.js';
import type { FrappeStore } from './store.js';

/** The API key pairs the simulator accepts (an API user's key and secret). */
export interface ApiKeyPair {
  key: string;
  secret: string;
}

export interface FrappeServerState {
  /** Which apps' paths answer: `hrms` (v14+), `erpnext` (v13 and older), or both. */
  apps: ReadonlyArray<'hrms' | 'erpnext'>;
  /** The Frappe version and language whose answers are sent (the duplicate's desk link and words). */
  version: FrappeVersion;
  language: FrappeLanguage;
  keys: ApiKeyPair[];
  store: FrappeStore;
  faults: FrappeFaultState;
  stats: { requests: number; checkinCalls: number; inFlight: number; maxInFlight: number };
  admin: (method: string, route: string, body: Buffer) => FrappeReply;
  now: () => number;
  log: (line: string) => void;
}

const METHOD_SUFFIX = '.hr.doctype.employee_checkin.employee_checkin.add_log_based_on_employee_field';
const SHIFT_TYPE = /^\/api\/resource\/Shift(?:%20| |\+)Type\/(.+)$/;
/** One Employee Checkin by its name (frappe.client.get): read only. */
const CHECKIN_DOC = /^\/api\/resource\/Employee(?:%20| |\+)Checkin\/(.+)$/;

function send(res: ServerResponse, r: FrappeReply): void {
  if (res.destroyed) return;
  const text = r.raw !== undefined ? String(r.body) : JSON.stringify(r.body);
  res.writeHead(r.httpStatus, {
    'content-type': r.raw ?? 'application/json',
    'content-length': Buffer.byteLength(text),
    ...r.headers,
  });
  res.end(text);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * frappe/auth.py validate_auth_via_api_keys: "token key:secret" (or "Basic base64(key:secret)").
 * A pair that does not match raises AuthenticationError (401); no header at all leaves the
 * request as Guest, and a whitelisted method that is not allow_guest answers PermissionError
 * "Not permitted" (403).
 */
function authenticate(header: string | undefined, keys: ApiKeyPair[]): 'ok' | 'guest' | 'refused' {
  if (!header) return 'guest';
  const [scheme, value, extra] = header.trim().split(/\s+/);
  if (extra !== undefined || !value) return 'refused';
  let pair = value;
  if (scheme?.toLowerCase() === 'basic') pair = Buffer.from(value, 'base64').toString('utf8');
  else if (scheme?.toLowerCase() !== 'token') return 'refused';
  const at = pair.indexOf(':');
  if (at < 0) return 'refused';
  const key = pair.slice(0, at);
  const secret = pair.slice(at + 1);
  return keys.some((k) => k.key === key && k.secret === secret) ? 'ok' : 'refused';
}

/** The arguments of a method call: JSON body, form body, or the query string (frappe/app.py make_form_dict). */
function argsOf(url: URL, req: IncomingMessage, body: Buffer): Record<string, unknown> {
  const args: Record<string, unknown> = Object.fromEntries(url.searchParams);
  if (body.length === 0) return args;
  if (isJsonType(req.headers['content-type'])) {
    const v = tryJson(body.toString('utf8'));
    if (v && typeof v === 'object' && !Array.isArray(v)) Object.assign(args, v);
  } else for (const [k, v] of parseForm(body, req.headers['content-type'])) args[k] = v;
  return args;
}

async function handle(req: IncomingMessage, res: ServerResponse, s: FrappeServerState): Promise<string> {
  const url = new URL(req.url ?? '/', 'http://sim.invalid');
  const path = url.pathname;
  let body: Buffer;
  try {
    body = await readBody(req, 1024 * 1024);
  } catch (e) {
    if (!(e instanceof BodyTooLargeError)) return 'body not received';
    send(res, { httpStatus: 413, body: 'Request Entity Too Large', raw: 'text/plain', summary: '413' });
    return '413';
  }
  if (path.startsWith('/__sim/')) {
    const r = s.admin(req.method ?? 'GET', path.slice('/__sim/'.length), body);
    send(res, r);
    return r.summary;
  }
  s.stats.requests++;
  const faults = s.faults.get();
  if (faults.down) {
    send(res, { httpStatus: 502, body: BAD_GATEWAY_PAGE, raw: 'text/html', summary: '502 (down)' });
    return '502 (down)';
  }
  if (s.faults.drawRateLimit()) {
    const r = rateLimited(faults.rateLimitResetSeconds);
    send(res, r);
    return r.summary;
  }
  const method = path.startsWith('/api/method/') ? path.slice('/api/method/'.length) : undefined;
  const isCheckin = method !== undefined && s.apps.some((a) => method === a + METHOD_SUFFIX);
  if (isCheckin) {
    s.stats.checkinCalls++;
    s.stats.inFlight++;
    s.stats.maxInFlight = Math.max(s.stats.maxInFlight, s.stats.inFlight);
  }
  try {
    if (faults.latencyMs > 0) await sleep(faults.latencyMs);
    const r = route(req, url, method, isCheckin, body, s);
    send(res, r);
    return r.summary;
  } finally {
    if (isCheckin) s.stats.inFlight--;
  }
}

function route(
  req: IncomingMessage,
  url: URL,
  method: string | undefined,
  isCheckin: boolean,
  body: Buffer,
  s: FrappeServerState,
): FrappeReply {
  const auth = authenticate(req.headers.authorization, s.keys);
  if (auth === 'refused') return thrown(401, 'AuthenticationError');
  const shift = SHIFT_TYPE.exec(url.pathname);
  const employees = EMPLOYEE_LIST.test(url.pathname);
  const checkin = CHECKIN_DOC.exec(url.pathname);
  if (method === undefined && !shift && !employees && !checkin) return notFoundPage();
  if (auth === 'guest') return thrown(403, 'PermissionError', MSG.notPermitted);
  if (checkin) {
    if (req.method !== 'GET') return thrown(405, 'MethodNotAllowed', undefined, 'werkzeug.exceptions');
    const name = decodeURIComponent(checkin[1]!);
    const doc = s.store.checkins.find((c) => c.name === name);
    if (!doc) return thrown(404, 'DoesNotExistError', MSG.notFound('Employee Checkin', name));
    return { httpStatus: 200, body: { data: { ...doc } }, summary: `200 Employee Checkin ${name}` };
  }
  if (employees) {
    if (req.method !== 'GET') return thrown(405, 'MethodNotAllowed', undefined, 'werkzeug.exceptions');
    if (s.faults.get().noEmployeeRead) return thrown(403, 'PermissionError', MSG.noPermission('Employee'));
    return employeeList(url, s.store, s.version);
  }
  const faults = s.faults.get();
  if (method !== undefined) {
    if (method === 'frappe.auth.get_logged_user')
      return { httpStatus: 200, body: { message: 'api-user@example.com' }, summary: '200 get_logged_user' };
    if (!isCheckin) {
      // frappe/handler.py execute_cmd: the module cannot be imported.
      const app = method.split('.')[0] ?? method;
      return thrown(
        417,
        'ValidationError',
        `Failed to get method for command ${method} with No module named '${app}.hr'`,
      );
    }
    if (req.method !== 'POST') return thrown(403, 'PermissionError', MSG.notPermitted);
    if (s.faults.drawLock()) return lockTimeout(faults.lockStatus);
    if (s.faults.drawError())
      return { httpStatus: 500, body: { exc_type: 'InternalError' }, summary: '500 InternalError (fault)' };
    return addCheckin(argsOf(url, req, body), s.store, faults, new Date(s.now()), {
      version: s.version,
      language: s.language,
    });
  }
  const name = decodeURIComponent(shift![1]!);
  const doc = s.store.shiftTypes.get(name);
  if (!doc) return thrown(404, 'DoesNotExistError', MSG.notFound('Shift Type', name));
  if (req.method === 'GET')
    return { httpStatus: 200, body: { data: { ...doc, doctype: 'Shift Type' } }, summary: '200' };
  if (req.method !== 'PUT') return thrown(405, 'MethodNotAllowed', undefined, 'werkzeug.exceptions');
  const change = tryJson(body.toString('utf8'));
  if (!change || typeof change !== 'object' || Array.isArray(change))
    return thrown(417, 'ValidationError', 'Invalid request arguments');
  const v = (change as Record<string, unknown>).last_sync_of_checkin;
  if (v !== undefined) {
    if (v !== null && (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?$/.test(v)))
      return thrown(417, 'ValidationError', `Invalid datetime: ${String(v)}`);
    doc.last_sync_of_checkin = v;
  }
  return { httpStatus: 200, body: { data: { ...doc, doctype: 'Shift Type' } }, summary: `200 Shift Type ${name}` };
}

/** frappe's 404 for a path it does not serve: a web page. */
function notFoundPage(): FrappeReply {
  return {
    httpStatus: 404,
    body: '<!DOCTYPE html><html><head><title>Not Found</title></head><body><h1>Page Not Found</h1></body></html>',
    raw: 'text/html; charset=utf-8',
    summary: '404 page',
  };
}

export function createFrappeServer(s: FrappeServerState): Server {
  return createLoggedServer(
    (req, res) => handle(req, res, s),
    s.log,
    (res) => send(res, thrown(500, 'InternalError')),
  );
}
