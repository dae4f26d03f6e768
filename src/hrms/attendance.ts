import type { HrmsConfig } from '../config/schema.js';
import { errorCode } from '../util/errors.js';
import { scrubberFor } from '../util/secrets.js';
import {
  answerBudgetBytes,
  classifyResponse,
  type AttendanceAnswer,
  type AttendancePunch,
  type ClassifyOptions,
} from './answer.js';
import { HrmsHttp, hrmsUrl, type HttpResponse } from './http.js';
import { multipartField } from './multipart.js';
import { requestFailure } from './request-failure.js';
import { outsideText } from './text.js';

export {
  classifyResponse,
  countContainers,
  SIZE_REFUSAL,
  type AttendanceAnswer,
  type AttendancePunch,
  type PunchResult,
} from './answer.js';
export { parseRetryAfter } from './text.js';

export interface AttendanceClientOptions {
  hrms: Pick<HrmsConfig, 'baseUrl' | 'attendancePath' | 'timeoutMs' | 'connectTimeoutMs' | 'caFile'> &
    Partial<Pick<HrmsConfig, 'proxy' | 'proxyCredentialsFile'>>;
  /** Case-insensitive patterns of a token refusal in a `status:false` message. */
  authPatterns: readonly RegExp[];
  /** Patterns of a refusal for the request's size; default SIZE_REFUSAL. */
  sizePatterns?: readonly RegExp[];
  /** A shared connection pool; by default one is made from the config and closed by close(). */
  http?: HrmsHttp;
  /** Where proxy variables are read (when no `http` is given); default process.env. */
  env?: NodeJS.ProcessEnv;
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

/** Error codes that prove the request never left this box (nothing can have been recorded). */
export const BEFORE_SENDING: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'CONNECT_TIMEOUT',
  'PROXY_AUTH',
  'PROXY_REFUSED',
  'PROXY_CLOSED',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Client of the seed's bulk attendance endpoint. One instance keeps one connection pool. */
export class AttendanceClient implements AttendanceSender {
  readonly url: string;
  readonly http: HrmsHttp;
  private readonly ownsHttp: boolean;
  private scrubbing: { token: string; scrub: (s: string) => string } | undefined;

  constructor(private readonly opts: AttendanceClientOptions) {
    this.url = hrmsUrl(opts.hrms.baseUrl, opts.hrms.attendancePath);
    this.ownsHttp = !opts.http;
    this.http = opts.http ?? new HrmsHttp(opts.hrms, opts.env ? { env: opts.env } : {});
  }

  /** How the requests travel: directly or through which proxy (no credentials). */
  route(): string {
    return this.http.route(this.url);
  }

  async send(punches: readonly AttendancePunch[], { token, signal }: SendOptions): Promise<AttendanceAnswer> {
    const scrub = this.scrubberFor(token);
    // One buffer, the JSON copied into it once (multipart.ts), not a FormData encoded and copied again.
    const form = multipartField('punches_data', JSON.stringify(punches));
    const classify: ClassifyOptions = {
      authPatterns: this.opts.authPatterns,
      scrub,
      url: this.url,
      ...(this.opts.sizePatterns ? { sizePatterns: this.opts.sizePatterns } : {}),
    };
    let res: HttpResponse;
    try {
      res = await this.http.request({
        method: 'POST',
        url: this.url,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': form.contentType },
        body: form.body,
        maxBytes: answerBudgetBytes(punches.length),
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      return this.failure(e, punches.length, classify, scrub);
    }
    return classifyResponse(res, punches, classify);
  }

  async close(): Promise<void> {
    if (this.ownsHttp) await this.http.close();
  }

  private failure(e: unknown, n: number, classify: ClassifyOptions, scrub: (s: string) => string): AttendanceAnswer {
    const code = errorCode(e);
    const err = e as { httpStatus?: number; headers?: Record<string, string | string[] | undefined> };
    if (code === 'DEADLINE') return { kind: 'transient', message: (e as Error).message, afterSending: true };
    if (code === 'ABORTED') return { kind: 'transient', message: 'request aborted (stopping)', afterSending: true };
    if (code === 'PROXY_AUTH') return requestFailure.proxyAuth();
    if (code === 'PROXY_REFUSED') return requestFailure.proxyRefused(err.httpStatus, 'hrms.baseUrl');
    if (code === 'RESPONSE_TOO_LARGE' && err.httpStatus !== undefined) {
      const status = err.httpStatus;
      if (status >= 200 && status < 300) {
        return {
          kind: 'bad-reply',
          httpStatus: status,
          message: `HTTP ${status} with an answer of more than ${answerBudgetBytes(n)} bytes for ${n} punches (refused unread)`,
        };
      }
      // An error page too large to read: judged by its status alone.
      return classifyResponse({ status, headers: err.headers ?? {}, text: '' }, [], classify);
    }
    const detail = e instanceof Error ? e.message : String(e);
    const via = this.http.viaProxy(this.url);
    return {
      kind: 'transient',
      message: outsideText(`${code && !detail.includes(code) ? `${code}: ${detail}` : detail}${via}`, scrub),
      afterSending: !(code && BEFORE_SENDING.has(code)),
    };
  }

  /** Scrubs the token (every form) and the proxy credentials; rebuilt only when the token changes. */
  private scrubberFor(token: string): (s: string) => string {
    if (this.scrubbing?.token !== token)
      this.scrubbing = { token, scrub: scrubberFor([token, ...this.http.secretValues()]) };
    return this.scrubbing.scrub;
  }
}

export { hrmsUrl } from './http.js';
