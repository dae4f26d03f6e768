import { BEFORE_SENDING } from '../../hrms/attendance.js';
import { HrmsHttp, hrmsUrl, type HttpResponse } from '../../hrms/http.js';
import { requestFailure } from '../../hrms/request-failure.js';
import { outsideText, pageExcerpt, parseRetryAfter } from '../../hrms/text.js';
import { errorCode } from '../../util/errors.js';
import { notAnAnswer, OdooCallError, odooException, type OdooFailure } from './failure.js';

/**
 * The two ways to call an Odoo model method. Sources (github:odoo/odoo):
 * - JSON-2, Odoo 19+: addons/rpc/controllers/json2.py, `POST /json/2/<model>/<method>` with the
 *   method's named arguments as the JSON body (`ids` for the records), `auth='bearer'`
 *   (ir_http._auth_method_bearer: `Authorization: bearer <api key>`), the database in
 *   `X-Odoo-Database`; the answer is the bare result, errors are HTTP statuses (odoo/http.py
 *   Json2Dispatcher).
 * - JSON-RPC, Odoo 16-18 (still in 19-21, deprecated): `POST /jsonrpc`, service `common`
 *   (`version`, `authenticate(db, login, key, {})` -> uid or false) and service `object`
 *   (`execute_kw(db, uid, key, model, method, args, kwargs)`), odoo/service/common.py and model.py;
 *   errors come in HTTP 200 as `error.data` {name, message} (JsonRPCDispatcher.handle_error).
 * Both take the records as `ids` first and everything else by name, so one OdooCall serves both.
 */
export interface OdooCall {
  model: string;
  method: string;
  ids?: readonly number[];
  kwargs: Record<string, unknown>;
  /**
   * The named argument JSON-RPC must pass by position: execute_kw's `create` reads its first
   * positional argument to answer an id or a list of ids (odoo/api.py _call_kw_model_create), so
   * `vals_list` goes there. JSON-2 binds everything by name.
   */
  positional?: string;
}

export interface CallContext {
  key: string;
  scrub: (s: string) => string;
  signal?: AbortSignal;
}

export interface OdooApi {
  readonly kind: 'json2' | 'jsonrpc';
  call(c: OdooCall, ctx: CallContext): Promise<unknown>;
}

/** The HTTP exchange to Odoo with its failures turned into OdooCallError. */
export class OdooTransport {
  constructor(
    readonly http: HrmsHttp,
    readonly baseUrl: string,
    /** Where this sink's address is set, named in the fixes (`sinks[erp].baseUrl`). */
    readonly baseUrlKey: string,
  ) {}

  url(path: string): string {
    return hrmsUrl(this.baseUrl, path);
  }

  async post(path: string, headers: Record<string, string>, body: unknown, ctx: CallContext): Promise<HttpResponse> {
    return this.exchange('POST', path, headers, JSON.stringify(body), ctx);
  }

  async get(path: string, ctx: CallContext): Promise<HttpResponse> {
    return this.exchange('GET', path, {}, undefined, ctx);
  }

  private async exchange(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    ctx: CallContext,
  ): Promise<HttpResponse> {
    const url = this.url(path);
    let res: HttpResponse;
    try {
      res = await this.http.request({
        method,
        url,
        headers: {
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
    } catch (e) {
      throw new OdooCallError(networkFailure(e, ctx.scrub, this.http.viaProxy(url), this.baseUrlKey));
    }
    const clean = (s: string) => outsideText(s, ctx.scrub);
    if (res.status >= 300 && res.status < 400)
      throw new OdooCallError(requestFailure.redirect(res.status, res.headers, url, clean, this.baseUrlKey));
    if (res.status === 407) throw new OdooCallError(requestFailure.proxyAuth(407));
    return res;
  }
}

/** `via`: the proxy the request went through (HrmsHttp.viaProxy), named as the seed's and Frappe's failures name it. */
function networkFailure(e: unknown, scrub: (s: string) => string, via: string, baseUrlKey: string): OdooFailure {
  const code = errorCode(e);
  const detail = e instanceof Error ? e.message : String(e);
  if (code === 'ABORTED') return { kind: 'unknown', afterSending: true, message: 'request aborted (stopping)' };
  if (code === 'PROXY_AUTH') return requestFailure.proxyAuth();
  if (code === 'PROXY_REFUSED')
    return requestFailure.proxyRefused((e as { httpStatus?: number }).httpStatus, baseUrlKey);
  return {
    kind: 'unknown',
    afterSending: code === 'DEADLINE' || !(code && BEFORE_SENDING.has(code)),
    message: outsideText(`${code && !detail.includes(code) ? `${code}: ${detail}` : detail}${via}`, scrub),
  };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text.replace(/^\uFEFF/, '')) as unknown };
  } catch {
    return { ok: false };
  }
}

