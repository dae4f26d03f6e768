import type { HrmsConfig } from '../config/schema.js';
import type { Logger } from '../util/logger.js';
import type { Secrets } from '../util/secrets.js';
import { errorCode } from '../util/errors.js';
import { scrubberFor } from '../util/secrets.js';
import { HrmsHttp, hrmsUrl, MAX_RESPONSE_BYTES } from './http.js';
import { requestFailure } from './request-failure.js';
import { userCallFix } from './reach-fix.js';
import { outsideText } from './text.js';
import { employeeListOf, listNotFound } from './fetch-list.js';

/**
 * The HRMS user operations (create, update, disable: one POST of a JSON object to
 * `hrms.userPath`) and Fetch Employee Master Data (`hrms.employeeFetch`).
 *
 * Every answer is returned as the HRMS gave it (message and data untouched) with a
 * classification the commands turn into exit codes. The token is only ever put in the
 * Authorization header; messages pass through the secret scrubber before they leave.
 */

/**
 * - ok: the HRMS said status true.
 * - auth: the token was refused (HTTP 401/403 or a message such as "Bearer token is not correct").
 * - validation: mandatory field missing, type mismatch, unmapped field...
 * - not-found: the identifier names no employee.
 * - refused: any other status false (a wrong path gets "input parameters are not valid" here).
 * - transient: no usable answer: network error, timeout, HTTP 5xx or 429, a body that is not JSON.
 * - contract: an answer that says status true but is not shaped as the contract and the settings
 *   say (a fetch's list under another key): asking again gets the same; the settings must change.
 */
export type UserAnswerKind = 'ok' | 'auth' | 'validation' | 'not-found' | 'refused' | 'transient' | 'contract';

export interface UserAnswer {
  ok: boolean;
  kind: UserAnswerKind;
  /** HTTP status, absent when no HTTP answer came back. */
  httpStatus?: number;
  /** The HRMS's own message, or ours when it gave none (network error, not JSON). */
  message: string;
  /** What to try, for failures the HRMS's own message does not explain (unreachable, token refused, 5xx). */
  fix?: string;
  /** The answer's `data`, as given. */
  data?: unknown;
  /** The body as received (first 4000 characters, scrubbed), for reports and debugging. */
  raw?: string;
}

export type EmployeeRecord = Record<string, unknown>;

export interface FetchAnswer extends UserAnswer {
  /** The employee records of a successful fetch; empty otherwise. */
  records: EmployeeRecord[];
  /**
   * Entries of the list that are not employee objects (their place in the list, 1-based, and
   * what was found): not in `records`, and not to be mistaken for employees who left.
   */
  unreadable: { position: number; found: string }[];
}

export interface EmployeeFilter {
  status?: string;
  department?: string;
  designation?: string;
}

export interface HrmsUsersOptions {
  hrms: Pick<HrmsConfig, 'baseUrl' | 'userPath' | 'employeeFetch' | 'timeoutMs' | 'connectTimeoutMs' | 'caFile'> &
    Partial<Pick<HrmsConfig, 'proxy' | 'proxyCredentialsFile'>>;
  /** Where the bearer token comes from (TokenSource); read on every request so a new token is used at once. */
  token: { get(): string };
  secrets: Secrets;
  /** Case-insensitive regular expressions that mark a refusal as a token refusal (config delivery.patterns.authFailure). */
  authPatterns?: readonly string[];
  logger?: Logger;
  /** A shared connection pool; by default one is made from the config and closed by close(). */
  http?: HrmsHttp;
  /** Where proxy variables are read (when no `http` is given); default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** As delivery.patterns.authFailure's default (src/config/schema.ts). */
const DEFAULT_AUTH = [
  'bearer token',
  'token (is |has )?(not correct|invalid|expired|been revoked|revoked)',
  '(invalid|expired|revoked|wrong) (api |access |auth |bearer )?token',
  'unauthori[sz]ed|unauthenticated',
];
const NOT_FOUND = /not found|does not exist|doesn't exist|no such|unknown (employee|user)/i;
const VALIDATION = /validat|invalid|required|mandatory|must |missing|not mapped|unmapped|mismatch|type/i;
const RAW_LIMIT = 4000;

export class HrmsUsers {
  private readonly http: HrmsHttp;
  private readonly ownsHttp: boolean;
  private readonly auth: RegExp[];

  constructor(private readonly opts: HrmsUsersOptions) {
    this.http = opts.http ?? new HrmsHttp(opts.hrms, opts.env ? { env: opts.env } : {});
    this.ownsHttp = !opts.http;
    this.auth = (opts.authPatterns ?? DEFAULT_AUTH).map((p) => new RegExp(p, 'i'));
  }

  /** One user operation: the payload is sent as given (build it with employees/payload.ts). */
  async send(payload: Readonly<Record<string, unknown>>): Promise<UserAnswer> {
    const url = hrmsUrl(this.opts.hrms.baseUrl, this.opts.hrms.userPath);
    return (await this.call('POST', url, JSON.stringify(payload))).answer;
  }

