import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenPort } from '../http-server.js';
import { seededRandom } from '../../util/seeded-random.js';
import { readBody } from '../hrms/body.js';
import { OdooError, OdooStore, userError, type SimAttendance, type SimEmployee } from './store.js';

export { OdooStore, odooDateTime, type SimAttendance, type SimEmployee } from './store.js';

/**
 * An Odoo server as punchgate's Odoo sink meets it: JSON-2 (`/json/2/<model>/<method>`, Odoo 19
 * and later) and JSON-RPC (`/jsonrpc`, common.version / authenticate, object.execute_kw), the
 * version it reports chosen by `version` (17 answers JSON-2 with a 404, as a real 17 does),
 * hr.employee and hr.attendance with Odoo's constraints and messages (store.ts), API keys, and
 * fault switches. Shapes from github:odoo/odoo: odoo/http.py (JsonRPCDispatcher, Json2Dispatcher,
 * serialize_exception), addons/rpc/controllers/json2.py, odoo/service/common.py.
 */
export interface OdooFaults {
  /** Every API request answers 503 with a proxy's page (Odoo's workers are down). */
  down: boolean;
  /** Delay before each answer (slow). */
  latencyMs: number;
  /** Probability 0..1 of an HTTP 502 page instead of the answer (a 5xx). */
  errorRate: number;
  /** Probability 0..1 that a write fails with PostgreSQL's serialization failure (a concurrent update). */
  serializationRate: number;
  /** The next N writes are made and then the connection is dropped unanswered (a crash between writing and answering). */
  dropAfterWrite: number;
  /** Codes (barcode, pin or x_punch_code) whose attendances are refused with a UserError. */
  refuseCodes: string[];
  /** The API user lacks the right to write attendances: every write is an AccessError (HTTP 403 in JSON-2). */
  noWriteAccess: boolean;
  seed: number;
}

export interface OdooSimOptions {
  host?: string;
  port?: number;
  /** The major version reported (default 19): 19+ speaks JSON-2 and JSON-RPC, below only JSON-RPC. */
  version?: number;
  database?: string;
  /** The API user's login (JSON-RPC authenticate). */
  login?: string;
  /** Accepted API keys (default: 'sim-odoo-key'). */
  apiKeys?: string[];
  employees?: Array<Partial<SimEmployee> & { name: string }>;
  /** The Attendances app (hr_attendance) is not installed: no hr.attendance model (default: it is). */
  withoutAttendances?: boolean;
  faults?: Partial<OdooFaults>;
  log?: (line: string) => void;
}

export interface OdooSimStats {
  /** Calls by "model.method" (and "common.version", "common.authenticate"). */
  calls: Record<string, number>;
  inFlight: number;
  maxInFlight: number;
  requests: number;
}

export interface OdooSim {
  url: string;
  port: number;
  store: OdooStore;
  faults: OdooFaults;
  stats: OdooSimStats;
  setFaults(f: Partial<OdooFaults>): void;
  stop(): Promise<void>;
}

export const DEFAULT_SIM_KEY = 'sim-odoo-key';
const UID = 2;

export function defaultOdooFaults(): OdooFaults {
  return {
    down: false,
    latencyMs: 0,
    errorRate: 0,
    serializationRate: 0,
    dropAfterWrite: 0,
    refuseCodes: [],
    noWriteAccess: false,
    seed: 1,
  };
}

interface Reply {
  status: number;
  body: unknown;
  html?: boolean;
  /** Drop the connection instead of answering. */
  drop?: boolean;
}

const page = (status: number, title: string): Reply => ({
  status,
  html: true,
  body: `<html><head><title>${status} ${title}</title></head><body><h1>${title}</h1></body></html>`,
});

/**
 * A database the server does not have: common.authenticate and execute_kw open its registry first
 * (odoo/service/common.py exp_authenticate: `odoo.registry(db)`; service/model.py dispatch:
 * security.check), and PostgreSQL refuses the connection. The error is psycopg2's, not an
 * AccessDenied: authenticate does not answer false for it (its words are PostgreSQL's, here
 * in the English of a server whose lc_messages is C or en_US).
 */