function field(o: unknown, k: string): unknown {
  return o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>)[k] : undefined;
}

const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

/**
 * A 5xx or an answer that is not Odoo's JSON. `database`: the X-Odoo-Database sent (JSON-2), named
 * in a 404's fix: Odoo 19 opens a database it does not have, fails, and serves the request without
 * one (odoo/http.py Request._serve_db falls back to _serve_nodb), where no JSON-2 route exists.
 */
function notOdoo(
  res: HttpResponse,
  path: string,
  clean: (s: string) => string,
  baseUrlKey: string,
  database?: string,
): OdooFailure {
  if (res.status >= 500 || res.status === 408 || res.status === 429) {
    const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
    return {
      kind: 'unknown',
      afterSending: res.status >= 500,
      httpStatus: res.status,
      message: `HTTP ${res.status} from Odoo`,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  if (res.status === 404 || res.status === 405)
    return {
      kind: 'request-failed',
      httpStatus: res.status,
      message:
        database !== undefined && res.status === 404
          ? `Odoo does not know ${path} (HTTP 404): check ${baseUrlKey}, database "${clean(database)}" (Odoo answers a database it does not have with this 404) and api (json2 needs Odoo 19 or later)`
          : `Odoo does not know ${path} (HTTP ${res.status}): check ${baseUrlKey} and api (json2 needs Odoo 19 or later)`,
    };
  if (res.status >= 200 && res.status < 300)
    return {
      kind: 'unknown',
      afterSending: true,
      httpStatus: res.status,
      message: `HTTP ${res.status} with an answer that is not Odoo's JSON: "${pageExcerpt(res.text, clean)}"`,
    };
  return requestFailure.notTheHrms(res.status, res.text, clean, baseUrlKey);
}

/** Odoo 19+: one POST per method call, the key as a bearer token. */
export class Json2Api implements OdooApi {
  readonly kind = 'json2';
  constructor(
    private readonly t: OdooTransport,
    private readonly database: string,
  ) {}

  async call(c: OdooCall, ctx: CallContext): Promise<unknown> {
    const path = `/json/2/${c.model}/${c.method}`;
    const headers: Record<string, string> = { authorization: `bearer ${ctx.key}` };
    if (this.database) headers['x-odoo-database'] = this.database;
    const res = await this.t.post(path, headers, { ...(c.ids ? { ids: c.ids } : {}), ...c.kwargs }, ctx);
    const clean = (s: string) => outsideText(s, ctx.scrub);
    const body = parseJson(res.text);
    if (res.status === 200 && body.ok) return body.value;
    const name = body.ok ? text(field(body.value, 'name')) : '';
    if (name !== '' || res.status === 401 || res.status === 403) {
      const message = clean(body.ok ? text(field(body.value, 'message')) : `HTTP ${res.status}`);
      throw new OdooCallError(odooException(name, message || `HTTP ${res.status}`, res.status));
    }
    throw new OdooCallError(notOdoo(res, path, clean, this.t.baseUrlKey, this.database || undefined));
  }
}

/** Odoo 16-18: JSON-RPC with a uid from authenticate, kept per key. */
export class JsonRpcApi implements OdooApi {
  readonly kind = 'jsonrpc';
  private uid: { key: string; uid: number } | undefined;
  private next = 1;

  constructor(
    private readonly t: OdooTransport,
    private readonly database: string,
    private readonly login: string | undefined,
  ) {}

  async call(c: OdooCall, ctx: CallContext): Promise<unknown> {
    const uid = await this.userId(ctx);
    const args: unknown[] = c.ids ? [c.ids] : [];
    const kwargs = { ...c.kwargs };
    if (c.positional !== undefined) {
      args.push(kwargs[c.positional]);
      delete kwargs[c.positional];
    }
    try {
      return await rpc(
        this.t,
        'object',
        'execute_kw',
        [this.database, uid, ctx.key, c.model, c.method, args, kwargs],
        ctx,
        this.next++,
      );
    } catch (e) {
      // A key revoked since authenticate: ask again next time.
      if (e instanceof OdooCallError && e.failure.kind === 'auth') this.uid = undefined;
      throw e;
    }
  }

  private async userId(ctx: CallContext): Promise<number> {
    if (this.uid?.key === ctx.key) return this.uid.uid;
    if (!this.login)
      throw new OdooCallError({
        kind: 'auth',
        message: "the sink has no login: JSON-RPC (Odoo 16-18) needs the API user's login beside the API key",
      });
    const uid = await rpc(this.t, 'common', 'authenticate', [this.database, this.login, ctx.key, {}], ctx, this.next++);
    // authenticate answers a user id or false (odoo/service/common.py exp_authenticate).
    if (uid !== false && uid !== null && !(typeof uid === 'number' && uid > 0))
      throw notAnAnswer('common.authenticate', uid, ctx.scrub);
    if (typeof uid !== 'number')
      throw new OdooCallError({
        kind: 'auth',
        message: `Odoo refused the login "${outsideText(this.login, ctx.scrub)}" with this API key (authenticate answered false): check the login, the key and the database "${outsideText(this.database, ctx.scrub)}"`,
      });
    this.uid = { key: ctx.key, uid };
    return uid;
  }
}

/** One JSON-RPC call: its result, or an OdooCallError. */
export async function rpc(
  t: OdooTransport,
  service: string,
  method: string,
  args: unknown[],
  ctx: CallContext,
  id = 1,
): Promise<unknown> {
  const res = await t.post(
    '/jsonrpc',
    {},
    { jsonrpc: '2.0', method: 'call', params: { service, method, args }, id },
    ctx,
  );
  const clean = (s: string) => outsideText(s, ctx.scrub);
  const body = parseJson(res.text);
  if (res.status !== 200 || !body.ok || !body.value || typeof body.value !== 'object')
    throw new OdooCallError(notOdoo(res, '/jsonrpc', clean, t.baseUrlKey));
  const error = field(body.value, 'error');
  if (error !== undefined && error !== null) {
    const data = field(error, 'data');
    const name = text(field(data, 'name'));
    const message = clean(text(field(data, 'message')) || text(field(error, 'message')) || 'Odoo Server Error');
    const code = field(error, 'code');
    throw new OdooCallError(odooException(name, message, code === 404 ? 404 : undefined));
  }
  // Odoo's answer always has `result` (null for a method that returns nothing): without it, the
  // JSON is a proxy's or another app's, no word of Odoo's (authenticate read it as a refused login).
  if (!Object.hasOwn(body.value, 'result')) throw notAnAnswer(`${service}.${method}`, body.value, ctx.scrub);
  return field(body.value, 'result');
}

/**
 * The server's major version: JSON-RPC common.version (`server_version_info`, every version up to
 * 21), else GET /web/version (`version_info`; JSON-RPC is announced for removal in Odoo 22).
 * 'saas~18.3' style versions count by their number.
 */
export async function serverMajor(t: OdooTransport, ctx: CallContext): Promise<number> {
  let info: unknown;
  try {
    info = field(await rpc(t, 'common', 'version', [], ctx), 'server_version_info');
  } catch (e) {
    if (!(e instanceof OdooCallError) || e.failure.kind !== 'request-failed') throw e;
    const res = await t.get('/web/version', ctx);
    const body = parseJson(res.text);
    if (res.status !== 200 || !body.ok)
      throw new OdooCallError(notOdoo(res, '/web/version', (s) => outsideText(s, ctx.scrub), t.baseUrlKey));
    info = field(body.value, 'version_info');
  }
  const first = Array.isArray(info) ? info[0] : undefined;
  const major = typeof first === 'number' ? first : Number(/(\d+)/.exec(String(first))?.[1]);
  if (!Number.isFinite(major))
    throw new OdooCallError({
      kind: 'request-failed',
      message: "Odoo's version could not be read: set the sink's api to json2 or jsonrpc",
    });
  return major;
}