  /** Fetch Employee Master Data, filtered by the given criteria only. */
  async fetch(filter: EmployeeFilter = {}): Promise<FetchAnswer> {
    const f = this.opts.hrms.employeeFetch;
    const params: Record<string, string> = {};
    for (const key of ['status', 'department', 'designation'] as const) {
      const v = filter[key];
      if (v !== undefined && v !== '') params[f.params[key]] = v;
    }
    let url = hrmsUrl(this.opts.hrms.baseUrl, f.path);
    let body: string | undefined;
    if (f.method === 'GET') {
      const qs = new URLSearchParams(params).toString();
      if (qs) url += (url.includes('?') ? '&' : '?') + qs;
    } else {
      body = JSON.stringify(params);
    }
    const { answer, body: parsed } = await this.call(f.method, url, body);
    if (!answer.ok) return { ...answer, records: [], unreadable: [] };
    // The answer's top-level fields too: some instances put their paging beside data.
    const envelope = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
    const found = employeeListOf(answer.data, envelope as Record<string, unknown>);
    if (!found) {
      const missing = listNotFound(answer.data, envelope as Record<string, unknown>);
      return {
        ...answer,
        ok: false,
        kind: 'contract',
        // The keys come from the HRMS: made safe to print, and short.
        message: `the HRMS fetch answer holds no list of employees where the contract puts it: expected it in ${missing.expected}; found ${outsideText(missing.found, (t) => t)}`,
        fix: 'check hrms.employeeFetch (its path and method) against the HRMS instance: its answer must be {"status": true, "data": [...]} with the employees in data; ask the HRMS administrator for the fetch that answers so',
        records: [],
        unreadable: [],
      };
    }
    if (found.partial !== undefined) {
      // One page taken for the whole list would make everyone on the other pages look gone.
      return {
        ...answer,
        ok: false,
        kind: 'refused',
        message: `the HRMS answered only part of its employee list: ${found.partial}; punchgate reads one answer and does not use a partial list`,
        fix: 'make hrms.employeeFetch return every employee in one answer (a page-size parameter in its path, e.g. ?limit=100000), or ask the HRMS administrator how',
        records: [],
        unreadable: [],
      };
    }
    const records: EmployeeRecord[] = [];
    const unreadable: FetchAnswer['unreadable'] = [];
    found.list.forEach((r, i) => {
      if (typeof r === 'object' && r !== null && !Array.isArray(r)) records.push(r as EmployeeRecord);
      else unreadable.push({ position: i + 1, found: r === null ? 'null' : Array.isArray(r) ? 'a list' : typeof r });
    });
    if (unreadable.length > 0) {
      this.opts.logger?.warn({ unreadable: unreadable.length }, 'fetch: entries that are not employee objects');
    }
    return { ...answer, records, unreadable };
  }

  async close(): Promise<void> {
    if (this.ownsHttp) await this.http.close();
  }

  /** The classified answer, and the body as parsed (undefined when none came or it is not JSON). */
  private async call(
    method: 'GET' | 'POST',
    url: string,
    body: string | undefined,
  ): Promise<{ answer: UserAnswer; body?: unknown }> {
    const proxySecrets = scrubberFor(this.http.secretValues());
    const scrub = (s: string) => this.opts.secrets.scrub(proxySecrets(s));
    const where = new URL(url);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.opts.token.get()}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let text: string;
    try {
      const res = await this.http.request({ method, url, headers, ...(body !== undefined ? { body } : {}) });
      status = res.status;
      text = res.text;
      // Never followed (the token would go with it), and said in plain words.
      if (status >= 300 && status < 400) {
        const r = requestFailure.redirect(status, res.headers, url, (t) => outsideText(t, scrub), 'hrms.baseUrl');
        return { answer: { ok: false, kind: 'refused', httpStatus: status, message: r.message } };
      }
    } catch (e) {
      const code = errorCode(e);
      if (code === 'PROXY_AUTH')
        return { answer: { ok: false, kind: 'refused', message: requestFailure.proxyAuth().message } };
      if (code === 'RESPONSE_TOO_LARGE') return { answer: tooLarge(e, method) };
      const detail = e instanceof Error ? e.message : String(e);
      const why = code && !detail.includes(code) ? `${detail} (${code})` : detail;
      // DEADLINE: connected, asked, and no whole answer in time: reached, but slow (a whole list can take it long).
      const message = scrub(
        code === 'DEADLINE'
          ? `the HRMS at ${where.origin}${where.pathname} did not answer within hrms.timeoutMs: ${why}`
          : `cannot reach the HRMS at ${where.origin}${where.pathname}: ${why}`,
      );
      this.opts.logger?.warn({ path: where.pathname, error: code ?? detail }, 'HRMS user call failed');
      return { answer: withFix({ ok: false, kind: 'transient', message }) };
    }
    // Scrubbed before parsing: an HRMS that echoes the token back must not carry it into a message or data.
    const clean = scrub(text);
    const raw = clean.length > RAW_LIMIT ? clean.slice(0, RAW_LIMIT) : clean;
    const parsed = parseBody(clean);
    const answer = withFix(this.classify(status, parsed, raw));
    this.opts.logger?.debug({ path: where.pathname, httpStatus: status, kind: answer.kind }, 'HRMS user call answered');
    return { answer, body: parsed };
  }

