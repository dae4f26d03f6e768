import { withApiPath } from '../util/api-address.js';
import {
  Agent,
  buildConnector,
  EnvHttpProxyAgent,
  ProxyAgent,
  request,
  type Connector,
  type Dispatcher,
  type FormData,
} from './undici.js';
import type { Socket } from 'node:net';
import type { HrmsConfig } from '../config/schema.js';
import { errorCode } from '../util/errors.js';
import { describeRoute, proxySettings, type ProxySettings } from './proxy.js';
import { readCaFile } from './setting-file.js';
import { NO_TLS_CODE, NO_TLS_WORDS, speaksNoTls } from './no-tls.js';
import { decodeAnswer } from './decode-body.js';
import { PROXY_CLOSED, PROXY_CLOSED_WORDS, punctualTunnelFactory } from './proxy-tunnel.js';

/**
 * The HTTP client of the HRMS calls, on undici: one keep-alive dispatcher per HRMS (an Agent,
 * or a ProxyAgent / EnvHttpProxyAgent when a proxy is set, see proxy.ts), the private CA of
 * `hrms.caFile`, a connect timeout that covers the TLS handshake, one deadline for the whole
 * exchange, and a cap on the answer's size (a global one, and a lower one per request).
 * Redirects are never followed: the token is only ever sent to `hrms.baseUrl`. An answer compressed
 * though not asked to be is decoded (decode-body.ts).
 */

export type HttpHeaders = Record<string, string | string[] | undefined>;

export interface HttpResponse {
  status: number;
  headers: HttpHeaders;
  text: string;
}

export interface HttpCall {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer | FormData;
  signal?: AbortSignal;
  /** A lower cap than MAX_RESPONSE_BYTES for this answer (what the request warrants). */
  maxBytes?: number;
}

/**
 * Codes of our own failures (node's own codes, ECONNREFUSED and so on, pass through):
 * CONNECT_TIMEOUT: no connection (TCP and TLS) within connectTimeoutMs: nothing was sent;
 * DEADLINE: no complete answer within connectTimeoutMs + timeoutMs;
 * ABORTED: the caller's signal; RESPONSE_TOO_LARGE: an answer over the cap (`httpStatus` says
 * what it was); ECONNRESET: the connection closed before the answer was complete;
 * PROXY_AUTH: the proxy answered 407 to CONNECT; PROXY_REFUSED: any other refusal of the tunnel;
 * PROXY_CLOSED: the proxy closed the connection before answering the CONNECT.
 */
export class HttpError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly httpStatus?: number,
    /** The answer's headers, when one began (a redirect's Location, for a too-large answer). */
    readonly headers?: HttpHeaders,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** An attendance answer is ~100 bytes per punch; an employee list of 10,000 is a few MB. */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export type HrmsHttpConfig = Pick<HrmsConfig, 'timeoutMs' | 'connectTimeoutMs' | 'caFile'> &
  Partial<Pick<HrmsConfig, 'baseUrl' | 'proxy' | 'proxyCredentialsFile'>> & {
    /** Kept-alive connections at most (default 1): a sink with several calls in flight needs one each. */
    connections?: number;
  };

export interface HrmsHttpOptions {
  /** Where HTTPS_PROXY / HTTP_PROXY / NO_PROXY are read; default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** One keep-alive connection pool to the HRMS, with the deadlines of the config. */
export class HrmsHttp {
  readonly proxy: ProxySettings;
  private readonly dispatcher: Dispatcher;

  constructor(
    private readonly cfg: HrmsHttpConfig,
    opts: HrmsHttpOptions = {},
  ) {
    this.proxy = proxySettings(cfg, opts.env ?? process.env, cfg.baseUrl);
    this.dispatcher = createDispatcher(cfg, this.proxy);
  }

  /** How requests to `url` travel ("directly", "through the proxy http://host:3128 (hrms.proxy)"). */
  route(url: string): string {
    return describeRoute(this.proxy, url);
  }

  /**
   * After a network error's words: " (through the proxy http://host:3128 (HTTPS_PROXY))" when a
   * proxy is set, else nothing, so the admin sees which address failed. Never with credentials.
   */
  viaProxy(url: string): string {
    return this.proxy.mode === 'config' || this.proxy.mode === 'env' ? ` (${this.route(url)})` : '';
  }

