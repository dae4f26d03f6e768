import type { IncomingHttpHeaders } from 'node:http';
import type { HrmsConfig } from '../config/schema.js';
import { errorCode } from '../util/errors.js';
import { formBody } from './form.js';
import { HrmsHttp, hrmsUrl, type HttpResponse } from './http.js';

/** One punch as the seed's `punches_data` array carries it. */
export interface AttendancePunch {
  biometriccode: string;
  logDate: string;
  devicelogId: string;
}

/** What the HRMS said about one punch, by position. */
export interface PunchResult {
  status: boolean;
  message: string;
}

/**
 * The HRMS's answer to one attendance request, classified. HTTP-level problems are values,
 * never exceptions, so the deliverer handles every case in one place.
 */
export type AttendanceAnswer =
  /** Per-punch results (possibly fewer than sent: the rest have an unknown outcome). */
  | { kind: 'answered'; httpStatus: number; overall: boolean; results: PunchResult[] }
  /** The bearer token was refused (or none could be read); nothing was processed. */
  | { kind: 'auth'; httpStatus?: number; message: string }
  /** HTTP 413: the batch is too large for the HRMS. */
  | { kind: 'too-large'; httpStatus: 413; message: string }
  /**
   * Try the same punches again later: network error, timeout, 5xx, 408/429, a body that is not JSON.
   * `afterSending`: the request may have reached the HRMS, so it may have recorded the punches.
   */
  | { kind: 'transient'; message: string; afterSending: boolean; httpStatus?: number; retryAfterMs?: number }
  /** Any other refusal of the request as a whole (400, 404, `status:false` without Payload). */
  | { kind: 'refused'; httpStatus: number; message: string };

export interface AttendanceClientOptions {
  hrms: Pick<HrmsConfig, 'baseUrl' | 'attendancePath' | 'timeoutMs' | 'connectTimeoutMs' | 'caFile'>;
  /** Case-insensitive patterns of a token refusal in a `status:false` message. */
  authPatterns: readonly RegExp[];
  /** A shared connection pool; by default one is made from the config and closed by close(). */
  http?: HrmsHttp;
}

export interface SendOptions {
  token: string;
  signal?: AbortSignal;
}

/** Anything that can send a batch: the real client, or a test double. */
export interface AttendanceSender {
  send(punches: readonly AttendancePunch[], opts: SendOptions): Promise<AttendanceAnswer>;
  close?(): Promise<void>;
}

const MAX_MESSAGE = 300;
/** Error codes that prove the request never left this box (nothing can have been recorded). */
const BEFORE_SENDING = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Client of the seed's bulk attendance endpoint. One instance keeps one connection pool. */
export class AttendanceClient implements AttendanceSender {
  private readonly url: string;
  private readonly http: HrmsHttp;
  private readonly ownsHttp: boolean;

  constructor(private readonly opts: AttendanceClientOptions) {
    this.url = hrmsUrl(opts.hrms.baseUrl, opts.hrms.attendancePath);
    this.ownsHttp = !opts.http;
    this.http = opts.http ?? new HrmsHttp(opts.hrms);
  }