  private classify(httpStatus: number, body: unknown, raw: string): UserAnswer {
    const base = { httpStatus, raw };
    if (httpStatus === 401 || httpStatus === 403) {
      return {
        ...base,
        ok: false,
        kind: 'auth',
        message: messageOf(body) ?? `HTTP ${httpStatus}: the token was refused`,
      };
    }
    if (body === undefined || typeof body !== 'object' || body === null) {
      const snippet = raw.trim().slice(0, 200);
      return {
        ...base,
        ok: false,
        kind: 'transient',
        message: `the HRMS answered HTTP ${httpStatus} with a body that is not JSON${snippet ? `: ${snippet}` : ''}`,
      };
    }
    // A bare list is a fetch answer from an instance that does not wrap its data.
    if (Array.isArray(body) && httpStatus < 400) return { ...base, ok: true, kind: 'ok', message: 'ok', data: body };
    const o = body as Record<string, unknown>;
    const status = statusOf(o);
    const message = messageOf(o);
    const data = 'data' in o ? o.data : 'Data' in o ? o.Data : undefined;
    const withData = data === undefined ? base : { ...base, data };
    if (httpStatus >= 500 || httpStatus === 429) {
      return { ...withData, ok: false, kind: 'transient', message: message ?? `HTTP ${httpStatus}` };
    }
    if (status === true && httpStatus < 400) return { ...withData, ok: true, kind: 'ok', message: message ?? 'ok' };
    if (status === undefined && httpStatus < 400) {
      return { ...withData, ok: false, kind: 'transient', message: message ?? 'the HRMS answered without a status' };
    }
    const text = message ?? `HTTP ${httpStatus}`;
    if (this.auth.some((r) => r.test(text))) return { ...withData, ok: false, kind: 'auth', message: text };
    if (NOT_FOUND.test(text) || httpStatus === 404)
      return { ...withData, ok: false, kind: NOT_FOUND.test(text) ? 'not-found' : 'refused', message: text };
    if (VALIDATION.test(text) || httpStatus === 422)
      return { ...withData, ok: false, kind: 'validation', message: text };
    return { ...withData, ok: false, kind: 'refused', message: text };
  }
}

/**
 * An answer past the cap (MAX_RESPONSE_BYTES) was reached and refused unread: not "cannot reach
 * the HRMS", and not temporary either, since the same request gets the same answer. For a fetch
 * (a large company's whole list, every record with many fields) the fix is a smaller list.
 */
function tooLarge(e: unknown, method: 'GET' | 'POST'): UserAnswer {
  const status = (e as { httpStatus?: number }).httpStatus;
  const mib = MAX_RESPONSE_BYTES / (1024 * 1024);
  return {
    ok: false,
    kind: 'refused',
    ...(status !== undefined ? { httpStatus: status } : {}),
    message: `the HRMS answered${status !== undefined ? ` HTTP ${status}` : ''} with more than ${mib} MiB, the most punchgate reads of one answer (refused unread)`,
    fix:
      method === 'GET' || status === undefined || status < 300
        ? 'fetch fewer employees at once: one department or site (terminalUsers.filter for sync-users, --department for employees fetch), or ask the HRMS administrator to leave the fields punchgate does not use out of the fetch'
        : 'show this message to the HRMS administrator',
  };
}

/** The answer with what to try, when it failed for a reason its message does not explain. */
function withFix(answer: UserAnswer): UserAnswer {
  const fix = answer.ok ? undefined : userCallFix(answer.kind, answer.httpStatus, answer.message);
  return fix === undefined ? answer : { ...answer, fix };
}

/** JSON of the body; PHP notices printed before the JSON object are tolerated. */
function parseBody(text: string): unknown {
  const t = text.replace(/^\uFEFF/, '').trim();
  if (!t) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    const start = t.indexOf('{');
    const end = t.lastIndexOf('}');
    if (start > 0 && end > start) {
      try {
        return JSON.parse(t.slice(start, end + 1));
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
}

/** `status` or `Status` (the seed's two spellings), as a boolean when it is one. */
function statusOf(o: Record<string, unknown>): boolean | undefined {
  const s = 'status' in o ? o.status : o.Status;
  if (typeof s === 'boolean') return s;
  if (s === 'true' || s === 1 || s === 'success') return true;
  if (s === 'false' || s === 0 || s === 'error') return false;
  return undefined;
}

function messageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const o = body as Record<string, unknown>;
  const m = o.message ?? o.Message ?? o.error ?? o.msg;
  if (typeof m === 'string') return m;
  if (m !== undefined && m !== null) return JSON.stringify(m);
  return undefined;
}