  /** Values to scrub from any text this client passes on (the proxy's credentials). */
  secretValues(): string[] {
    return this.proxy.secrets;
  }

  /**
   * The whole exchange, body read; failures reject with an HttpError or the network error's code
   * kept. No retry here: a failed POST may have reached the HRMS, and the caller decides.
   */
  async request(call: HttpCall): Promise<HttpResponse> {
    const { connectTimeoutMs, timeoutMs } = this.cfg;
    const deadline = connectTimeoutMs + timeoutMs;
    if (call.signal?.aborted) throw new HttpError('request aborted', 'ABORTED');
    // A local controller linked by hand: AbortSignal.any on the daemon's long-lived signal
    // would keep one entry per request alive on older Node versions.
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, deadline);
    const onAbort = () => ctl.abort();
    call.signal?.addEventListener('abort', onAbort, { once: true });
    let status: number | undefined;
    try {
      const url = new URL(call.url);
      const res = await request(this.dispatcher, {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: call.method,
        headers: call.headers,
        ...(call.body !== undefined ? { body: call.body } : {}),
        signal: ctl.signal,
      });
      status = res.statusCode;
      const limit = Math.min(call.maxBytes ?? MAX_RESPONSE_BYTES, MAX_RESPONSE_BYTES);
      const raw = await readCapped(res.body, limit, res.headers, status);
      const tooLarge = () =>
        new HttpError(`answer larger than ${limit} bytes`, 'RESPONSE_TOO_LARGE', status, res.headers);
      const { body, headers } = await decodeAnswer(raw, res.headers, limit, tooLarge);
      return { status, headers, text: body.toString('utf8') };
    } catch (e) {
      if (e instanceof HttpError) throw e;
      if (call.signal?.aborted) throw new HttpError('request aborted', 'ABORTED');
      if (timedOut) throw new HttpError(`timeout: no complete answer within ${deadline} ms`, 'DEADLINE');
      throw translate(e, connectTimeoutMs, deadline, status);
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Closes the kept-alive connections (an exchange still running fails). */
  async close(): Promise<void> {
    await this.dispatcher.destroy();
  }
}

function createDispatcher(cfg: HrmsHttpConfig, proxy: ProxySettings): Dispatcher {
  // A private CA (`hrms.caFile`), when set, is the only CA trusted for the HRMS: an internal
  // HRMS usually has its own.
  const ca = cfg.caFile ? readCaFile(cfg.caFile) : undefined;
  const tls = { timeout: cfg.connectTimeoutMs, ...(ca ? { ca } : {}) };
  // The phase timeouts back up the deadline of request(), which comes first.
  const backstop = cfg.connectTimeoutMs + cfg.timeoutMs + 1000;
  const agent = {
    connect: punctualConnector(tls),
    // The seed takes one request at a time: one connection, kept alive, carries them all. A sink
    // with calls in flight (src/sinks) asks for one connection per call.
    connections: cfg.connections ?? 1,
    headersTimeout: backstop,
    bodyTimeout: backstop,
    maxResponseSize: MAX_RESPONSE_BYTES,
  };
  // Through a proxy, the HRMS's TLS is set up inside the CONNECT tunnel (requestTls), the proxy's
  // own connection has the same connect timeout (proxyTls), and so has the whole tunnel (CONNECT
  // and TLS), which also fails at once when the proxy closes before answering (proxy-tunnel.ts).
  const tunnel = {
    ...agent,
    requestTls: tls,
    proxyTls: { timeout: cfg.connectTimeoutMs },
    factory: punctualTunnelFactory(cfg.connectTimeoutMs),
    ...withToken(proxy),
  };
  if (proxy.mode === 'config') return new ProxyAgent({ ...tunnel, uri: proxy.uri! });
  if (proxy.mode === 'env') return new EnvHttpProxyAgent({ ...tunnel, ...proxy.env! });
  return new Agent(agent);
}

/**
 * undici's connector with a connect timeout that fires when it is due: undici's own runs on a
 * coarse timer (about half a second late), and a connect timeout here says "nothing was sent".
 * Through a proxy undici connects by itself (its own timeouts, within request()'s deadline).
 */
function punctualConnector(tls: { timeout: number; ca?: string }): Connector {
  const connect = buildConnector({ ...tls, timeout: 0 });
  return (opts, callback) => {
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      socket?.destroy();
      const err = Object.assign(new Error(`connect timeout after ${tls.timeout} ms`), {
        code: 'UND_ERR_CONNECT_TIMEOUT',
      });
      callback(err, null);
    }, tls.timeout);
    // undici's connector hands back the socket it opens (its types say void).
    const socket = (connect as (...a: Parameters<Connector>) => Socket | undefined)(opts, (...args) => {
      if (settled) {
        args[1]?.destroy();
        return;
      }
      settled = true;
      clearTimeout(timer);
      callback(...args);
    });
  };
}