  async send(punches: readonly AttendancePunch[], { token, signal }: SendOptions): Promise<AttendanceAnswer> {
    const scrub = (s: string) => scrubToken(s, token);
    const form = formBody({ punches_data: JSON.stringify(punches) });
    let res: HttpResponse;
    try {
      res = await this.http.request({
        method: 'POST',
        url: this.url,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': form.contentType },
        body: form.body,
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      const code = errorCode(e);
      if (code === 'DEADLINE') return { kind: 'transient', message: (e as Error).message, afterSending: true };
      if (code === 'ABORTED') return { kind: 'transient', message: 'request aborted (stopping)', afterSending: true };
      const detail = e instanceof Error ? e.message : String(e);
      return {
        kind: 'transient',
        message: scrub(truncate(code && !detail.includes(code) ? `${code}: ${detail}` : detail)),
        afterSending: !(code && BEFORE_SENDING.has(code)),
      };
    }
    return classifyResponse(res.status, res.headers, res.text, this.opts.authPatterns, scrub);
  }

  async close(): Promise<void> {
    if (this.ownsHttp) this.http.close();
  }
}

/** Turns an HTTP answer into an AttendanceAnswer (exported for tests of the parsing rules). */
export function classifyResponse(
  status: number,
  headers: IncomingHttpHeaders,
  text: string,
  authPatterns: readonly RegExp[],
  scrub: (s: string) => string = (s) => s,
): AttendanceAnswer {
  const body = parseJsonObject(text);
  const bodyMessage = body ? messageOf(body) : undefined;
  const describe = (fallback: string) => scrub(truncate(bodyMessage ?? fallback));
  const isAuthMessage = bodyMessage !== undefined && authPatterns.some((p) => p.test(bodyMessage));

  if (status === 401 || status === 403)
    return { kind: 'auth', httpStatus: status, message: describe(`HTTP ${status}`) };
  if (status === 413) return { kind: 'too-large', httpStatus: 413, message: describe('HTTP 413 request too large') };
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(headers['retry-after']);
    return {
      kind: 'transient',
      httpStatus: status,
      message: describe(`HTTP ${status}`),
      // A 408/429 was refused before processing; a 5xx may have been half processed.
      afterSending: status >= 500,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  if (!body) {
    const snippet = text.trim().replace(/\s+/g, ' ').slice(0, 80);
    if (status >= 200 && status < 300) {
      return {
        kind: 'transient',
        httpStatus: status,
        message: scrub(`HTTP ${status} with a body that is not a JSON object: ${snippet}`),
        afterSending: true,
      };
    }
    return { kind: 'refused', httpStatus: status, message: scrub(`HTTP ${status}: ${snippet || 'empty body'}`) };
  }
  const overall = truthy(pick(body, 'status'));
  const payload = pick(body, 'payload');
  if (status >= 200 && status < 300 && Array.isArray(payload)) {
    return { kind: 'answered', httpStatus: status, overall, results: parsePayload(payload) };
  }
  if (isAuthMessage) return { kind: 'auth', httpStatus: status, message: describe('token refused') };
  if (status >= 200 && status < 300 && overall) {
    // Success without any per-punch result: the outcome of every punch is unknown.
    return { kind: 'answered', httpStatus: status, overall, results: [] };
  }
  return { kind: 'refused', httpStatus: status, message: describe(`HTTP ${status}: status false`) };
}

/**
 * Per-punch results in order. An element that cannot be read ends the list: from there on the
 * outcomes are unknown (the punches go back to the queue rather than being guessed).
 */
function parsePayload(payload: unknown[]): PunchResult[] {
  const out: PunchResult[] = [];
  for (const el of payload) {
    if (!el || typeof el !== 'object' || Array.isArray(el)) break;
    const o = el as Record<string, unknown>;
    const s = pick(o, 'status');
    if (s === undefined) break;
    out.push({ status: truthy(s), message: truncate(messageOf(o) ?? '') });
  }
  return out;
}

/** `status`, `Status`, `STATUS`...: the seed uses two spellings; accept any case. */
function pick(o: Record<string, unknown>, key: string): unknown {
  if (key in o) return o[key];
  const lower = key.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

function messageOf(o: Record<string, unknown>): string | undefined {
  const m = pick(o, 'message') ?? pick(o, 'msg') ?? pick(o, 'error');
  if (typeof m === 'string') return m;
  if (m !== undefined && m !== null) return JSON.stringify(m);
  return undefined;
}

function truthy(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v === 1;
  if (typeof v === 'string') return /^(true|1|success|ok)$/i.test(v.trim());
  return false;
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(v: string | string[] | undefined, now = Date.now()): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) return undefined;
  if (/^\d+(\.\d+)?$/.test(s.trim())) return Math.round(Number(s) * 1000);
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}

function truncate(s: string): string {
  return s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE)}...` : s;
}

/** Removes the token from a message (an HRMS or a proxy may echo it back). */
export function scrubToken(s: string, token: string): string {
  return token.length >= 4 ? s.split(token).join('[REDACTED]') : s;
}
