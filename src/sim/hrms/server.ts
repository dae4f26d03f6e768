import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createLoggedServer } from '../http-server.js';
import { handleAdmin, type AdminTarget } from './admin.js';
import { handleAttendance, type AttendanceContext } from './attendance.js';
import { BodyTooLargeError, isJsonType, parseForm, readBody, tryJson } from './body.js';
import type { FaultState } from './faults.js';
import { MSG, NON_JSON_PAGE } from './messages.js';
import { MultipartError } from './multipart.js';
import { failure, type Reply } from './reply.js';
import type { AttendanceStore } from './store.js';
import type { TokenRegistry } from './tokens.js';
import { applyUserOperation, handleFetch, type UsersContext } from './users.js';

/** Everything the request handler works on; built by startHrmsSim. */
export interface ServerState {
  basePath: string;
  attendancePath: string;
  userPath: string;
  fetchPath: string;
  authHttpStatus: number;
  maxBodyBytes: number;
  tokens: TokenRegistry;
  faults: FaultState;
  attendance: AttendanceStore;
  attendanceCtx: AttendanceContext;
  users: UsersContext;
  admin: AdminTarget;
  now: () => number;
  log: (line: string) => void;
}

type Route = 'attendance' | 'updateUser' | 'fetchEmployees';

const METHODS: Record<Route, string[]> = {
  attendance: ['POST'],
  updateUser: ['POST'],
  fetchEmployees: ['GET', 'POST'],
};

function routeOf(path: string, s: ServerState): Route | null {
  if (s.basePath && !path.startsWith(s.basePath + '/')) return null;
  const rel = s.basePath ? path.slice(s.basePath.length) : path;
  if (rel === s.attendancePath) return 'attendance';
  if (rel === s.userPath) return 'updateUser';
  if (rel === s.fetchPath) return 'fetchEmployees';
  return null;
}

function send(res: ServerResponse, r: Reply): void {
  if (res.destroyed) return;
  const text = r.raw ? String(r.body) : JSON.stringify(r.body);
  res.writeHead(r.httpStatus, {
    'content-type': r.raw?.contentType ?? 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...r.headers,
  });
  res.end(text);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Fetch parameters: the query string, plus a JSON object or form body on POST. */
function fetchParams(url: URL, req: IncomingMessage, body: Buffer): Map<string, string> {
  const params = new Map(url.searchParams);
  if (req.method !== 'POST' || body.length === 0) return params;
  if (isJsonType(req.headers['content-type'])) {
    const obj = tryJson(body.toString('utf8'));
    if (obj !== null && typeof obj === 'object' && !Array.isArray(obj)) {
      for (const [k, v] of Object.entries(obj)) params.set(k, v === null ? '' : String(v));
    }
  } else {
    for (const [k, v] of parseForm(body, req.headers['content-type'])) params.set(k, v);
  }
  return params;
}

function operate(route: Route, url: URL, req: IncomingMessage, body: Buffer, requestNo: number, s: ServerState): Reply {
  if (route === 'attendance') {
    let form: Map<string, string>;
    try {
      form = parseForm(body, req.headers['content-type']);
    } catch (e) {
      if (e instanceof MultipartError) return failure(400, `${MSG.punchesNotArray} (${e.message})`);
      throw e;
    }
    return handleAttendance(form, requestNo, s.faults.get(), s.attendanceCtx);
  }
  if (route === 'updateUser') {
    const parsed = tryJson(body.toString('utf8'));
    if (parsed === undefined) return failure(400, MSG.validation(['request body is not valid JSON']));
    return applyUserOperation(parsed, s.users);
  }
  try {
    return handleFetch(fetchParams(url, req, body), s.users);
  } catch (e) {
    if (e instanceof MultipartError) return failure(400, MSG.validation([e.message]));
    throw e;
  }
}

/** One request: admin API, path check, faults, token, then the operation. Returns what the log line says. */
async function handle(req: IncomingMessage, res: ServerResponse, s: ServerState): Promise<string> {
  const url = new URL(req.url ?? '/', 'http://sim.invalid');
  const path = url.pathname;
  const route = path.startsWith('/__sim/') ? null : routeOf(path, s);
  const requestNo = route === 'attendance' ? ++s.attendance.requestCount : 0;

  let body: Buffer;
  try {
    body = await readBody(req, s.maxBodyBytes);
  } catch (e) {
    if (!(e instanceof BodyTooLargeError)) return 'body not received';
    const r = failure(413, MSG.bodyTooLarge, { connection: 'close' });
    send(res, r);
    return `413 ${MSG.bodyTooLarge}`;
  }

  const reply = async (): Promise<Reply | 'reset'> => {
    if (path.startsWith('/__sim/'))
      return handleAdmin(req.method ?? 'GET', path.slice('/__sim/'.length), body, s.admin);
    if (!route) return failure(404, MSG.invalidPath);
    if (!METHODS[route].includes(req.method ?? ''))
      return failure(405, MSG.methodNotAllowed(req.method ?? ''), { allow: METHODS[route].join(', ') });

    const faults = s.faults.get();
    if (faults.latencyMs > 0) await sleep(faults.latencyMs);
    const retryAfter = s.faults.rateLimited(s.now());
    if (retryAfter !== null)
      return failure(429, MSG.tooMany(faults.rateLimitPerSecond ?? 0), { 'retry-after': String(retryAfter) });
    const draw = s.faults.draw();
    if (draw.reset && !faults.resetAfterProcessing) return 'reset';
    if (draw.error) return failure(503, MSG.unavailable);
    if (draw.nonJson)
      return { httpStatus: 200, body: NON_JSON_PAGE, raw: { contentType: 'text/html' }, summary: 'non-JSON page' };
    if (!s.tokens.accepts(req.headers.authorization, s.now(), faults.tokenExpiresAt))
      return failure(s.authHttpStatus, MSG.badToken);

    const r = operate(route, url, req, body, requestNo, s);
    return draw.reset ? 'reset' : r;
  };

  const r = await reply();
  if (r === 'reset') {
    req.socket.destroy();
    return 'connection reset (fault)';
  }
  send(res, r);
  return `${r.httpStatus}${r.summary ? ' ' + r.summary : ''}`;
}

export function createHrmsServer(s: ServerState): Server {
  return createLoggedServer(
    (req, res) => handle(req, res, s),
    s.log,
    (res) => send(res, failure(500, 'Internal simulator error')),
  );
}
