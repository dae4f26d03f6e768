import { answerBudgetBytes, type AttendanceAnswer, type PunchResult } from '../../hrms/answer.js';
import { BEFORE_SENDING } from '../../hrms/attendance.js';
import { HrmsHttp, hrmsUrl } from '../../hrms/http.js';
import { outsideText } from '../../hrms/text.js';
import { wallClockInZone } from '../../punch/wall-clock-utc.js';
import { errorCode } from '../../util/errors.js';
import { scrubberFor } from '../../util/secrets.js';
import type { SettingsVerdict, SinkPunch, SinkSender, SinkSendOptions } from '../types.js';
import {
  classifyCall,
  DUPLICATE_PREFIX,
  type CallAnswer,
  type CallContext,
  type FailureAnswer,
} from './call-answer.js';
import { checkEmployeeField } from './employee-field.js';
import { readFrappeBody } from './frappe-json.js';
import { clashIsThisPunch, takenName } from './name-clash.js';
import { checkinUrl, optionsProblem, splitToken, type FrappeSinkOptions } from './options.js';

export interface FrappeSenderDeps {
  /** What the sink is called in messages; default "the Frappe sink". */
  name?: string;
  /** A connection pool to share (with the shift sync); by default one is made and closed by close(). */
  http?: HrmsHttp;
  /** Connection timeout (TCP and TLS); default 10 s, never above timeoutMs. */
  connectTimeoutMs?: number;
  /** Where proxy variables are read; default process.env. */
  env?: NodeJS.ProcessEnv;
}

/** One answer is a small document or a refusal with, at most, a traceback: the cap of a one-punch answer. */
const CALL_ANSWER_BYTES = answerBudgetBytes(1);

/**
 * Delivers punches to Frappe HR / ERPNext as Employee Checkins, one punch per call of
 * add_log_based_on_employee_field (frappe/hrms employee_checkin.py; the way the Frappe
 * biometric-attendance-sync-tool's erpnext_sync.py send_to_erpnext calls it), with at most
 * `concurrency` calls in flight. The batch is answered `answered`, one result per punch: the
 * document made (delivered), Frappe's duplicate refusal (counted as delivered), Frappe's other
 * refusals (the punch is refused, with Frappe's words), or `unknown` where the call failed after
 * it may have reached the database. When every call failed the same way (the site down, the key
 * refused, a wrong method), the batch is answered with that failure and no punch is charged.
 */
export class FrappeSender implements SinkSender {
  readonly url: string;
  readonly http: HrmsHttp;
  private readonly ownsHttp: boolean;
  private readonly where: string;
  private scrubbing: { token: string; scrub: (s: string) => string } | undefined;
  private inFlight = 0;

  constructor(
    private readonly o: FrappeSinkOptions,
    deps: FrappeSenderDeps = {},
  ) {
    const problem = optionsProblem(o);
    if (problem) throw new Error(`Frappe sink: ${problem}`);
    this.url = checkinUrl(o);
    this.where = deps.name ? `sink ${deps.name}` : 'the Frappe sink';
    this.ownsHttp = !deps.http;
    this.http =
      deps.http ??
      new HrmsHttp(
        {
          baseUrl: o.baseUrl,
          timeoutMs: o.timeoutMs,
          connectTimeoutMs: Math.min(deps.connectTimeoutMs ?? 10_000, o.timeoutMs),
          connections: o.concurrency,
          ...(o.caFile ? { caFile: o.caFile } : {}),
        },
        deps.env ? { env: deps.env } : {},
      );
  }

  route(): string {
    return this.http.route(this.url);
  }

  /** Calls in flight now (never above `concurrency`). */
  get calls(): number {
    return this.inFlight;
  }

  async send(punches: readonly SinkPunch[], { token, signal }: SinkSendOptions): Promise<AttendanceAnswer> {
    const scrub = this.scrubberFor(token);
    const ctx: CallContext = { url: this.url, where: this.where, scrub };
    if (!/^[^:\s]+:\S+$/.test(token))
      return {
        kind: 'auth',
        message: `the API key and secret of ${this.where} are not "key:secret" (check its key and secret files)`,
      };
    if (punches.length === 0) return this.probe(token, ctx, signal);
    const answers = new Array<CallAnswer | undefined>(punches.length);
    // Once a call shows that the others cannot pass (the key refused, nothing listening, a wrong
    // method), no further call is started: the punches not tried share that failure.
    let stop: FailureAnswer | undefined;
    let next = 0;
    const worker = async () => {
      while (next < punches.length && !stop && !signal?.aborted) {
        const i = next++;
        const a = await this.call(punches[i]!, token, ctx, signal);
        answers[i] = a;
        if (a.kind === 'failure' && stopsTheRest(a.answer)) stop ??= a.answer;
      }
    };
    const workers = Math.min(this.o.concurrency, punches.length);
    await Promise.all(Array.from({ length: workers }, worker));
    return combine(answers, stop, signal);
  }