function withToken(proxy: ProxySettings): { token?: string } {
  return proxy.token ? { token: proxy.token } : {};
}

/** The body's bytes, refused as soon as they pass `limit` (or say they will). */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  limit: number,
  headers: HttpHeaders,
  status: number,
): Promise<Buffer> {
  const tooLarge = () => new HttpError(`answer larger than ${limit} bytes`, 'RESPONSE_TOO_LARGE', status, headers);
  const declared = headers['content-length'];
  if (typeof declared === 'string' && Number(declared) > limit) {
    body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** undici's errors in the words and codes the callers know. */
function translate(e: unknown, connectTimeoutMs: number, deadline: number, status: number | undefined): unknown {
  const code = errorCode(e);
  const message = e instanceof Error ? e.message : String(e);
  if (code === 'UND_ERR_CONNECT_TIMEOUT')
    return new HttpError(`connect timeout: no connection within ${connectTimeoutMs} ms`, 'CONNECT_TIMEOUT');
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return new HttpError(`timeout: no complete answer within ${deadline} ms`, 'DEADLINE');
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE')
    return new HttpError(`answer larger than ${MAX_RESPONSE_BYTES} bytes`, 'RESPONSE_TOO_LARGE', status);
  const proxied = /Proxy response \((\d+)\)|Proxy Authentication Required \((\d+)\)/.exec(message);
  if (proxied) {
    const proxyStatus = Number(proxied[1] ?? proxied[2]);
    return proxyStatus === 407
      ? new HttpError('the proxy refused the credentials (HTTP 407)', 'PROXY_AUTH', 407)
      : new HttpError(
          `the proxy would not open a tunnel to the HRMS (HTTP ${proxyStatus})`,
          'PROXY_REFUSED',
          proxyStatus,
        );
  }
  if (code === PROXY_CLOSED) return new HttpError(PROXY_CLOSED_WORDS, PROXY_CLOSED);
  if (code === NO_TLS_CODE || speaksNoTls(message)) return new HttpError(NO_TLS_WORDS, NO_TLS_CODE);
  if (code === ALTNAME_CODE) return new HttpError(altnameWords(e, message), ALTNAME_CODE);
  if (code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED')
    return new HttpError(
      status === undefined
        ? 'the HRMS closed the connection before answering'
        : 'the HRMS closed the connection mid-answer',
      'ECONNRESET',
    );
  return e;
}

const ALTNAME_CODE = 'ERR_TLS_CERT_ALTNAME_INVALID';

/**
 * A certificate for another name, with the names it holds: node's words name only the certificate's
 * IP addresses when the address is one ("IP: 127.0.0.1 is not in the cert's list: "), and the
 * admin who wrote the IP address needs the host name to write instead.
 */
function altnameWords(e: unknown, message: string): string {
  const { cert, host } = e as { cert?: { subjectaltname?: unknown; subject?: { CN?: unknown } }; host?: unknown };
  const names = typeof cert?.subjectaltname === 'string' ? cert.subjectaltname : cert?.subject?.CN;
  if (typeof names !== 'string' || names === '') return message;
  const asked = typeof host === 'string' ? `, not for ${host}` : '';
  return `the certificate is made for ${names.slice(0, 200)}${asked} (${ALTNAME_CODE})`;
}

/** `{base_url}` + path: its path prefix kept, its query after the path (withApiPath, shared with the terminals). */
export function hrmsUrl(baseUrl: string, path: string): string {
  return withApiPath(baseUrl, path);
}