function noDatabase(db: unknown): OdooError {
  return new OdooError(
    'psycopg2.OperationalError',
    `connection to server at "localhost" (::1), port 5432 failed: FATAL:  database "${String(db)}" does not exist\n`,
    500,
  );
}

function serializeException(e: OdooError): Record<string, unknown> {
  return {
    name: e.odooName,
    message: e.message,
    arguments: [e.message],
    context: {},
    debug: `Traceback (most recent call last):\n  (simulated)\n${e.odooName}: ${e.message}\n`,
  };
}

export async function startOdooSim(opts: OdooSimOptions = {}): Promise<OdooSim> {
  const version = opts.version ?? 19;
  const database = opts.database ?? 'odoo';
  const login = opts.login ?? 'punchgate';
  const keys = new Set(opts.apiKeys?.length ? opts.apiKeys : [DEFAULT_SIM_KEY]);
  const store = new OdooStore();
  store.hasModes = version >= 17;
  for (const e of opts.employees ?? []) store.addEmployee(e);
  const faults: OdooFaults = { ...defaultOdooFaults(), ...opts.faults };
  let random = seededRandom(faults.seed);
  const stats: OdooSimStats = { calls: {}, inFlight: 0, maxInFlight: 0, requests: 0 };
  const log = opts.log ?? (() => {});
  const versionInfo = [version, 0, 0, 'final', 0, ''];

  const count = (k: string) => (stats.calls[k] = (stats.calls[k] ?? 0) + 1);
  const models = new Set(opts.withoutAttendances ? ['hr.employee'] : ['hr.employee', 'hr.attendance']);

  const codesOf = (employeeId: unknown) => {
    const e = store.employees.find((x) => x.id === employeeId);
    return e ? [e.barcode, e.pin, e.x_punch_code].filter((c): c is string => typeof c === 'string') : [];
  };

  /** One model method with the write faults; throws OdooError. Says whether the answer is to be dropped. */
  const runMethod = (model: string, method: string, ids: number[], kw: Record<string, unknown>) => {
    count(`${model}.${method}`);
    // JSON-2 (addons/rpc/controllers/json2.py): NotFound "the model 'x' does not exist".
    if (!models.has(model))
      throw new OdooError('werkzeug.exceptions.NotFound', `the model '${model}' does not exist`, 404);
    const writes = model === 'hr.attendance' && (method === 'create' || method === 'write');
    if (writes) {
      if (faults.noWriteAccess)
        throw new OdooError(
          'odoo.exceptions.AccessError',
          `You are not allowed to ${method === 'create' ? 'create' : 'modify'} 'Attendance' (hr.attendance) records.\n\nThis operation is allowed for the following groups:\n\t- Attendances/Administrator\n\nContact your administrator to request access if necessary.`,
          403,
        );
      if (faults.serializationRate > 0 && random() < faults.serializationRate)
        throw new OdooError(
          'psycopg2.errors.SerializationFailure',
          'could not serialize access due to concurrent update',
          500,
        );
      const employeeIds =
        method === 'create'
          ? (Array.isArray(kw.vals_list) ? kw.vals_list : [kw.vals_list]).map(
              (v) => (v as { employee_id?: unknown })?.employee_id,
            )
          : ids.map((id) => store.attendances.find((a) => a.id === id)?.employee_id);
      if (employeeIds.some((id) => codesOf(id).some((c) => faults.refuseCodes.includes(c))))
        throw userError('The simulator refuses attendances of this employee (fault switch refuseCodes).');
    }
    const result = store.call(model, method, ids, kw);
    const drop = writes && faults.dropAfterWrite > 0;
    if (drop) faults.dropAfterWrite--;
    return { result, drop };
  };

  const json2 = (model: string, method: string, headers: IncomingMessage['headers'], body: unknown): Reply => {
    if (version < 19) return page(404, 'Not Found');
    const m = /^bearer\s+(.+)$/i.exec(String(headers.authorization ?? ''));
    if (!m || !keys.has(m[1]!.trim()))
      return {
        status: 401,
        body: serializeException(new OdooError('werkzeug.exceptions.Unauthorized', 'Invalid apikey', 401)),
      };
    // A database the server lacks passes db_filter (no dbfilter set), then its registry fails to
    // open and Request._serve_db falls back to _serve_nodb, where no bearer route exists: werkzeug's
    // plain 404 page (odoo/http.py _get_session_and_dbname, _serve_db).
    const db = headers['x-odoo-database'];
    if (db !== undefined && db !== database) return page(404, 'Not Found');
    const kw = body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as Record<string, unknown>) } : {};
    const ids = Array.isArray(kw.ids) ? (kw.ids as number[]) : [];
    delete kw.ids;
    try {
      const { result, drop } = runMethod(model, method, ids, kw);
      return { status: 200, body: result, drop };
    } catch (e) {
      if (e instanceof OdooError) return { status: e.httpStatus, body: serializeException(e) };
      throw e;
    }
  };

  const jsonrpc = (body: unknown): Reply => {
    const req = (body ?? {}) as { id?: unknown; params?: { service?: unknown; method?: unknown; args?: unknown } };
    const id = req.id ?? null;
    const ok = (result: unknown, drop = false): Reply => ({ status: 200, body: { jsonrpc: '2.0', id, result }, drop });
    const err = (e: OdooError): Reply => ({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id,
        error: { code: e.httpStatus === 404 ? 404 : 200, message: 'Odoo Server Error', data: serializeException(e) },
      },
    });
    const service = req.params?.service;
    const method = req.params?.method;
    const args = Array.isArray(req.params?.args) ? (req.params.args as unknown[]) : [];
    try {
      if (service === 'common' && method === 'version') {
        count('common.version');
        return ok({
          server_version: `${version}.0`,
          server_version_info: versionInfo,
          server_serie: `${version}.0`,
          protocol_version: 1,
        });
      }
      if (service === 'common' && method === 'authenticate') {
        count('common.authenticate');
        const [db, user, key] = args;
        if (db !== database) throw noDatabase(db);
        return ok(user === login && typeof key === 'string' && keys.has(key) ? UID : false);
      }
      if (service === 'object' && method === 'execute_kw') {
        const [db, uid, key, model, m, pos, kw] = args;
        if (db !== database) throw noDatabase(db);
        if (uid !== UID || typeof key !== 'string' || !keys.has(key))
          throw new OdooError('odoo.exceptions.AccessDenied', 'Access Denied', 403);
        const positional = Array.isArray(pos) ? pos : [];
        const named = kw && typeof kw === 'object' ? { ...(kw as Record<string, unknown>) } : {};
        // execute_kw's create takes its values by position and answers by their shape
        // (odoo/api.py _call_kw_model_create reads `args[0]`: an IndexError without it); the
        // record methods take their ids first (_call_kw_multi).
        if (m === 'create') {
          if (positional.length === 0) throw new OdooError('builtins.IndexError', 'tuple index out of range', 500);
          named.vals_list = positional[0];
        }
        const ids = m !== 'create' && Array.isArray(positional[0]) ? (positional[0] as number[]) : [];
        // odoo/service/model.py execute_cr: a model the registry lacks is a UserError.
        if (!models.has(String(model)))
          throw new OdooError('odoo.exceptions.UserError', `Object ${String(model)} doesn't exist`, 422);
        const { result, drop } = runMethod(String(model), String(m), ids, named);
        return ok(result, drop);
      }
      throw new OdooError('builtins.NameError', `No such service or method: ${String(service)}.${String(method)}`, 500);
    } catch (e) {
      if (e instanceof OdooError) return err(e);
      throw e;
    }
  };

  const handle = async (req: IncomingMessage): Promise<Reply> => {
    const url = new URL(req.url ?? '/', 'http://sim');
    const path = url.pathname;
    const raw = await readBody(req, 4 * 1024 * 1024);
    const parse = () => {
      try {
        return raw.length ? (JSON.parse(raw.toString('utf8')) as unknown) : {};
      } catch {
        return undefined;
      }
    };
    if (path.startsWith('/__sim/')) return admin(req.method ?? 'GET', path.slice('/__sim/'.length), parse());
    if (faults.down) return page(503, 'Service Unavailable');
    if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
    if (faults.errorRate > 0 && random() < faults.errorRate) return page(502, 'Bad Gateway');
    if (req.method === 'GET' && path === '/web/version')
      return { status: 200, body: { version: `${version}.0`, version_info: versionInfo } };
    const body = parse();
    if (req.method === 'POST' && path === '/jsonrpc') {
      if (body === undefined) return { status: 400, body: 'Invalid JSON data', html: true };
      return jsonrpc(body);
    }
    const j2 = /^\/json\/2\/([^/]+)\/([^/]+)$/.exec(path);
    if (req.method === 'POST' && j2) {
      if (body === undefined)
        return {
          status: 400,
          body: serializeException(
            new OdooError('werkzeug.exceptions.BadRequest', 'could not parse the body as json', 400),
          ),
        };
      return json2(decodeURIComponent(j2[1]!), decodeURIComponent(j2[2]!), req.headers, body);
    }
    return page(404, 'Not Found');
  };

  const setFaults = (f: Partial<OdooFaults>) => {
    Object.assign(faults, f);
    if (f.seed !== undefined) random = seededRandom(f.seed);
  };

  const admin = (method: string, route: string, body: unknown): Reply => {
    const key = `${method} ${route}`;
    if (key === 'GET attendances') return { status: 200, body: store.attendances };
    if (key === 'GET employees') return { status: 200, body: store.employees };
    if (key === 'GET stats') return { status: 200, body: stats };
    if (key === 'GET faults') return { status: 200, body: faults };
    if (key === 'POST faults' && body && typeof body === 'object') {
      setFaults(body as Partial<OdooFaults>);
      return { status: 200, body: faults };
    }
    if (
      key === 'POST employees' &&
      body &&
      typeof body === 'object' &&
      typeof (body as { name?: unknown }).name === 'string'
    )
      return { status: 200, body: store.addEmployee(body as SimEmployee) };
    // Odoo 18's automatic check-out cron, run now for one employee: {employee_id, check_out (UTC)}.
    if (key === 'POST auto-check-out' && body && typeof body === 'object') {
      const { employee_id: id, check_out: at } = body as { employee_id?: unknown; check_out?: unknown };
      if (typeof id === 'number' && typeof at === 'string') return { status: 200, body: store.autoCheckOut(id, at) };
    }
    if (key === 'POST reset') {
      store.reset();
      stats.calls = {};
      stats.maxInFlight = stats.inFlight;
      return { status: 200, body: { status: true } };
    }
    return { status: 404, body: { error: `unknown simulator admin request: ${key}` } };
  };

  const respond = (res: ServerResponse, r: Reply) => {
    if (r.drop) {
      res.socket?.destroy();
      return;
    }
    const text = r.html ? String(r.body) : JSON.stringify(r.body);
    res.writeHead(r.status, {
      'content-type': r.html ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  };

  const server = createServer((req, res) => {
    const isAdmin = (req.url ?? '').startsWith('/__sim/');
    if (!isAdmin) {
      stats.requests++;
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    }
    handle(req)
      .then((r) => respond(res, r))
      .catch((e: unknown) => {
        log(`error: ${e instanceof Error ? e.message : String(e)}`);
        respond(res, page(500, 'Internal Server Error'));
      })
      .finally(() => {
        if (!isAdmin) stats.inFlight--;
      });
  });
  const port = await listenPort(server, opts.host ?? '127.0.0.1', opts.port ?? 0);
  const host = opts.host ?? '127.0.0.1';
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    store,
    faults,
    stats,
    setFaults,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type { SimAttendance as OdooAttendance };