  /** `check`: whether Employee has employeeFieldname, read once (employee-field.ts); nothing written. */
  async checkSettings({ token, signal }: SinkSendOptions): Promise<SettingsVerdict> {
    const ctx = { url: this.url, where: this.where, scrub: this.scrubberFor(token) };
    return checkEmployeeField(this.http, this.o, token, ctx, signal);
  }

  async close(): Promise<void> {
    if (this.ownsHttp) await this.http.close();
  }

  /**
   * An empty batch (the deliverer's probe while the site is unreachable, or `check`): nothing to
   * record, so one harmless call that needs the key, frappe.auth.get_logged_user, says whether the
   * site answers and takes the key. `answered` with no result when it does.
   */
  private async probe(token: string, ctx: CallContext, signal?: AbortSignal): Promise<AttendanceAnswer> {
    const url = hrmsUrl(this.o.baseUrl, '/api/method/frappe.auth.get_logged_user');
    let res;
    try {
      res = await this.http.request({
        method: 'GET',
        url,
        headers: { authorization: `token ${token}`, accept: 'application/json' },
        maxBytes: CALL_ANSWER_BYTES,
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      const a = this.failure(e, ctx);
      return a.kind === 'failure' ? a.answer : { kind: 'answered', httpStatus: 200, overall: true, results: [] };
    }
    if (res.status >= 200 && res.status < 300 && readFrappeBody(res.text)?.messageText !== undefined)
      return { kind: 'answered', httpStatus: res.status, overall: true, results: [] };
    const a = classifyCall(res, { ...ctx, url });
    if (a.kind === 'failure') return a.answer;
    return { kind: 'bad-reply', httpStatus: res.status, message: `HTTP ${res.status}: not the logged-in user's name` };
  }

  /** One punch, one call; never throws. */
  private async call(p: SinkPunch, token: string, ctx: CallContext, signal?: AbortSignal): Promise<CallAnswer> {
    const body: Record<string, string> = {
      employee_field_value: p.biometricCode,
      timestamp: this.o.timezone ? wallClockInZone(p.logTime, p.timezone, this.o.timezone) : p.logTime,
      device_id: p.terminal,
      employee_fieldname: this.o.employeeFieldname,
    };
    if (p.direction) body.log_type = p.direction === 'in' ? 'IN' : 'OUT';
    this.inFlight++;
    try {
      const res = await this.http.request({
        method: 'POST',
        url: this.url,
        headers: {
          authorization: `token ${token}`,
          accept: 'application/json',
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
        maxBytes: CALL_ANSWER_BYTES,
        ...(signal ? { signal } : {}),
      });
      const a = classifyCall(res, { ...ctx, sentTime: body.timestamp! });
      return res.status === 409 ? await this.nameTaken(a, res.text, p, body.timestamp!, token, ctx, signal) : a;
    } catch (e) {
      return this.failure(e, ctx);
    } finally {
      this.inFlight--;
    }
  }

  /**
   * A 409 (name-clash.ts): the check-in Frappe says holds the name is read; if it is this punch
   * (its employee and time), the punch is there already, a duplicate. Otherwise the sink's failure
   * stands, with what the read found.
   */
  private async nameTaken(
    a: CallAnswer,
    text: string,
    p: SinkPunch,
    sentTime: string,
    token: string,
    ctx: CallContext,
    signal?: AbortSignal,
  ): Promise<CallAnswer> {
    // Only Frappe's own DuplicateEntryError names a check-in (a proxy's 409 page names none).
    const name = readFrappeBody(text)?.excType === 'DuplicateEntryError' ? takenName(text) : undefined;
    if (name === undefined || a.kind !== 'failure' || a.answer.kind !== 'request-failed') return a;
    const v = await clashIsThisPunch(
      this.http,
      this.o,
      { name, code: p.biometricCode, sentTime, token, scrub: ctx.scrub },
      signal,
    );
    if (v.same)
      return {
        kind: 'result',
        result: {
          status: false,
          duplicate: true,
          message: outsideText(
            `${DUPLICATE_PREFIX}Employee Checkin ${name}, same employee and time (Frappe answered HTTP 409: the name taken)`,
            ctx.scrub,
          ),
        },
      };
    return {
      kind: 'failure',
      answer: { ...a.answer, message: `${a.answer.message}; ${outsideText(v.why, ctx.scrub)}` },
    };
  }

  /** A call that got no answer to classify: the seed client's rules for what may have reached the server. */
  private failure(e: unknown, ctx: CallContext): CallAnswer {
    const code = errorCode(e);
    const err = e as { httpStatus?: number; headers?: Record<string, string | string[] | undefined> };
    const fail = (answer: FailureAnswer): CallAnswer => ({ kind: 'failure', answer });
    if (code === 'DEADLINE') {
      const answer: FailureAnswer = { kind: 'transient', message: (e as Error).message, afterSending: true };
      TIMED_OUT.add(answer);
      return fail(answer);
    }
    if (code === 'ABORTED')
      return fail({ kind: 'transient', message: 'request aborted (stopping)', afterSending: true });
    if (code === 'PROXY_AUTH' || code === 'PROXY_REFUSED')
      return fail({
        kind: 'request-failed',
        ...(err.httpStatus !== undefined ? { httpStatus: err.httpStatus } : {}),
        message: `${proxyWords(code, err.httpStatus)}${err.httpStatus ? ` (HTTP ${err.httpStatus})` : ''}: check the proxy settings of ${ctx.where}`,
      });
    if (code === 'RESPONSE_TOO_LARGE' && err.httpStatus !== undefined) {
      const status = err.httpStatus;
      if (status >= 200 && status < 300)
        return fail({
          kind: 'transient',
          httpStatus: status,
          afterSending: true,
          message: `HTTP ${status} with an answer of more than ${CALL_ANSWER_BYTES} bytes for one punch (refused unread)`,
        });
      return classifyCall({ status, headers: err.headers ?? {}, text: '' }, ctx);
    }
    const detail = e instanceof Error ? e.message : String(e);
    const via = this.http.viaProxy(this.url);
    return fail({
      kind: 'transient',
      message: outsideText(`${code && !detail.includes(code) ? `${code}: ${detail}` : detail}${via}`, ctx.scrub),
      afterSending: !(code && BEFORE_SENDING.has(code)),
    });
  }

  /** Scrubs the whole token, the key and the secret apart, and the proxy credentials. */
  private scrubberFor(token: string): (s: string) => string {
    if (this.scrubbing?.token !== token) {
      const { key, secret } = splitToken(token);
      this.scrubbing = { token, scrub: scrubberFor([token, key, secret, ...this.http.secretValues()]) };
    }
    return this.scrubbing.scrub;
  }
}

/** Failures that say the next call will fail the same way: starting it would only load the site. */
/** Failures that were a call's deadline passing: the site hangs, the next calls would wait as long. */
const TIMED_OUT = new WeakSet<FailureAnswer>();

function stopsTheRest(a: FailureAnswer): boolean {
  if (a.kind === 'auth' || a.kind === 'request-failed') return true;
  // Nothing listening, no route, refused before processing (408/429), or a deadline passed: the
  // site is down, drowning or hanging. A 5xx, a lock timeout or one dropped connection concerns
  // that call: the others go on.
  return a.kind === 'transient' && (!a.afterSending || TIMED_OUT.has(a));
}

/**
 * One result per punch, or the batch's failure when no punch got a verdict and every call (and
 * every punch left untried) failed the same way.
 */
function combine(
  answers: ReadonlyArray<CallAnswer | undefined>,
  stop: FailureAnswer | undefined,
  signal: AbortSignal | undefined,
): AttendanceAnswer {
  const untried: FailureAnswer = stop ?? {
    kind: 'transient',
    message: signal?.aborted ? 'request aborted (stopping)' : 'not sent',
    afterSending: false,
  };
  const failures: FailureAnswer[] = [];
  let verdicts = 0;
  for (const a of answers) {
    if (!a) failures.push(untried);
    else if (a.kind === 'failure') failures.push(a.answer);
    else verdicts++;
  }
  if (verdicts === 0 && failures.length > 0) {
    const first = failures.find((f) => f !== untried) ?? failures[0]!;
    if (failures.every((f) => f.kind === first.kind)) {
      if (first.kind !== 'transient') return first;
      // Transient as a whole: it may have reached Frappe if any call may have.
      const afterSending = failures.some((f) => f.kind === 'transient' && f.afterSending);
      return { ...first, afterSending };
    }
  }
  // One new document named for two punches: at most one of them made it (a cache answering every
  // call alike), so neither is taken as recorded; the next try's duplicate answer tells.
  const named = new Map<string, number>();
  for (const a of answers) if (a?.kind === 'result' && a.docName) named.set(a.docName, (named.get(a.docName) ?? 0) + 1);
  const results: PunchResult[] = answers.map((a) => {
    if (a?.kind === 'result' && a.docName && named.get(a.docName)! > 1)
      return {
        status: false,
        unknown: true,
        message: `Frappe named Employee Checkin ${a.result.message.replace(/^Employee Checkin /, '')} for more than one punch: not taken as recorded`,
      };
    if (a?.kind === 'result') return a.result;
    const f = a ? a.answer : untried;
    return { status: false, unknown: true, message: f.message };
  });
  const status = answers.find((a) => a?.kind === 'result') ? 200 : 0;
  return { kind: 'answered', httpStatus: status, overall: true, results };
}

/** A 502, 503 or 504 to the CONNECT is the proxy failing to reach the site, not a refusal of its rules. */
function proxyWords(code: string, status: number | undefined): string {
  if (code === 'PROXY_AUTH') return 'the proxy refused the credentials';
  if (status === 502 || status === 503 || status === 504)
    return 'the proxy could not reach the Frappe site (is it up?)';
  return 'the proxy refused to connect to the Frappe site';
}
